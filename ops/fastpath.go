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
	switch {
	case as.Equal(bs):
		accel.ParallelFor(n, elemGrain, func(lo, hi int) { arithSame(kind, a[lo:hi], b[lo:hi], out[lo:hi]) })
	case len(b) == 1 && len(a) == n:
		s := b[0]
		accel.ParallelFor(n, elemGrain, func(lo, hi int) { arithScalar(kind, a[lo:hi], s, out[lo:hi], false) })
	case len(a) == 1 && len(b) == n:
		s := a[0]
		accel.ParallelFor(n, elemGrain, func(lo, hi int) { arithScalar(kind, b[lo:hi], s, out[lo:hi], true) })
	case len(a) == n && isRow(bs, os):
		w := len(b)
		if w == 0 || n%w != 0 {
			return false
		}
		accel.ParallelFor(n/w, max(1, elemGrain/w), func(lo, hi int) {
			for r := lo; r < hi; r++ {
				arithSame(kind, a[r*w:(r+1)*w], b, out[r*w:(r+1)*w])
			}
		})
	default:
		return false
	}
	return true
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
		y := out.Data.([]float32)
		if kind == unaryRelu {
			accel.Relu(x, y)
			return true
		}
		accel.ParallelFor(len(x), elemGrain, func(lo, hi int) { unaryFast(kind, x[lo:hi], y[lo:hi]) })
	case []float64:
		y := out.Data.([]float64)
		accel.ParallelFor(len(x), elemGrain, func(lo, hi int) { unaryFast(kind, x[lo:hi], y[lo:hi]) })
	default:
		return false
	}
	return true
}

func unaryFast[T accel.Float](kind unaryKind, x, y []T) {
	y = y[:len(x)]
	switch kind {
	case unaryRelu:
		for i, v := range x {
			y[i] = max(v, 0)
		}
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
