package accel

import "math"

// Per-channel statistics and normalisation (BatchNorm's): sums in float64
// over float32 or float64 data, a shift and scale, and an inference
// BatchNorm folded into the layer before it.

// sum64Kernel and sqDev64Kernel are SumFloat64 and SquaredDeviations on
// float32 for lengths that are positive multiples of 32, and
// shiftScaleKernel is ShiftScale on float32 for positive lengths; nil
// where the CPU has no such kernels.
var (
	sum64Kernel      func(x []float32) float64
	sqDev64Kernel    func(x []float32, mu float64) float64
	shiftScaleKernel func(y, x []float32, m, s, b float32)
	// gradStatsKernel is GradStatistics on float32 for lengths that are
	// positive multiples of 16, gradCombineKernel GradCombine for
	// positive lengths.
	gradStatsKernel   func(g, x []float32, mu float64) (float64, float64)
	gradCombineKernel func(dx, g, x []float32, a, b, m, c float32)
	// bnFoldKernel is BatchNormFold on float32.
	bnFoldKernel func(scale, shift, gamma, beta, mean, variance, bias []float32, eps float32)
)

// BatchNormFold folds an inference BatchNorm into the layer before it:
// for each of the len(scale) channels, scale = gamma / sqrt(variance +
// eps) (1 over the root for a nil gamma, BatchNorm's fix_gamma) and shift
// = beta - mean*scale, plus bias*scale for the layer's bias (nil for
// none). float32 goes sixteen channels at a time, in float32, where the
// CPU has the kernel (MobileNet v2's 17,000 channels took 75 µs a
// forward one at a time in float64); the rest is computed in float64.
func BatchNormFold[T Float](scale, shift, gamma, beta, mean, variance, bias []T, eps float64) {
	n := len(scale)
	shift, beta, mean, variance = shift[:n], beta[:n], mean[:n], variance[:n]
	if gamma != nil {
		gamma = gamma[:n]
	}
	if bias != nil {
		bias = bias[:n]
	}
	if k := bnFoldKernel; k != nil {
		if s32, ok := any(scale).([]float32); ok {
			k(s32, any(shift).([]float32), any(gamma).([]float32), any(beta).([]float32), any(mean).([]float32),
				any(variance).([]float32), any(bias).([]float32), float32(eps))
			return
		}
	}
	for f := range n {
		s := 1 / math.Sqrt(float64(variance[f])+eps)
		if gamma != nil {
			s *= float64(gamma[f])
		}
		b := float64(beta[f]) - float64(mean[f])*s
		if bias != nil {
			b += float64(bias[f]) * s
		}
		scale[f], shift[f] = T(s), T(b)
	}
}

// SumFloat64 returns the sum of x computed in float64, in eight
// independent sums (so that additions need not wait for each other: one
// sum waited four cycles an element).
func SumFloat64[T Float](x []T) float64 {
	s := 0.0
	if x32, ok := any(x).([]float32); ok && sum64Kernel != nil && len(x) >= 32 {
		head := len(x) &^ 31
		s, x = sum64Kernel(x32[:head]), x[head:]
	}
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += float64(v[0])
		s1 += float64(v[1])
		s2 += float64(v[2])
		s3 += float64(v[3])
		s4 += float64(v[4])
		s5 += float64(v[5])
		s6 += float64(v[6])
		s7 += float64(v[7])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return s + ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// SquaredDeviations returns the sum of (x[i] - mu)² in float64, summed as
// SumFloat64 sums.
func SquaredDeviations[T Float](x []T, mu float64) float64 {
	s := 0.0
	if x32, ok := any(x).([]float32); ok && sqDev64Kernel != nil && len(x) >= 32 {
		head := len(x) &^ 31
		s, x = sqDev64Kernel(x32[:head], mu), x[head:]
	}
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	sq := func(v T) float64 { d := float64(v) - mu; return d * d }
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += sq(v[0])
		s1 += sq(v[1])
		s2 += sq(v[2])
		s3 += sq(v[3])
		s4 += sq(v[4])
		s5 += sq(v[5])
		s6 += sq(v[6])
		s7 += sq(v[7])
	}
	for ; i < len(x); i++ {
		s0 += sq(x[i])
	}
	return s + ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// ShiftScale sets y[i] = (x[i]-m)*s + b, with the shift first so that
// nothing cancels. It panics if y is shorter than x.
func ShiftScale[T Float](y, x []T, m, s, b T) {
	y = y[:len(x)]
	if len(x) == 0 {
		return
	}
	if k := shiftScaleKernel; k != nil {
		if x32, ok := any(x).([]float32); ok {
			k(any(y).([]float32), x32, float32(m), float32(s), float32(b))
			return
		}
	}
	for i, v := range x {
		y[i] = (v-m)*s + b
	}
}

// GradStatistics returns the sums of g[i] and of g[i]*(x[i]-mu) over the
// elements of g, in float64: the two sums BatchNorm's gradient takes per
// channel. It panics if x is shorter than g.
func GradStatistics[T Float](g, x []T, mu float64) (sg, sgx float64) {
	x = x[:len(g)]
	if g32, ok := any(g).([]float32); ok && gradStatsKernel != nil && len(g) >= 16 {
		head := len(g) &^ 15
		sg, sgx = gradStatsKernel(g32[:head], any(x).([]float32)[:head], mu)
		g, x = g[head:], x[head:]
	}
	for i, v := range g {
		sg += float64(v)
		sgx += float64(v) * (float64(x[i]) - mu)
	}
	return sg, sgx
}

// GradCombine sets dx[i] = a*g[i] + b*(x[i]-m) + c over the elements of
// g: BatchNorm's data gradient, once its sums are known. It panics if dx
// or x is shorter than g.
func GradCombine[T Float](dx, g, x []T, a, b, m, c T) {
	dx, x = dx[:len(g)], x[:len(g)]
	if len(g) == 0 {
		return
	}
	if k := gradCombineKernel; k != nil {
		if g32, ok := any(g).([]float32); ok {
			k(any(dx).([]float32), g32, any(x).([]float32), float32(a), float32(b), float32(m), float32(c))
			return
		}
	}
	for i, v := range g {
		dx[i] = a*v + b*(x[i]-m) + c
	}
}
