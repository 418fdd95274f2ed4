package ops

import (
	"math"

	"github.com/hybridgo/hybridgo/accel"
)

// The compute loops of BatchNorm and LayerNorm (norm.go): per channel, or
// per position along the other axes, spread over accel's workers.

// batchNormKernel normalises per channel. Statistics accumulate in float64;
// in training the normalisation is done in float64 too, outside training in
// T (see batchNormLoop.Range).
func batchNormKernel[T accel.Float](a *BatchNormAttrs, train bool, ax int, in, out []Value) {
	x, gamma, beta := in[0].Data.([]T), in[1].Data.([]T), in[2].Data.([]T)
	movMean, movVar := in[3].Data.([]T), in[4].Data.([]T)
	y, mean, variance := out[0].Data.([]T), out[1].Data.([]T), out[2].Data.([]T)
	outer, c, inner := channelLayout(in[0].Shape, ax)
	n := float64(outer * inner)
	accel.ParallelRange(c, 1, batchNormLoop[T]{a, train, x, gamma, beta, movMean, movVar, y, mean, variance, outer, c, inner, n})
}

// batchNormLoop is batchNormKernel's loop over channels.
type batchNormLoop[T accel.Float] struct {
	a        *BatchNormAttrs
	train    bool
	x        []T
	gamma    []T
	beta     []T
	movMean  []T
	movVar   []T
	y        []T
	mean     []T
	variance []T
	outer    int
	c        int
	inner    int
	n        float64
}

func (l *batchNormLoop[T]) Range(lo, hi int) {
	a, train, x, gamma, beta, movMean, movVar, y, mean, variance, outer, c, inner, n := l.a, l.train, l.x, l.gamma, l.beta, l.movMean, l.movVar, l.y, l.mean, l.variance, l.outer, l.c, l.inner, l.n
	for ch := lo; ch < hi; ch++ {
		var mu, v float64
		if train {
			// The sums about the channel's first value, which is near
			// enough to the mean for the variance not to cancel
			// (accel.ShiftedSums).
			var k, s1, s2 float64
			if outer > 0 && inner > 0 {
				k = float64(x[ch*inner])
			}
			for o := 0; o < outer; o++ {
				a, b := accel.ShiftedSums(x[(o*c+ch)*inner:(o*c+ch+1)*inner], k)
				s1, s2 = s1+a, s2+b
			}
			d := s1 / n
			mu = k + d
			v = max(0, s2/n-d*d)
			m := a.Momentum
			movMean[ch] = T(float64(movMean[ch])*m + mu*(1-m))
			movVar[ch] = T(float64(movVar[ch])*m + v*(1-m))
		} else {
			mu, v = float64(movMean[ch]), float64(movVar[ch])
		}
		mean[ch], variance[ch] = T(mu), T(v)
		scale := 1 / math.Sqrt(v+a.Eps)
		if !a.FixGamma {
			scale *= float64(gamma[ch])
		}
		// y = (x - mean)*scale + beta in T, with the mean subtracted
		// first so that nothing cancels: three operations an element and
		// no conversions. What rounding the batch mean to T loses goes
		// into the bias (the running mean is a T already).
		m := T(mu)
		s, b := T(scale), T(float64(beta[ch])-(mu-float64(m))*scale)
		for o := 0; o < outer; o++ {
			off := (o*c + ch) * inner
			accel.ShiftScale(y[off:off+inner], x[off:off+inner], m, s, b)
		}
	}
}

// batchNormGradKernel computes _backward_BatchNorm per channel: the sums
// of ograd and of ograd*(data-mean) in float64, then
// dx = scale*(ograd - Σograd/n - xhat*Σ(ograd*xhat)/n) with
// xhat = (data-mean)*invstd, as one multiply-add of ograd and data.
func batchNormGradKernel[T accel.Float](a *BatchNormAttrs, ax int, in, out []Value) {
	outer, c, inner := channelLayout(in[1].Shape, ax)
	l := batchNormGradLoop[T]{a: a, gy: in[0].Data.([]T), x: in[1].Data.([]T), gamma: in[2].Data.([]T), mean: in[3].Data.([]T),
		variance: in[4].Data.([]T), dx: out[0].Data.([]T), dgamma: out[1].Data.([]T), dbeta: out[2].Data.([]T), outer: outer, c: c, inner: inner}
	accel.ParallelRange(c, 1, l)
}

// batchNormGradLoop is batchNormGradKernel's loop over channels.
type batchNormGradLoop[T accel.Float] struct {
	a                            *BatchNormAttrs
	gy, x, gamma, mean, variance []T
	dx, dgamma, dbeta            []T
	outer, c, inner              int
}

func (l *batchNormGradLoop[T]) Range(lo, hi int) {
	a, outer, c, inner := l.a, l.outer, l.c, l.inner
	n := float64(outer * inner)
	for ch := lo; ch < hi; ch++ {
		mu := float64(l.mean[ch])
		invstd := 1 / math.Sqrt(float64(l.variance[ch])+a.Eps)
		var sg, sgx float64
		for o := range outer {
			off := (o*c + ch) * inner
			s, sx := accel.GradStatistics(l.gy[off:off+inner], l.x[off:off+inner], mu)
			sg, sgx = sg+s, sgx+sx
		}
		scale := invstd
		l.dbeta[ch], l.dgamma[ch] = T(sg), 0
		if !a.FixGamma {
			l.dgamma[ch] = T(sgx * invstd)
			scale *= float64(l.gamma[ch])
		}
		// dx = scale*gy + b*(x - mu) + cst, with the mean rounded to T
		// and what that loses moved into the constant.
		m := T(mu)
		b := -scale * invstd * invstd * sgx / n
		cst := -scale*sg/n + b*(float64(m)-mu)
		for o := range outer {
			off := (o*c + ch) * inner
			accel.GradCombine(l.dx[off:off+inner], l.gy[off:off+inner], l.x[off:off+inner], T(scale), T(b), m, T(cst))
		}
	}
}

// layerNormKernel normalises along axis ax, per position of the other axes.
func layerNormKernel[T accel.Float](a *LayerNormAttrs, ax int, in, out []Value) {
	x, gamma, beta := in[0].Data.([]T), in[1].Data.([]T), in[2].Data.([]T)
	y, mean, std := out[0].Data.([]T), out[1].Data.([]T), out[2].Data.([]T)
	outer, c, inner := channelLayout(in[0].Shape, ax)
	n := float64(c)
	accel.ParallelRange(outer*inner, 64, layerNormLoop[T]{a, x, gamma, beta, y, mean, std, c, inner, n})
}

// layerNormLoop is layerNormKernel's loop over positions.
type layerNormLoop[T accel.Float] struct {
	a     *LayerNormAttrs
	x     []T
	gamma []T
	beta  []T
	y     []T
	mean  []T
	std   []T
	c     int
	inner int
	n     float64
}

func (l *layerNormLoop[T]) Range(lo, hi int) {
	a, x, gamma, beta, y, mean, std, c, inner, n := l.a, l.x, l.gamma, l.beta, l.y, l.mean, l.std, l.c, l.inner, l.n
	for p := lo; p < hi; p++ {
		o, i := p/inner, p%inner
		base := o*c*inner + i
		s := 0.0
		for k := 0; k < c; k++ {
			s += float64(x[base+k*inner])
		}
		mu := s / n
		ss := 0.0
		for k := 0; k < c; k++ {
			d := float64(x[base+k*inner]) - mu
			ss += d * d
		}
		sd := math.Sqrt(ss/n + a.Eps)
		mean[p], std[p] = T(mu), T(sd)
		for k := 0; k < c; k++ {
			j := base + k*inner
			y[j] = T((float64(x[j])-mu)/sd*float64(gamma[k]) + float64(beta[k]))
		}
	}
}
