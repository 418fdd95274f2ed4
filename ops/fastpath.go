package ops

import "github.com/hybridgo/hybridgo/accel"

// Float fast paths for the most used element-wise ops: add, sub, mul and
// div over equal shapes, a scalar operand, or a row broadcast over the
// leading dims (a bias), and the unary relu, negative, abs and square. The
// loops work in the operands' own type with no per-element function call.
// For these operations the result equals the general path's (computed in
// float64 and rounded once to float32): float64 holds enough bits that the
// double rounding never changes a sum, difference, product or quotient of
// two float32s.

// arithKind names an arithmetic op with a fast path (0: none).
type arithKind int8

const (
	arithAdd arithKind = iota + 1
	arithSub
	arithMul
	arithDiv
)

// fastBinary computes out = a (op) b for float32 or float64 values when the
// shapes allow a fast path, and reports whether it did.
func fastBinary(kind arithKind, a, b, out Value) bool {
	if kind == 0 || a.DType != b.DType || a.DType != out.DType {
		return false
	}
	switch x := a.Data.(type) {
	case []float32:
		return binaryFast(kind, x, b.Data.([]float32), out.Data.([]float32), a.Shape, b.Shape, out.Shape)
	case []float64:
		return binaryFast(kind, x, b.Data.([]float64), out.Data.([]float64), a.Shape, b.Shape, out.Shape)
	}
	return false
}

func binaryFast[T accel.Float](kind arithKind, a, b, out []T, as, bs, os Shape) bool {
	n := len(out)
	l := arithRange[T]{kind: kind, a: a, b: b, out: out}
	items, grain := n, elemGrain
	switch {
	case as.Equal(bs):
	case len(b) == 1 && len(a) == n:
		l.scalar, l.s = true, b[0]
	case len(a) == 1 && len(b) == n:
		l.a, l.scalar, l.swapped, l.s = b, true, true, a[0]
	case len(a) == n && isRow(bs, os):
		w := len(b)
		if w == 0 || n%w != 0 {
			return false
		}
		l.w, items, grain = w, n/w, max(1, elemGrain/w)
	case len(a) == n || len(b) == n:
		// One operand per channel (a BatchNorm's statistics against
		// NCHW data): rows of inner elements, each with one value.
		small, ss := bs, b
		if len(a) != n {
			small, ss, l.a, l.swapped = as, a, b, true
		}
		mid, inner, ok := channelBroadcast(small, os)
		if !ok {
			return false
		}
		l.perRow, l.mid, l.inner = ss, mid, inner
		items, grain = n/inner, max(1, elemGrain/inner)
	default:
		return false
	}
	if accel.RunsInline(items, grain) {
		l.Range(0, items) // small: no hand-off at all
	} else {
		accel.ParallelRange(items, grain, l)
	}
	return true
}

// arithRange is binaryFast's loop body, handed to the worker pool by
// value: out = a (op) b over elements [lo, hi), or with a scalar s (b
// ignored; s (op) a when swapped), or, when w > 0, over rows [lo, hi) of
// w elements with b one row, or, when perRow is set, over rows [lo, hi)
// of inner elements, row r with the value perRow[r%mid] (b ignored; that
// value (op) a when swapped).
type arithRange[T accel.Float] struct {
	kind            arithKind
	a, b, out       []T
	scalar, swapped bool
	s               T
	w               int
	perRow          []T
	mid, inner      int
}

func (l *arithRange[T]) Range(lo, hi int) {
	switch {
	case l.perRow != nil:
		for r := lo; r < hi; r++ {
			arithScalar(l.kind, l.a[r*l.inner:(r+1)*l.inner], l.perRow[r%l.mid], l.out[r*l.inner:(r+1)*l.inner], l.swapped)
		}
	case l.w > 0:
		for r := lo; r < hi; r++ {
			arithSame(l.kind, l.a[r*l.w:(r+1)*l.w], l.b, l.out[r*l.w:(r+1)*l.w])
		}
	case l.scalar:
		arithScalar(l.kind, l.a[lo:hi], l.s, l.out[lo:hi], l.swapped)
	default:
		arithSame(l.kind, l.a[lo:hi], l.b[lo:hi], l.out[lo:hi])
	}
}

// isRow reports whether b, broadcast to out, is one row repeated over the
// leading dims: b's dims past its leading 1s equal out's trailing dims.
func isRow(b, out Shape) bool {
	i := 0
	for i < len(b) && b[i] == 1 {
		i++
	}
	tail := b[i:]
	if len(tail) == 0 || len(tail) > len(out) {
		return false
	}
	return tail.Equal(out[len(out)-len(tail):])
}

// channelBroadcast reports whether b, broadcast to out, holds one value
// per index of a run of out's dims with more than one element past them
// (a BatchNorm's statistics, 1 x C x 1 x 1, against N x C x H x W): out
// split as outerKeptInner splits a reduction's input, b's dims the kept
// ones. It returns the run's size (mid) and the size of the dims past it
// (inner).
func channelBroadcast(b, out Shape) (mid, inner int, ok bool) {
	if len(b) > len(out) || len(out) > maxIterDims {
		return 0, 0, false
	}
	var buf [maxIterDims]int
	kept := Shape(buf[:len(out)])
	for i := range kept {
		kept[i] = 1
	}
	copy(kept[len(out)-len(b):], b) // b's dims align with out's last ones
	_, mid, inner, ok = outerKeptInner(out, kept)
	return mid, inner, ok && mid > 1 && inner > 1
}

func arithSame[T accel.Float](kind arithKind, a, b, out []T) {
	b, out = b[:len(a)], out[:len(a)]
	switch kind {
	case arithAdd:
		for i, v := range a {
			out[i] = v + b[i]
		}
	case arithSub:
		for i, v := range a {
			out[i] = v - b[i]
		}
	case arithMul:
		for i, v := range a {
			out[i] = v * b[i]
		}
	case arithDiv:
		for i, v := range a {
			out[i] = v / b[i]
		}
	}
}

// arithScalar computes out = x (op) s, or s (op) x when swapped.
func arithScalar[T accel.Float](kind arithKind, x []T, s T, out []T, swapped bool) {
	out = out[:len(x)]
	switch {
	case kind == arithAdd:
		for i, v := range x {
			out[i] = v + s
		}
	case kind == arithMul:
		for i, v := range x {
			out[i] = v * s
		}
	case kind == arithSub && !swapped:
		for i, v := range x {
			out[i] = v - s
		}
	case kind == arithSub:
		for i, v := range x {
			out[i] = s - v
		}
	case kind == arithDiv && !swapped:
		for i, v := range x {
			out[i] = v / s
		}
	case kind == arithDiv:
		for i, v := range x {
			out[i] = s / v
		}
	}
}

// unaryKind names a unary op with a fast path (0: none).
type unaryKind int8

const (
	unaryRelu unaryKind = iota + 1
	unaryNegative
	unaryAbs
	unarySquare
)

// fastUnary computes out = op(in) for float32 or float64 values and
// reports whether it did.
func fastUnary(kind unaryKind, in, out Value) bool {
	if kind == 0 || in.DType != out.DType {
		return false
	}
	switch x := in.Data.(type) {
	case []float32:
		unaryFastLoop(kind, x, out.Data.([]float32))
	case []float64:
		unaryFastLoop(kind, x, out.Data.([]float64))
	default:
		return false
	}
	return true
}

func unaryFastLoop[T accel.Float](kind unaryKind, x, y []T) {
	if kind == unaryRelu {
		accel.Relu(x, y) // with vector kernels where there are
		return
	}
	l := unaryFastRange[T]{kind, x, y}
	if accel.RunsInline(len(x), elemGrain) {
		l.Range(0, len(x))
		return
	}
	accel.ParallelRange(len(x), elemGrain, l)
}

// unaryFastRange is unaryFastLoop's body, handed to the worker pool by
// value.
type unaryFastRange[T accel.Float] struct {
	kind unaryKind
	x, y []T
}

func (l *unaryFastRange[T]) Range(lo, hi int) { unaryFast(l.kind, l.x[lo:hi], l.y[lo:hi]) }

func unaryFast[T accel.Float](kind unaryKind, x, y []T) {
	y = y[:len(x)]
	switch kind {
	case unaryNegative:
		for i, v := range x {
			y[i] = -v
		}
	case unaryAbs:
		for i, v := range x {
			if v < 0 {
				v = -v
			}
			y[i] = v
		}
	case unarySquare:
		for i, v := range x {
			y[i] = v * v
		}
	}
}
