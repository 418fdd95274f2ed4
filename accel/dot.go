package accel

// sdotKernel is the float32 dot product of equal-length slices used by
// small products (see gemmDots), or nil when no vector kernel is available.
// kernel_amd64.go sets it on CPUs with AVX2 and FMA.
var sdotKernel func(x, y []float32) float32

// sdotRowsKernel sets out[r] to the dot product of row r of a (rows lda
// apart, len(x) values each) with x, for the len(out) rows, or is nil
// when there is no such vector kernel (then sdotKernel goes row by row).
var sdotRowsKernel func(a []float32, lda int, x, out []float32)

// addVecReluKernel (x[i] += b[i], then relu) is a float32 epilogue loop,
// or nil when there are no vector kernels; kernel code falls back to Go
// loops.
var addVecReluKernel func(x, b []float32, relu bool)

// scaleAddClampKernel is scaleAddClamp for float32 with vector loops, or
// nil when there are none.
var scaleAddClampKernel func(y, x []float32, s, b float32, add []float32, lo, hi float32)

// scaleAddClampRowsKernel finishes the rows x cols float32 matrix at c
// (row stride ldc) in place: row r becomes x*scale[r] + bias[r] (1 and 0
// for a nil slice), plus row r of add (row stride addStride) when add is
// not nil, bounded to [lo, hi]; nil where the CPU has no such kernel.
var scaleAddClampRowsKernel func(c []float32, ldc, rows, cols int, scale, bias, add []float32, addStride int, lo, hi float32)

// scaleAddClamp sets y[i] = x[i]*s + b, adds add[i] when add is not nil,
// then bounds the result to [lo, hi] (NaN stays NaN): relu is lo 0 and hi
// +Inf, no bound -Inf and +Inf. y may be x.
func scaleAddClamp(y, x []float32, s, b float32, add []float32, lo, hi float32) {
	if k := scaleAddClampKernel; k != nil {
		k(y, x, s, b, add, lo, hi)
		return
	}
	scaleAddClampGo(y, x, s, b, add, lo, hi)
}

// scaleAddClampGo is scaleAddClamp in Go.
func scaleAddClampGo(y, x []float32, s, b float32, add []float32, lo, hi float32) {
	y = y[:len(x)]
	if add != nil {
		add = add[:len(x)]
	}
	for i, v := range x {
		v = v*s + b
		if add != nil {
			v += add[i]
		}
		if v < lo {
			v = lo
		}
		if v > hi {
			v = hi
		}
		y[i] = v
	}
}

// maxPool2x2Kernel pools two float32 rows into one (see maxPool2x2), or
// is nil when there is no vector kernel.
var maxPool2x2Kernel func(r0, r1, out []float32)

// maxPool3x3s2Kernel pools three float32 rows into one (see
// maxPool3x3s2Row), or is nil when there is no vector kernel.
var maxPool3x3s2Kernel func(r0, r1, r2, tmp, first, out []float32, padW int)

// maxPoolPlaneKernel pools one plane of is3x3s2Even geometry whole, as
// maxPool3x3s2 does, in float32 with vector instructions; nil where the
// CPU has none.
var maxPoolPlaneKernel func(g PoolGeom, src, dst []float32)

// maxPoolBackPlaneKernel writes one plane's whole gradient of a max
// pooling of is3x3s2Even geometry, in float32 with vector instructions;
// nil where the CPU has none.
var maxPoolBackPlaneKernel func(g PoolGeom, src, gout, gi []float32)

// maxPoolBack3x3s2Kernel adds one output row's gradients of a 3x3 max
// pooling at stride 2 to its windows' first largest elements, from the
// window's three input rows split into even and odd columns (see
// maxPool3x3s2Back32), or is nil when there is no vector kernel.
var maxPoolBack3x3s2Kernel func(e, o *[3][]float32, rows [3]int, pad, w int, grad, gi []float32)

// gatherRunsKernel is Im2colPacked's copy of unit-stride runs for float32
// (see gatherRuns32), or nil when there is no vector kernel. It returns
// how many leading rows it copied; the caller copies the others.
var gatherRunsKernel func(dst []float32, w int, src []float32, tapBase []int, runs []int) int

// axpyKernel is Axpy's loop for float32 (y += alpha*x, the product
// rounded before the sum, as the Go loop rounds it), or nil when there
// is no vector kernel.
var axpyKernel func(alpha float32, x, y []float32)

// reluGradKernel is ReluGrad for float32, or nil when there is no vector
// kernel.
var reluGradKernel func(g, y, out []float32)

// transposeKernel packs rows of float32 into a depth-major panel by
// blocks (see transposePanel32), or is nil when there is no vector kernel.
var transposeKernel func(panel, x []float32, rs, base, cnt, depth, w int)

// transposePanel packs, when a vector kernel exists for T, the cnt rows
// x[base+r*rs:][:depth] into panel with element (r, d) at d*w+r, and
// reports whether it did.
func transposePanel[T Float](panel, x []T, rs, base, cnt, depth, w int) bool {
	k, ok := any(transposeKernel).(func(panel, x []T, rs, base, cnt, depth, w int))
	if !ok || k == nil {
		return false
	}
	k(panel, x, rs, base, cnt, depth, w)
	return true
}

// fillKernel is Fill for float32, or nil when there is no vector kernel.
var fillKernel func(dst []float32, v float32)

// arithKernel is Arith for float32, or nil when there is no vector kernel.
var arithKernel func(op ArithOp, out, a, b []float32)

// reluKernel is Relu for float32, or nil when there is no vector kernel.
var reluKernel func(x, y []float32)

// addRowsKernel is addRows for float32, or nil when there is no vector
// kernel.
var addRowsKernel func(dst []float32, dstStride int, src []float32, srcStride, rows, n int)

// col2imRowKernel computes one image row of Col2imSet for float32 (see
// col2imRow32), or is nil when there is no vector kernel.
var col2imRowKernel func(dst, col []float32, offs []int, t *col2imGatherTable)

// addRows adds rows of n elements of src into dst: dst[r*dstStride+i] +=
// src[r*srcStride+i] for r < rows and i < n.
func addRows[T Float](dst []T, dstStride int, src []T, srcStride, rows, n int) {
	if k, ok := any(addRowsKernel).(func(dst []T, dstStride int, src []T, srcStride, rows, n int)); ok && k != nil {
		k(dst, dstStride, src, srcStride, rows, n)
		return
	}
	for r := range rows {
		d := dst[r*dstStride:][:n]
		for i, v := range src[r*srcStride:][:n] {
			d[i] += v
		}
	}
}

// maxPool2x2BackKernel is the gradient of a float32 row of 2x2 pooling
// (see maxPool2x2Backward), or nil when there is no vector kernel.
var maxPool2x2BackKernel func(r0, r1, gout, g0, g1 []float32)
