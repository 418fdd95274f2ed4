//go:build !purego

package accel

import "golang.org/x/sys/cpu"

//go:noescape
func shiftedSums64AVX512(n int, x *float32, k float64) (s1, s2 float64)

//go:noescape
func shiftScaleAVX512(n int, x, y *float32, m, s, b float32)

//go:noescape
func gradStats64AVX512(n int, gy, x *float32, mu float64) (sg, sgx float64)

//go:noescape
func gradCombineAVX512(n int, dx, gy, x *float32, a, b, m, c float32)

//go:noescape
func bnFoldAVX512(n int, gamma, beta, mean, variance, bias *float32, eps float32, scale, shift *float32)

func init() {
	if cpu.X86.HasAVX512F && !noAVX512 {
		shiftedSumsKernel = func(x []float32, k float64) (float64, float64) { return shiftedSums64AVX512(len(x), &x[0], k) }
		shiftScaleKernel = func(y, x []float32, m, s, b float32) {
			_ = y[len(x)-1]
			shiftScaleAVX512(len(x), &x[0], &y[0], m, s, b)
		}
		gradStatsKernel = func(g, x []float32, mu float64) (float64, float64) {
			_ = x[len(g)-1]
			return gradStats64AVX512(len(g), &g[0], &x[0], mu)
		}
		gradCombineKernel = func(dx, g, x []float32, a, b, m, c float32) {
			_, _ = dx[len(g)-1], x[len(g)-1]
			gradCombineAVX512(len(g), &dx[0], &g[0], &x[0], a, b, m, c)
		}
		bnFoldKernel = bnFold32
	}
}

// bnFold32 is bnFoldKernel: scale, shift, beta, mean and variance hold n
// elements, gamma and bias n or none.
func bnFold32(scale, shift, gamma, beta, mean, variance, bias []float32, eps float32) {
	n := len(scale)
	if n == 0 {
		return
	}
	_, _, _, _ = shift[n-1], beta[n-1], mean[n-1], variance[n-1]
	var g, b *float32
	if gamma != nil {
		g = &gamma[:n][0]
	}
	if bias != nil {
		b = &bias[:n][0]
	}
	bnFoldAVX512(n, g, &beta[0], &mean[0], &variance[0], b, eps, &scale[0], &shift[0])
}
