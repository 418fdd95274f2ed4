//go:build !purego

package accel

import "golang.org/x/sys/cpu"

//go:noescape
func sum64AVX512(n int, x *float32) float64

//go:noescape
func sqDev64AVX512(n int, x *float32, mu float64) float64

//go:noescape
func shiftScaleAVX512(n int, x, y *float32, m, s, b float32)

//go:noescape
func gradStats64AVX512(n int, gy, x *float32, mu float64) (sg, sgx float64)

//go:noescape
func gradCombineAVX512(n int, dx, gy, x *float32, a, b, m, c float32)

func init() {
	if cpu.X86.HasAVX512F && !noAVX512 {
		sum64Kernel = func(x []float32) float64 { return sum64AVX512(len(x), &x[0]) }
		sqDev64Kernel = func(x []float32, mu float64) float64 { return sqDev64AVX512(len(x), &x[0], mu) }
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
	}
}
