package accel

import "math"

// Float is the element type of the floating-point kernels.
type Float interface{ ~float32 | ~float64 }

// vecGrain is the number of elements below which the vector kernels stay on
// the calling goroutine; it is also the smallest chunk they hand a worker.
const vecGrain = 1 << 15

// Axpy computes y += alpha*x over the first len(x) elements of y.
// It panics if y is shorter than x.
func Axpy[T Float](alpha T, x, y []T) {
	y = y[:len(x)]
	ParallelRange(len(x), vecGrain, axpyLoop[T]{alpha, x, y})
}

type axpyLoop[T Float] struct {
	alpha T
	x, y  []T
}

func (l *axpyLoop[T]) Range(lo, hi int) {
	xs, ys := l.x[lo:hi], l.y[lo:hi]
	if k := axpyKernel; k != nil {
		if x32, ok := any(xs).([]float32); ok {
			k(float32(l.alpha), x32, any(ys).([]float32))
			return
		}
	}
	for i, v := range xs {
		ys[i] += l.alpha * v
	}
}

// Scale computes x *= alpha.
func Scale[T Float](alpha T, x []T) {
	ParallelRange(len(x), vecGrain, scaleVecLoop[T]{alpha, x})
}

type scaleVecLoop[T Float] struct {
	alpha T
	x     []T
}

func (l *scaleVecLoop[T]) Range(lo, hi int) {
	xs := l.x[lo:hi]
	for i := range xs {
		xs[i] *= l.alpha
	}
}

// sumBlock is the length of the leaves of the summation tree. Leaves are
// summed with several independent accumulators; leaf sums are combined
// pairwise. The tree depends only on the length, never on the number of
// workers, so results are reproducible across machines.
const sumBlock = 1024

// ones32 is a leaf's worth of float32 ones: a float32 leaf is summed as
// its dot product with them, by the vector kernel.
var ones32 = func() (o [sumBlock]float32) {
	for i := range o {
		o[i] = 1
	}
	return o
}()

// Sum returns the sum of x, computed blockwise and pairwise so that the
// rounding error grows with log(len(x)) rather than len(x).
func Sum[T Float](x []T) T {
	if len(x) <= sumBlock {
		return sumLeaf(x) // one leaf: no closure, nothing allocated
	}
	return reduceBlocks(len(x), func(lo, hi int) T { return sumLeaf(x[lo:hi]) })
}

// Dot returns the inner product of x and y, summed like Sum.
// It panics if y is shorter than x.
func Dot[T Float](x, y []T) T {
	y = y[:len(x)]
	return reduceBlocks(len(x), func(lo, hi int) T { return dotLeaf(x[lo:hi], y[lo:hi]) })
}

// reduceBlocks sums leaf(lo, hi) over the sumBlock-sized blocks of [0, n)
// and adds the block results pairwise. Blocks are computed in parallel when
// n is large.
func reduceBlocks[T Float](n int, leaf func(lo, hi int) T) T {
	if n <= sumBlock {
		return leaf(0, n)
	}
	blocks := ceilDiv(n, sumBlock)
	partial := make([]T, blocks)
	ParallelFor(blocks, vecGrain/sumBlock, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			partial[b] = leaf(b*sumBlock, min((b+1)*sumBlock, n))
		}
	})
	return pairwise(partial)
}

// pairwise sums x by recursive halving.
func pairwise[T Float](x []T) T {
	if len(x) <= 8 {
		var s T
		for _, v := range x {
			s += v
		}
		return s
	}
	h := len(x) / 2
	return pairwise(x[:h]) + pairwise(x[h:])
}

// sumLeaf sums a short slice with four interleaved accumulators.
func sumLeaf[T Float](x []T) T {
	if k := sdotKernel; k != nil && len(x) <= len(ones32) {
		if x32, ok := any(x).([]float32); ok {
			return T(k(x32, ones32[:len(x32)])) // vector lanes as the accumulators
		}
	}
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		q := x[i : i+4 : i+4]
		s0 += q[0]
		s1 += q[1]
		s2 += q[2]
		s3 += q[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotLeaf is sumLeaf for the products x[i]*y[i].
func dotLeaf[T Float](x, y []T) T {
	y = y[:len(x)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		p := x[i : i+4 : i+4]
		q := y[i : i+4 : i+4]
		s0 += p[0] * q[0]
		s1 += p[1] * q[1]
		s2 += p[2] * q[2]
		s3 += p[3] * q[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// ReluGrad sets out[i] = g[i] * (y[i] > 0 ? 1 : 0) over len(g) elements:
// the gradient of relu, read from relu's output y. A NaN or infinite g
// gives NaN where y <= 0, as the product does. Large slices are spread
// over the workers.
func ReluGrad[T Float](g, y, out []T) {
	y, out = y[:len(g)], out[:len(g)]
	l := reluGradLoop[T]{g, y, out}
	if RunsInline(len(g), vecGrain) {
		l.Range(0, len(g))
		return
	}
	ParallelRange(len(g), vecGrain, l)
}

// reluGradLoop is ReluGrad's loop.
type reluGradLoop[T Float] struct{ g, y, out []T }

func (l *reluGradLoop[T]) Range(lo, hi int) {
	if k, ok := any(reluGradKernel).(func(g, y, out []T)); ok && k != nil {
		k(l.g[lo:hi], l.y[lo:hi], l.out[lo:hi])
		return
	}
	reluGradGo(l.g[lo:hi], l.y[lo:hi], l.out[lo:hi])
}

func reluGradGo[T Float](g, y, out []T) {
	y, out = y[:len(g)], out[:len(g)]
	for i, v := range g {
		var m T
		if y[i] > 0 {
			m = 1
		}
		out[i] = v * m
	}
}

// Fill sets every element of dst to v. It runs on the calling goroutine:
// it is the step of loops that are already spread, such as the fused
// element-wise loop's broadcast inputs.
func Fill[T Float](dst []T, v T) {
	if k, ok := any(fillKernel).(func(dst []T, v T)); ok && k != nil {
		k(dst, v)
		return
	}
	for i := range dst {
		dst[i] = v
	}
}

// ArithOp is one of the four operations of Arith.
type ArithOp uint8

const (
	ArithAdd ArithOp = iota // a + b
	ArithSub                // a - b
	ArithMul                // a * b
	ArithDiv                // a / b
)

// Arith sets out[i] = a[i] op b[i] for i < len(out), each result the
// operation's correctly rounded value in T, as Go's operators give it (no
// fused multiply-add), so that a loop of them equals the unfused one bit
// for bit. a and b are at least as long as out. It runs on the calling
// goroutine: it is the step of loops that are already spread, such as
// the fused element-wise loop's blocks.
func Arith[T Float](op ArithOp, out, a, b []T) {
	a, b = a[:len(out)], b[:len(out)]
	if k, ok := any(arithKernel).(func(op ArithOp, out, a, b []T)); ok && k != nil {
		k(op, out, a, b)
		return
	}
	arithGo(op, out, a, b)
}

func arithGo[T Float](op ArithOp, out, a, b []T) {
	a, b = a[:len(out)], b[:len(out)]
	switch op {
	case ArithAdd:
		for i := range out {
			out[i] = a[i] + b[i]
		}
	case ArithSub:
		for i := range out {
			out[i] = a[i] - b[i]
		}
	case ArithMul:
		for i := range out {
			out[i] = a[i] * b[i]
		}
	case ArithDiv:
		for i := range out {
			out[i] = a[i] / b[i]
		}
	}
}

// Relu sets y[i] = max(x[i], 0) over len(x) elements; a NaN stays NaN.
// x and y may be the same slice. Large slices are spread over the workers.
func Relu[T Float](x, y []T) {
	y = y[:len(x)]
	l := reluLoop[T]{x, y}
	if RunsInline(len(x), vecGrain) {
		l.Range(0, len(x))
		return
	}
	ParallelRange(len(x), vecGrain, l)
}

// reluLoop is Relu's loop.
type reluLoop[T Float] struct{ x, y []T }

func (l *reluLoop[T]) Range(lo, hi int) {
	if k, ok := any(reluKernel).(func(x, y []T)); ok && k != nil {
		k(l.x[lo:hi], l.y[lo:hi])
		return
	}
	reluGo(l.x[lo:hi], l.y[lo:hi])
}

func reluGo[T Float](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

// Clamp sets y[i] to x[i] bounded to [lo, hi]: lo below it, hi above it
// (a NaN stays NaN). x and y may be the same slice. Large slices are
// spread over the workers.
func Clamp[T Float](x, y []T, lo, hi T) {
	y = y[:len(x)]
	l := clampLoop[T]{x, y, lo, hi}
	if RunsInline(len(x), vecGrain) {
		l.Range(0, len(x))
		return
	}
	ParallelRange(len(x), vecGrain, l)
}

// clampLoop is Clamp's loop.
type clampLoop[T Float] struct {
	x, y   []T
	lo, hi T
}

func (l *clampLoop[T]) Range(lo, hi int) {
	x, y := l.x[lo:hi], l.y[lo:hi]
	if y32, ok := any(y).([]float32); ok && scaleAddClampKernel != nil {
		scaleAddClampKernel(y32, any(x).([]float32), 1, 0, nil, float32(l.lo), float32(l.hi))
		return
	}
	for i, v := range x {
		if v < l.lo {
			v = l.lo
		}
		if v > l.hi {
			v = l.hi
		}
		y[i] = v
	}
}

// ScaleRows sets row i of dst to row i of src times scale[i], for
// len(scale) rows of len(src)/len(scale) elements (a convolution's
// filters scaled one by one). dst may be src.
func ScaleRows[T Float](dst, src, scale []T) {
	if len(scale) == 0 {
		return
	}
	k := len(src) / len(scale)
	dst = dst[:len(scale)*k]
	for i, s := range scale {
		d, x := dst[i*k:(i+1)*k], src[i*k:(i+1)*k]
		if d32, ok := any(d).([]float32); ok && scaleAddClampKernel != nil {
			scaleAddClampKernel(d32, any(x).([]float32), float32(s), 0, nil, float32(math.Inf(-1)), float32(math.Inf(1)))
			continue
		}
		for j, v := range x {
			d[j] = v * s
		}
	}
}
