package accel

import "math"

// Per-channel statistics and normalisation (BatchNorm's): sums in float64
// over float32 or float64 data, a shift and scale, and an inference
// BatchNorm folded into the layer before it.

// shiftedSumsKernel is ShiftedSums on float32 for lengths that are
// positive multiples of 32, and shiftScaleKernel is ShiftScale on float32
// for positive lengths; nil where the CPU has no such kernels.
var (
	shiftedSumsKernel func(x []float32, k float64) (float64, float64)
	shiftScaleKernel  func(y, x []float32, m, s, b float32)
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

// ShiftedSums returns the sums of x[i]-k and of (x[i]-k)² over x in
// float64, each in eight independent sums (so that additions need not
// wait for each other: one sum waited four cycles an element). With k
// near the values' mean (one of the values, say), they give the mean and
// the variance in one pass: mean = k + s1/n and variance = s2/n -
// (s1/n)², which cancels little as k is near the mean. (BatchNorm's
// statistics took two passes, the mean's and then the squared
// deviations'.)
func ShiftedSums[T Float](x []T, k float64) (s1, s2 float64) {
	if x32, ok := any(x).([]float32); ok && shiftedSumsKernel != nil && len(x) >= 32 {
		head := len(x) &^ 31
		s1, s2 = shiftedSumsKernel(x32[:head], k)
		x = x[head:]
	}
	var a, b [8]float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		for j := range a {
			d := float64(v[j]) - k
			a[j] += d
			b[j] += d * d
		}
	}
	for ; i < len(x); i++ {
		d := float64(x[i]) - k
		a[0] += d
		b[0] += d * d
	}
	s1 += ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
	s2 += ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]))
	return s1, s2
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
