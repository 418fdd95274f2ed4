//go:build !purego

package accel

import (
	"sort"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// sdotAVX2 returns the dot product of n float32s at x and y; n is a
// positive multiple of 8.
//
//go:noescape
func sdotAVX2(n int, x, y *float32) float32

// sdot4AVX512 sets out[0:4] to the dot products of the four rows of a
// (lda apart) with x, k float32s each; k is a positive multiple of 16.
//
//go:noescape
func sdot4AVX512(k int, a *float32, lda int, x, out *float32)

// scaleAddClampAVX2 sets y[i] = x[i]*s + b, adds add[i] when add is
// not nil, then bounds the result to [lo, hi] (NaN stays NaN), for n
// float32s, n a positive multiple of 8; y may be x.
//
//go:noescape
func scaleAddClampAVX2(n int, y, x *float32, s, b float32, add *float32, lo, hi float32)

// scaleAddClampRowsAVX512 is scaleAddClampRows32's kernel (dot512_amd64.s).
//
//go:noescape
func scaleAddClampRowsAVX512(c *float32, ldc, rows, cols int, scale *float32, scaleStep int, bias *float32, biasStep int, add *float32, addStride int, lo, hi float32)

// addVecReluAVX2 adds the n float32s at b to those at x and, with relu,
// sets the negative sums to 0; n is a positive multiple of 8.
//
//go:noescape
func addVecReluAVX2(n int, x, b *float32, relu bool)

// maxPool2x2AVX2 writes n outputs of 2x2 stride-2 max pooling of the
// rows r0 and r1 (2n elements each) to out; n is a positive multiple of 8.
//
//go:noescape
func maxPool2x2AVX2(n int, r0, r1, out *float32)

// maxRows3AVX2 sets out[i] to the maximum of r0[i], r1[i] and r2[i]
// that are not NaN (-Inf when all are) for n outputs; n is a positive
// multiple of 8.
//
//go:noescape
func maxRows3AVX2(n int, r0, r1, r2, out *float32)

// maxStride2x3AVX2 sets out[i] to first[2i] when it is NaN, else to the
// maximum of src[2i], src[2i+1] and src[2i+2] that are not NaN, for n
// outputs (reading 2n+2 elements of src); n is a positive multiple of 8.
//
//go:noescape
func maxStride2x3AVX2(n int, src, first, out *float32)

// maxPool2x2x4AVX is maxPool2x2AVX2 for exactly 4 outputs.
//
//go:noescape
func maxPool2x2x4AVX(r0, r1, out *float32)

// gatherRunsAVX2 copies, for each tap r < ntaps and each run (t, o, n) of
// the nruns triples at runs, n float32s from src[tapBase[r]+o:] to
// dst[r*w+t:]; ntaps, nruns and every n are at least 1.
//
//go:noescape
func gatherRunsAVX2(dst *float32, w int, src *float32, tapBase *int, ntaps int, runs *int, nruns int)

// reluGradAVX2 sets out[i] = gr[i] * (y[i] > 0 ? 1 : 0) for n float32s;
// n is a positive multiple of 8.
//
//go:noescape
func reluGradAVX2(n int, gr, y, out *float32)

// transpose8x8AVX sets dst[j*ds+i] = src[i*ss+j] for i, j < 8.
//
//go:noescape
func transpose8x8AVX(src *float32, ss int, dst *float32, ds int)

// reluAVX2 sets y[i] = max(x[i], 0), NaN kept, for n float32s; n is a
// positive multiple of 8.
//
//go:noescape
func reluAVX2(n int, x, y *float32)

// maxPool2x2BackAVX2 adds each of n gradients gout to gi0 or gi1 at the
// first maximum of its 2x2 block of r0 and r1; n is a positive multiple
// of 8.
//
//go:noescape
func maxPool2x2BackAVX2(n int, r0, r1, gout, gi0, gi1 *float32)

// addRowsAVX2 sets dst[r*dstStride+i] += src[r*srcStride+i] for r < rows
// and i < n; rows and n are positive.
//
//go:noescape
func addRowsAVX2(rows, n int, dst *float32, dstStride int, src *float32, srcStride int)

// maxPool2x2Back4AVX is maxPool2x2BackAVX2 for exactly four outputs.
//
//go:noescape
func maxPool2x2Back4AVX(r0, r1, gout, gi0, gi1 *float32)

// col2imVecsAVX2 computes the vectors of one image row of Col2imSet (see
// col2imRow32).
//
//go:noescape
func col2imVecsAVX2(dst *float32, col *float32, offs *int, noffs int, taps *col2imTap, kw int, iw0 *int, nvec int)

// pack6x8AVX packs rows (1 to 6) rows of 8 float32s at src (row stride
// ss) into 8 rows of a six-wide panel at dst, zeros past rows.
//
//go:noescape
func pack6x8AVX(src *float32, ss, rows int, dst *float32)

// axpyAVX2 sets y[i] += alpha*x[i] for n a positive multiple of 32, the
// product rounded before the sum.
//
//go:noescape
func axpyAVX2(n int, alpha float32, x, y *float32)

// axpy32 is axpyKernel: the multiple-of-32 head in assembly, the rest in
// Go.
func axpy32(alpha float32, x, y []float32) {
	y = y[:len(x)]
	n := len(x) &^ 31
	if n > 0 {
		axpyAVX2(n, alpha, &x[0], &y[0])
	}
	for i := n; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		axpyKernel = axpy32
		addRowsKernel = addRows32
		col2imRowKernel = col2imRow32
		maxPool2x2BackKernel = maxPool2x2BackRow32
		reluKernel = relu32
		arithKernel = arith32
		fillKernel = fill32
		transposeKernel = transposePanel32
		reluGradKernel = reluGrad32
		gatherRunsKernel = gatherRuns32
		maxPool2x2Kernel = maxPool2x2Row32
		maxPool3x3s2Kernel = maxPool3x3s2Row32
		sdotKernel = sdot
		addVecReluKernel = addVecRelu32
		scaleAddClampKernel = scaleAddClamp32
	}
	if cpu.X86.HasAVX512F && !noAVX512 {
		maxPoolBack3x3s2Kernel = maxPoolBack3x3s2Row32
		maxPoolBackPlaneKernel = maxPoolBackPlane32
		maxPoolPlaneKernel = maxPoolPlane32
		sdotRowsKernel = sdotRows512
		scaleAddClampRowsKernel = scaleAddClampRows32
	}
}

// perRow gives a kernel a value per row of n rows, as a pointer and the
// step between rows: x's first element and 1 (x holds n values), or, for
// a nil x, missing (the value every row takes: a zero bias, a unit
// scale) and 0.
func perRow(x []float32, n int, missing *float32) (*float32, int) {
	if x == nil {
		return missing, 0
	}
	_ = x[n-1]
	return &x[0], 1
}

// scaleAddClampRows32 is scaleAddClampRowsKernel, every slice checked to
// hold what the kernel reads and writes.
func scaleAddClampRows32(c []float32, ldc, rows, cols int, scale, bias, add []float32, addStride int, lo, hi float32) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = c[(rows-1)*ldc+cols-1]
	s, sStep := perRow(scale, rows, &unitScale[0])
	b, bStep := perRow(bias, rows, &zeroBias[0])
	var a *float32
	if add != nil {
		_ = add[(rows-1)*addStride+cols-1]
		a = &add[0]
	} else {
		addStride = 0
	}
	scaleAddClampRowsAVX512(&c[0], ldc, rows, cols, s, sStep, b, bStep, a, addStride, lo, hi)
}

// sdotRows512 is sdotRows with the four-row kernel on the multiple-of-16
// head of each group of four rows, the rest in Go, and sdot for the last
// rows.
func sdotRows512(a []float32, lda int, x, out []float32) {
	k := len(x)
	head := k &^ 15
	r := 0
	if head > 0 {
		for ; r+4 <= len(out); r += 4 {
			_ = a[(r+3)*lda+k-1]
			sdot4AVX512(head, &a[r*lda], lda, &x[0], &out[r])
			for i := head; i < k; i++ {
				xi := x[i]
				out[r] += a[r*lda+i] * xi
				out[r+1] += a[(r+1)*lda+i] * xi
				out[r+2] += a[(r+2)*lda+i] * xi
				out[r+3] += a[(r+3)*lda+i] * xi
			}
		}
	}
	for ; r < len(out); r++ {
		out[r] = sdot(x, a[r*lda:][:k])
	}
}

// scaleAddClamp32 is scaleAddClamp with the assembly kernel for the
// multiple-of-8 head, then the tail in Go.
func scaleAddClamp32(y, x []float32, s, b float32, add []float32, lo, hi float32) {
	y = y[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		var ap *float32
		if add != nil {
			add = add[:len(x)]
			ap = &add[0]
		}
		scaleAddClampAVX2(n, &y[0], &x[0], s, b, ap, lo, hi)
	}
	var tail []float32
	if add != nil {
		tail = add[n:]
	}
	scaleAddClampGo(y[n:], x[n:], s, b, tail, lo, hi)
}

// addVecRelu32 is x[i] += b[i] then relu, when relu is set.
func addVecRelu32(x, b []float32, relu bool) {
	b = b[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		addVecReluAVX2(n, &x[0], &b[0], relu)
	}
	for i := n; i < len(x); i++ {
		v := x[i] + b[i]
		if relu && v < 0 {
			v = 0
		}
		x[i] = v
	}
}

// sdot is the dot product of x and y[:len(x)]: the assembly kernel for the
// multiple-of-8 head, then the tail in Go.
func sdot(x, y []float32) float32 {
	y = y[:len(x)]
	n := len(x) &^ 7
	var s float32
	if n > 0 {
		s = sdotAVX2(n, &x[0], &y[0])
	}
	for i := n; i < len(x); i++ {
		s += x[i] * y[i]
	}
	return s
}

// maxPool2x2Row32 pools the rows r0 and r1 into out (len(out) outputs):
// the assembly kernel for the multiple-of-8 head, then the tail in Go.
func maxPool2x2Row32(r0, r1, out []float32) {
	n := len(out) &^ 7
	if n > 0 {
		_, _ = r0[2*n-1], r1[2*n-1]
		maxPool2x2AVX2(n, &r0[0], &r1[0], &out[0])
	}
	if len(out)-n >= 4 {
		_, _, _ = r0[2*n+7], r1[2*n+7], out[n+3]
		maxPool2x2x4AVX(&r0[2*n], &r1[2*n], &out[n])
		n += 4
	}
	maxPool2x2Row(r0, r1, out, n)
}

// maxPool3x3s2Row32 is maxPool3x3s2Row with the assembly kernels for the
// multiple-of-8 heads.
func maxPool3x3s2Row32(r0, r1, r2, tmp, first, out []float32, padW int) {
	inW := len(r0)
	r1, r2 = r1[:inW], r2[:inW]
	cols := min(inW, len(tmp)-padW)
	n := cols &^ 7
	if n > 0 {
		_ = tmp[padW+n-1]
		maxRows3AVX2(n, &r0[0], &r1[0], &r2[0], &tmp[padW])
	}
	maxRows3(r0, r1, r2, tmp[padW:], n, cols)
	padRow(tmp, padW, cols)
	copy(first[padW:], r0[:cols])
	padRow(first, padW, cols)
	n = len(out) &^ 7
	if n > 0 {
		_, _ = tmp[2*n+1], first[2*n-1]
		maxStride2x3AVX2(n, &tmp[0], &first[0], &out[0])
	}
	maxStride2x3(tmp, first, out, n)
}

// gatherRuns32 copies the runs (t, o, n) (triples in increasing t) of
// the leading rows r of dst whose copies, including the whole block of 8
// that a run shorter than 8 copies, stay inside src and the row:
// src[tapBase[r]+o:] to dst[r*w+t:]. It returns how many rows it did (the
// rows are in order of tapBase, which increases, so the ones it leaves
// are those reading nearest the end of src; the caller copies them).
func gatherRuns32(dst []float32, w int, src []float32, tapBase []int, runs []int) int {
	if len(tapBase) == 0 || len(runs) < 3 {
		return 0
	}
	runs = runs[:len(runs)/3*3]
	// Short runs are copied as blocks of 8, which must fit in the row of
	// dst. Those at the end of the row that do not fit (the tail) are
	// copied in Go, after the kernel.
	vec := len(runs)
	reach := 0 // how far past tapBase[r] the copies of one row read
	for i := 0; i < len(runs); i += 3 {
		t, o, n := runs[i], runs[i+1], runs[i+2]
		if n < 1 || t < 0 || t+n > w || o < 0 || (i > 0 && t < runs[i-3]+runs[i-1]) {
			panic("accel: gatherRuns32: a run is out of range")
		}
		if n < 8 && t+8 > w {
			vec = min(vec, i)
		}
		if i < vec {
			reach = max(reach, o+max(n, 8))
		} else {
			reach = max(reach, o+n)
		}
	}
	// The tables list offsets in increasing order: the rows that fit are
	// a prefix, found by bisection.
	rows := sort.Search(len(tapBase), func(r int) bool { return tapBase[r]+reach > len(src) })
	if rows > 0 && tapBase[0] < 0 {
		panic("accel: gatherRuns32: a negative offset")
	}
	if rows == 0 {
		return 0
	}
	_ = dst[rows*w-1]
	if vec > 0 {
		gatherRunsAVX2(&dst[0], w, &src[0], &tapBase[0], rows, &runs[0], vec/3)
	}
	if tail := runs[vec:]; len(tail) > 0 {
		for r, base := range tapBase[:rows] {
			d, s := dst[r*w:][:w], src[base:]
			for i := 0; i < len(tail); i += 3 {
				t, o, n := tail[i], tail[i+1], tail[i+2]
				copy(d[t:t+n], s[o:o+n])
			}
		}
	}
	return rows
}

// reluGrad32 is ReluGrad for float32: the assembly kernel for the
// multiple-of-8 head, then the tail in Go.
func reluGrad32(g, y, out []float32) {
	y, out = y[:len(g)], out[:len(g)]
	n := len(g) &^ 7
	if n > 0 {
		reluGradAVX2(n, &g[0], &y[0], &out[0])
	}
	reluGradGo(g[n:], y[n:], out[n:])
}

// transposePanel32 packs rows x[base+r*rs:][:depth] for r < cnt into the
// depth-major panel (element (r, d) at d*w+r) by 8x8 blocks, the edges in
// Go.
func transposePanel32(panel, x []float32, rs, base, cnt, depth, w int) {
	r8, d8 := cnt&^7, depth&^7
	if w == 6 && cnt > 0 && d8 > 0 {
		// The few-rows kernel's panels: blocks of 8 depths at once, the
		// columns past cnt written as zeros.
		_ = x[base+(cnt-1)*rs+d8-1]
		_ = panel[d8*6-1]
		for d := 0; d < d8; d += 8 {
			pack6x8AVX(&x[base+d], rs, cnt, &panel[d*6])
		}
		for r := range cnt {
			for d := d8; d < depth; d++ {
				panel[d*6+r] = x[base+r*rs+d]
			}
		}
		return
	}
	if r8 > 0 && d8 > 0 {
		_ = x[base+(cnt-1)*rs+d8-1]
		_ = panel[(d8-1)*w+cnt-1]
		for r := 0; r < r8; r += 8 {
			for d := 0; d < d8; d += 8 {
				transpose8x8AVX(&x[base+r*rs+d], rs, &panel[d*w+r], w)
			}
		}
		if r8 < cnt {
			// The last rows by one more block that overlaps the ones
			// before (twelve rows: 0-7, then 4-11).
			r := cnt - 8
			for d := 0; d < d8; d += 8 {
				transpose8x8AVX(&x[base+r*rs+d], rs, &panel[d*w+r], w)
			}
			r8 = cnt
		}
	}
	for r := range cnt {
		lo := d8
		if r >= r8 {
			lo = 0
		}
		for d := lo; d < depth; d++ {
			panel[d*w+r] = x[base+r*rs+d]
		}
	}
}

// fillAVX2 sets dst[i] = v for n a positive multiple of 8.
//
//go:noescape
func fillAVX2(n int, dst *float32, v float32)

// fill32 is Fill for float32: the assembly kernel for the multiple-of-8
// head, then the tail in Go.
func fill32(dst []float32, v float32) {
	n := len(dst) &^ 7
	if n > 0 {
		fillAVX2(n, &dst[0], v)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = v
	}
}

// arithAVX2 sets out[i] = a[i] op b[i] for n a positive multiple of 8.
//
//go:noescape
func arithAVX2(op ArithOp, n int, out, a, b *float32)

// arith32 is Arith for float32: the assembly kernel for the multiple-of-8
// head, then the tail in Go.
func arith32(op ArithOp, out, a, b []float32) {
	a, b = a[:len(out)], b[:len(out)]
	n := len(out) &^ 7
	if n > 0 && op <= ArithDiv {
		arithAVX2(op, n, &out[0], &a[0], &b[0])
	}
	arithGo(op, out[n:], a[n:], b[n:])
}

// relu32 is Relu for float32: the assembly kernel for the multiple-of-8
// head, then the tail in Go.
func relu32(x, y []float32) {
	y = y[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		reluAVX2(n, &x[0], &y[0])
	}
	reluGo(x[n:], y[n:])
}

// maxPool2x2BackRow32 is the gradient of one output row of 2x2 pooling:
// the assembly kernels for the multiple-of-8 head and then four more
// outputs, the rest in Go.
func maxPool2x2BackRow32(r0, r1, gout, g0, g1 []float32) {
	n := len(gout) &^ 7
	if n > 0 {
		_, _, _, _ = r0[2*n-1], r1[2*n-1], g0[2*n-1], g1[2*n-1]
		maxPool2x2BackAVX2(n, &r0[0], &r1[0], &gout[0], &g0[0], &g1[0])
	}
	if len(gout)-n >= 4 {
		_, _, _, _ = r0[2*n+7], r1[2*n+7], g0[2*n+7], g1[2*n+7]
		maxPool2x2Back4AVX(&r0[2*n], &r1[2*n], &gout[n], &g0[2*n], &g1[2*n])
		n += 4
	}
	maxPool2x2BackRow(r0, r1, gout, g0, g1, n)
}

// addRows32 is addRows for float32, in assembly.
func addRows32(dst []float32, dstStride int, src []float32, srcStride, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	_ = dst[(rows-1)*dstStride+n-1]
	_ = src[(rows-1)*srcStride+n-1]
	addRowsAVX2(rows, n, &dst[0], dstStride, &src[0], srcStride)
}

// col2imRow32 is one image row of Col2imSet for float32, in assembly: the
// caller has checked that every unmasked load lies inside col.
func col2imRow32(dst, col []float32, offs []int, t *col2imGatherTable) {
	if len(offs) == 0 {
		clear(dst)
		return
	}
	_ = dst[t.iw0[len(t.iw0)-1]+7]
	col2imVecsAVX2(&dst[0], &col[0], &offs[0], len(offs), &t.taps[0], t.kw, &t.iw0[0], len(t.iw0))
}

// maxPoolBack3x3s2AVX512 is maxPoolBack3x3s2Kernel's loop (pool512_amd64.s).
//
//go:noescape
func maxPoolBack3x3s2AVX512(n int, e0, o0, e1, o1, e2, o2 *float32, r0, r1, r2, pad, w int, grad, gi *float32, idx, lanes *int32)

// maxPoolBack3x3s2P1AVX512 is maxPoolBackPlaneKernel (pool512_amd64.s).
//
//go:noescape
func maxPoolBack3x3s2P1AVX512(src, gout, gi *float32, inW, outH, outW int, c *maxPoolConsts)

// maxPoolConsts are the constants of maxPool3x3s2P1AVX512 and
// maxPoolBack3x3s2P1AVX512, at the offsets they read them from.
type maxPoolConsts struct {
	codes [9][16]int32 // each tap's code, k in every lane
	split [2][16]int32 // the even and the odd of 32 columns
	weave [2][16]int32 // two vectors' lanes in turn: the first eight, the last eight
	// blocks[n] are the masks of a block of n windows: the n lanes, the
	// first and second sixteen of its 2n columns, the first and second
	// sixteen of 2n+1 columns (the gradient's, from the column before).
	blocks [17][8]uint16
}

// The kernels read blocks at byte 832 (codes at 0, split at 576, weave
// at 704 before it): a field moved is a compile error here.
var _ [0]struct{} = [unsafe.Offsetof(maxPoolConsts{}.blocks) - 832]struct{}{}

var maxPoolC = func() (c maxPoolConsts) {
	for k := range c.codes {
		for l := range 16 {
			c.codes[k][l] = int32(k)
		}
	}
	for l := range 16 {
		c.split[0][l], c.split[1][l] = int32(2*l), int32(2*l+1)
		c.weave[0][l], c.weave[1][l] = int32(l/2+16*(l%2)), int32(8+l/2+16*(l%2))
	}
	lanes := func(k int) uint16 { return uint16(1<<min(max(k, 0), 16) - 1) }
	for n := range c.blocks {
		c.blocks[n] = [8]uint16{lanes(n), lanes(2 * n), lanes(2*n - 16), lanes(2*n + 1), lanes(2*n + 1 - 16)}
	}
	return c
}()

// maxPool3x3s2P1AVX512 is maxPoolPlaneKernel (pool512_amd64.s); c holds
// its permutations and masks.
//
//go:noescape
func maxPool3x3s2P1AVX512(src, dst *float32, inW, outH, outW int, c *maxPoolConsts)

// maxPoolPlane32 is maxPoolPlaneKernel.
func maxPoolPlane32(g PoolGeom, src, dst []float32) {
	if !g.is3x3s2Even() {
		panic("accel: maxPoolPlane32 of a pooling it does not take")
	}
	_, _ = src[g.InH*g.InW-1], dst[g.OutH*g.OutW-1]
	maxPool3x3s2P1AVX512(&src[0], &dst[0], g.InW, g.OutH, g.OutW, &maxPoolC)
}

// maxPoolBackPlane32 is maxPoolBackPlaneKernel.
func maxPoolBackPlane32(g PoolGeom, src, gout, gi []float32) {
	if !g.is3x3s2Even() {
		panic("accel: maxPoolBackPlane32 of a pooling it does not take")
	}
	_, _, _ = src[g.InH*g.InW-1], gi[g.InH*g.InW-1], gout[g.OutH*g.OutW-1]
	maxPoolBack3x3s2P1AVX512(&src[0], &gout[0], &gi[0], g.InW, g.OutH, g.OutW, &maxPoolC)
}

// maxPoolBack3x3s2Row32 is maxPoolBack3x3s2Kernel: every split row holds
// len(grad)+16 values, and the windows' indices lie in gi.
func maxPoolBack3x3s2Row32(e, o *[3][]float32, rows [3]int, pad, w int, grad, gi []float32) {
	n := len(grad)
	if n == 0 {
		return
	}
	for i := range 3 {
		_, _ = e[i][n+15], o[i][n+15]
		_ = gi[rows[i]+w-1]
		if rows[i] < 0 || w < 1 {
			panic("accel: maxPoolBack3x3s2Row32 of a window outside its plane")
		}
	}
	var idx [16]int32
	maxPoolBack3x3s2AVX512(n, &e[0][0], &o[0][0], &e[1][0], &o[1][0], &e[2][0], &o[2][0], rows[0], rows[1], rows[2], pad, w,
		&grad[0], &gi[0], &idx[0], &dwS2Index[0])
}
