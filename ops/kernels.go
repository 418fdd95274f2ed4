package ops

import (
	"fmt"

	"github.com/hybridgo/hybridgo/accel"
)

// This file holds the loops that many kernels share: element-wise maps in
// every dtype, numpy broadcasting, summing a broadcast result back down,
// and moving elements by index. The ops that move elements without
// changing them (transpose, Concat, slice, tile, take, …) work on every
// dtype: each computes, for every output element, the offset of its source
// element, then moves the elements with one generic loop (moveElems).

// elemGrain is how many elements one parallel chunk of an element-wise loop gets.
const elemGrain = 1 << 14

// mapUnary sets out[i] = f(in[i]) for any numeric dtype (integers go
// through float64 and truncate back, as MXNet's integer kernels do).
func mapUnary(in, out Value, f func(float64) float64) error {
	switch x := in.Data.(type) {
	case []float32:
		unaryLoop(x, out.Data.([]float32), f)
	case []float64:
		unaryLoop(x, out.Data.([]float64), f)
	case []uint8:
		unaryLoop(x, out.Data.([]uint8), f)
	case []int8:
		unaryLoop(x, out.Data.([]int8), f)
	case []int32:
		unaryLoop(x, out.Data.([]int32), f)
	case []int64:
		unaryLoop(x, out.Data.([]int64), f)
	default:
		return fmt.Errorf("dtype %v is not supported", in.DType)
	}
	return nil
}

func unaryLoop[T Number](x, y []T, f func(float64) float64) {
	l := unaryRange[T]{x, y, f}
	if accel.RunsInline(len(x), elemGrain) {
		l.Range(0, len(x)) // small: no hand-off at all
		return
	}
	accel.ParallelRange(len(x), elemGrain, l)
}

// unaryRange is unaryLoop's body, handed to the worker pool by value.
type unaryRange[T Number] struct {
	x, y []T
	f    func(float64) float64
}

func (l *unaryRange[T]) Range(lo, hi int) {
	x, y, f := l.x, l.y, l.f
	for i := lo; i < hi; i++ {
		y[i] = T(f(float64(x[i])))
	}
}

// mapBinary sets out = f(a, b) with numpy broadcasting of a and b to out.Shape.
func mapBinary(a, b, out Value, f func(x, y float64) float64) error {
	switch x := a.Data.(type) {
	case []float32:
		binaryLoop(x, b.Data.([]float32), out.Data.([]float32), a.Shape, b.Shape, out.Shape, f)
	case []float64:
		binaryLoop(x, b.Data.([]float64), out.Data.([]float64), a.Shape, b.Shape, out.Shape, f)
	case []uint8:
		binaryLoop(x, b.Data.([]uint8), out.Data.([]uint8), a.Shape, b.Shape, out.Shape, f)
	case []int8:
		binaryLoop(x, b.Data.([]int8), out.Data.([]int8), a.Shape, b.Shape, out.Shape, f)
	case []int32:
		binaryLoop(x, b.Data.([]int32), out.Data.([]int32), a.Shape, b.Shape, out.Shape, f)
	case []int64:
		binaryLoop(x, b.Data.([]int64), out.Data.([]int64), a.Shape, b.Shape, out.Shape, f)
	default:
		return fmt.Errorf("dtype %v is not supported", a.DType)
	}
	return nil
}

// binaryRange is binaryLoop's body without broadcasting, handed to the
// worker pool by value.
type binaryRange[T Number] struct {
	a, b, out []T
	f         func(x, y float64) float64
}

func (l *binaryRange[T]) Range(lo, hi int) {
	a, b, out, f := l.a, l.b, l.out, l.f
	for i := lo; i < hi; i++ {
		out[i] = T(f(float64(a[i]), float64(b[i])))
	}
}

func binaryLoop[T Number](a, b, out []T, as, bs, os Shape, f func(x, y float64) float64) {
	if as.Equal(bs) { // the common case: no broadcasting
		l := binaryRange[T]{a, b, out, f}
		if accel.RunsInline(len(out), elemGrain) {
			l.Range(0, len(out)) // small: no hand-off at all
			return
		}
		accel.ParallelRange(len(out), elemGrain, l)
		return
	}
	it := newBroadcastIter(os, as, bs)
	it.run(func(o, ia, ib, n, sa, sb int) {
		for j := 0; j < n; j++ {
			out[o+j] = T(f(float64(a[ia+j*sa]), float64(b[ib+j*sb])))
		}
	})
}

// broadcastIter walks a result of shape out in runs along its last dim,
// giving for each run the offsets of the matching elements of each operand
// and their strides along the run (0 where the operand is broadcast).
//
// Up to maxIterDims dims the strides live in the iterator itself, so that
// kernels iterating on every call allocate nothing.
type broadcastIter struct {
	out   Shape
	small [2][maxIterDims]int
	big   [2][]int // per operand, strides aligned to out (0 on broadcast dims), beyond maxIterDims
}

const maxIterDims = 8

func newBroadcastIter(out, a, b Shape) broadcastIter {
	it := broadcastIter{out: out}
	for k, s := range [2]Shape{a, b} {
		if len(out) <= maxIterDims {
			BroadcastStridesTo(it.small[k][:len(out)], s, out)
		} else {
			it.big[k] = BroadcastStrides(s, out)
		}
	}
	return it
}

// strides returns operand k's strides.
func (it *broadcastIter) strides(k int) []int {
	if it.big[k] != nil {
		return it.big[k]
	}
	return it.small[k][:len(it.out)]
}

// BroadcastStrides returns the strides with which an array of shape s is
// read as the larger shape out: dims of size 1 (and missing leading dims) get stride 0.
func BroadcastStrides(s, out Shape) []int {
	st := make([]int, len(out))
	BroadcastStridesTo(st, s, out)
	return st
}

// BroadcastStridesTo is BroadcastStrides writing into st (len(out) long),
// for loops that keep their own scratch.
func BroadcastStridesTo(st []int, s, out Shape) {
	clear(st)
	off := len(out) - len(s)
	n := 1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 1 {
			st[off+i] = n
		}
		n *= s[i]
	}
}

// run calls body for every run of the last dim, with two operands' offsets.
func (it broadcastIter) run(body func(o, ia, ib, n, sa, sb int)) {
	nd := len(it.out)
	if nd == 0 {
		body(0, 0, 0, 1, 0, 0)
		return
	}
	inner := it.out[nd-1]
	if inner == 0 || it.out.Size() == 0 {
		return
	}
	sa, sb := it.strides(0), it.strides(1)
	var idxBuf [maxIterDims]int
	var idx []int
	if nd-1 <= len(idxBuf) {
		idx = idxBuf[:nd-1]
	} else {
		idx = make([]int, nd-1)
	}
	ia, ib := 0, 0
	for o := 0; o < it.out.Size(); o += inner {
		body(o, ia, ib, inner, sa[nd-1], sb[nd-1])
		// Advance the odometer over the outer dims.
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			ia += sa[d]
			ib += sb[d]
			if idx[d] < it.out[d] {
				break
			}
			ia -= sa[d] * idx[d]
			ib -= sb[d] * idx[d]
			idx[d] = 0
		}
	}
}

// sumTo adds every element of in (shape big) into out, whose shape broadcasts
// to big: the adjoint of broadcasting, used by broadcast ops' gradients.
// out is cleared first.
func sumTo(in, out Value) error {
	switch x := in.Data.(type) {
	case []float32:
		sumToLoop(x, out.Data.([]float32), in.Shape, out.Shape)
	case []float64:
		sumToLoop(x, out.Data.([]float64), in.Shape, out.Shape)
	case []uint8:
		sumToLoop(x, out.Data.([]uint8), in.Shape, out.Shape)
	case []int8:
		sumToLoop(x, out.Data.([]int8), in.Shape, out.Shape)
	case []int32:
		sumToLoop(x, out.Data.([]int32), in.Shape, out.Shape)
	case []int64:
		sumToLoop(x, out.Data.([]int64), in.Shape, out.Shape)
	default:
		return fmt.Errorf("dtype %v is not supported", in.DType)
	}
	return nil
}

func sumToLoop[T Number](in, out []T, big, small Shape) {
	clear(out)
	it := newBroadcastIter(big, big, small)
	it.run(func(o, _, io, n, _, so int) {
		for j := 0; j < n; j++ {
			out[io+j*so] += in[o+j]
		}
	})
}

// CopyData copies a data slice of any dtype into another of the same dtype.
func CopyData(dst, src any) {
	switch s := src.(type) {
	case []float32:
		copy(dst.([]float32), s)
	case []float64:
		copy(dst.([]float64), s)
	case []uint8:
		copy(dst.([]uint8), s)
	case []int8:
		copy(dst.([]int8), s)
	case []int32:
		copy(dst.([]int32), s)
	case []int64:
		copy(dst.([]int64), s)
	case []bool:
		copy(dst.([]bool), s)
	}
}

// fillData sets every element of data to v.
func fillData(data any, v float64) {
	switch d := data.(type) {
	case []float32:
		fill(d, float32(v))
	case []float64:
		fill(d, v)
	case []uint8:
		fill(d, uint8(v))
	case []int8:
		fill(d, int8(v))
	case []int32:
		fill(d, int32(v))
	case []int64:
		fill(d, int64(v))
	case []bool:
		fill(d, v != 0)
	}
}

func fill[T any](d []T, v T) {
	for i := range d {
		d[i] = v
	}
}

// requireFloat reports an error naming the dtype unless every value is
// float32 or float64, for kernels that support only those.
func requireFloat(vs ...Value) error {
	for _, v := range vs {
		if v.DType != Float32 && v.DType != Float64 {
			return fmt.Errorf("dtype %v is not supported (float32 and float64 are)", v.DType)
		}
	}
	return nil
}

// SliceData returns the first n elements of a data slice made by MakeData.
func SliceData(data any, n int) any {
	switch d := data.(type) {
	case []float32:
		return d[:n]
	case []float64:
		return d[:n]
	case []uint8:
		return d[:n]
	case []int8:
		return d[:n]
	case []int32:
		return d[:n]
	case []int64:
		return d[:n]
	case []bool:
		return d[:n]
	}
	panic(fmt.Sprintf("ops: SliceData of %T", data))
}

// ClearData sets every element of a data slice to zero.
func ClearData(data any) {
	switch d := data.(type) {
	case []float32:
		clear(d)
	case []float64:
		clear(d)
	case []uint8:
		clear(d)
	case []int8:
		clear(d)
	case []int32:
		clear(d)
	case []int64:
		clear(d)
	case []bool:
		clear(d)
	}
}

// stridedOffsets lists, for each element of a row-major array of shape out,
// the offset base + Σ i_d*strides[d] of the element it corresponds to.
func stridedOffsets(out Shape, base int, strides []int) []int {
	n := out.Size()
	idx := make([]int, n)
	nd := len(out)
	pos := make([]int, nd)
	off := base
	for i := 0; i < n; i++ {
		idx[i] = off
		for d := nd - 1; d >= 0; d-- {
			pos[d]++
			off += strides[d]
			if pos[d] < out[d] {
				break
			}
			off -= strides[d] * pos[d]
			pos[d] = 0
		}
	}
	return idx
}

// moveElems copies elements between two data slices of one dtype (any
// dtype, bool included): dst[i] = src[idx[i]] when gathering, dst[idx[i]] =
// src[i] when scattering.
func moveElems(dst, src any, idx []int, scatter bool) error {
	switch d := dst.(type) {
	case []float32:
		return moveLoop(d, src, idx, scatter)
	case []float64:
		return moveLoop(d, src, idx, scatter)
	case []uint8:
		return moveLoop(d, src, idx, scatter)
	case []int8:
		return moveLoop(d, src, idx, scatter)
	case []int32:
		return moveLoop(d, src, idx, scatter)
	case []int64:
		return moveLoop(d, src, idx, scatter)
	case []bool:
		return moveLoop(d, src, idx, scatter)
	}
	return fmt.Errorf("no kernel for data of type %T", dst)
}

func moveLoop[T any](d []T, src any, idx []int, scatter bool) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("input is %T but output is %T", src, d)
	}
	if scatter {
		for i, j := range idx {
			d[j] = s[i]
		}
		return nil
	}
	for i, j := range idx {
		d[i] = s[j]
	}
	return nil
}

// scatterAddElems adds src[i] into dst[idx[i]] (numeric dtypes): the
// adjoint of a gather, used by the gradients of slice, take and pick.
func scatterAddElems(dst, src any, idx []int) error {
	switch d := dst.(type) {
	case []float32:
		return scatterAddLoop(d, src, idx)
	case []float64:
		return scatterAddLoop(d, src, idx)
	case []uint8:
		return scatterAddLoop(d, src, idx)
	case []int8:
		return scatterAddLoop(d, src, idx)
	case []int32:
		return scatterAddLoop(d, src, idx)
	case []int64:
		return scatterAddLoop(d, src, idx)
	}
	return fmt.Errorf("no kernel for data of type %T (a numeric dtype is needed)", dst)
}

func scatterAddLoop[T Number](d []T, src any, idx []int) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("input is %T but output is %T", src, d)
	}
	for i, j := range idx {
		d[j] += s[i]
	}
	return nil
}

// gatherStrided fills out from in, reading out's element at index (i_0, …)
// from offset base + Σ i_d*strides[d] of in.
func gatherStrided(in, out Value, shape Shape, base int, strides []int) error {
	return moveElems(out.Data, in.Data, stridedOffsets(shape, base, strides), false)
}
