package accel

import "math"

// PoolGeom describes pooling over Planes independent InH x InW planes
// (batch*channels). OutH and OutW are given by the caller because MXNet's
// "full" pooling convention rounds up where "valid" rounds down. Window
// (oh, ow) starts at (oh*StrideH-PadH, ow*StrideW-PadW) and is clipped to the
// input.
type PoolGeom struct {
	Planes, InH, InW, OutH, OutW int
	KernelH, KernelW             int
	StrideH, StrideW             int
	PadH, PadW                   int
}

// poolGrain is the number of input elements below which pooling stays on the
// calling goroutine.
const poolGrain = 1 << 14

// window is one pooling window: rows [h0,h1) and columns [w0,w1) of the
// input, already clipped, and the divisor of average pooling.
type window struct {
	h0, h1, w0, w1 int
	count          int
}

// window returns the clipped window of output (oh, ow). Its count follows
// MXNet: with countIncludePad, the window clipped to the padded input
// [-Pad, In+Pad) before clipping to the input; otherwise the number of
// in-bounds elements.
func (g PoolGeom) window(oh, ow int, countIncludePad bool) window {
	h0 := oh*g.StrideH - g.PadH
	w0 := ow*g.StrideW - g.PadW
	h1 := min(h0+g.KernelH, g.InH+g.PadH)
	w1 := min(w0+g.KernelW, g.InW+g.PadW)
	padded := (h1 - h0) * (w1 - w0)
	h0, w0 = max(h0, 0), max(w0, 0)
	h1, w1 = min(h1, g.InH), min(w1, g.InW)
	win := window{h0: h0, h1: h1, w0: w0, w1: w1}
	if h1 <= h0 || w1 <= w0 {
		win.h1, win.w1 = h0, w0 // empty
	}
	if countIncludePad {
		win.count = padded
	} else {
		win.count = (win.h1 - win.h0) * (win.w1 - win.w0)
	}
	return win
}

// The pooling kernels, one plane at a time.
const (
	maxPool = iota
	maxPoolBackward
	avgPool
	avgPoolBackward
)

// poolLoop is a pooling kernel's loop over planes: which kernel and its
// operands. It is handed to the worker pool by value, so that a call
// allocates nothing.
type poolLoop[T Float] struct {
	g                    PoolGeom
	kind                 int
	in, out              []T // MaxPool, AvgPool; in also for MaxPoolBackward
	gradOut, gradIn      []T
	countIncludePad, sum bool
}

// forPlanes runs the kernel on every plane, in parallel when the input is large.
func (l poolLoop[T]) forPlanes() {
	g := l.g
	grain := max(1, poolGrain/max(1, g.InH*g.InW))
	ParallelRange(g.Planes, grain, l)
}

func (l *poolLoop[T]) Range(lo, hi int) {
	for p := lo; p < hi; p++ {
		switch l.kind {
		case maxPool:
			l.maxPlane(p)
		case maxPoolBackward:
			l.maxBackwardPlane(p)
		case avgPool:
			if l.g.OutH*l.g.OutW == 1 && l.g.window(0, 0, false).count == l.g.InH*l.g.InW {
				l.avgWhole(lo, hi) // global pooling: each plane is one contiguous sum
				return
			}
			l.avgPlane(p)
		case avgPoolBackward:
			l.clearGradIn(p)
			l.avgBackwardPlane(p)
		}
	}
}

// clearGradIn zeroes plane p of gradIn, which a backward kernel then adds
// to: one plane at a time, on the workers, so that the plane is still in
// cache when it is added to (ResNet-18's training step at 112x112, batch
// 16, spent 4 ms on one thread clearing the whole gradient first and
// adding to it after).
func (l *poolLoop[T]) clearGradIn(p int) {
	inSz, _ := l.g.planeSizes()
	clear(l.gradIn[p*inSz : (p+1)*inSz])
}

func (g PoolGeom) planeSizes() (in, out int) { return g.InH * g.InW, g.OutH * g.OutW }

// MaxPool writes the maximum of each window's in-bounds elements to out. An
// empty window (possible only with unusual padding) yields -Inf. It
// computes values only, never positions, so that inference pays for no
// argmax. The common windows (2x2 at stride 2; 3x3 at stride 2 with
// padding 0 or 1) take vector loops that keep argmax's value, the first
// maximum in row-major order, NaNs included (a NaN wins only in first
// place); other windows yield NaN when they hold one.
func MaxPool[T Float](g PoolGeom, in, out []T) {
	inSz, outSz := g.planeSizes()
	in, out = in[:g.Planes*inSz], out[:g.Planes*outSz]
	poolLoop[T]{g: g, kind: maxPool, in: in, out: out}.forPlanes()
}

func (l *poolLoop[T]) maxPlane(p int) {
	g, in, out := l.g, l.in, l.out
	inSz, outSz := g.planeSizes()
	src, dst := in[p*inSz:(p+1)*inSz], out[p*outSz:(p+1)*outSz]
	if k := maxPoolPlaneKernel; k != nil && g.is3x3s2Even() {
		if src32, ok := any(src).([]float32); ok {
			k(g, src32, any(dst).([]float32))
			return
		}
	}
	switch {
	case g.is2x2():
		maxPool2x2(g, src, dst)
	case g.is3x3s2():
		maxPool3x3s2(g, src, dst)
	default:
		maxPlaneValues(g, src, dst)
	}
}

// is3x3s2 reports whether the windows are 3x3 at stride 2 with padding 0
// or 1 and each holds an element of the input: ResNet's stem pooling,
// which has a loop of its own.
func (g PoolGeom) is3x3s2() bool {
	return g.KernelH == 3 && g.KernelW == 3 && g.StrideH == 2 && g.StrideW == 2 &&
		g.PadH >= 0 && g.PadH <= 1 && g.PadW >= 0 && g.PadW <= 1 &&
		g.OutH > 0 && g.OutW > 0 && 2*(g.OutH-1)-g.PadH < g.InH && 2*(g.OutW-1)-g.PadW < g.InW
}

// maxPool3x3s2 is MaxPool of one plane for is3x3s2 geometries. Each output
// row takes the three input rows of its windows (a row clipped away is
// replaced by its in-bounds neighbour, which changes no maximum), their
// column-wise maxima, then the maximum of each window's three columns,
// NaNs left out; a window whose first element is NaN yields it. That is
// the value of the row-major first maximum, as argmax and maxPool2x2 pick
// it.
func maxPool3x3s2[T Float](g PoolGeom, src, dst []T) {
	k32, _ := any(maxPool3x3s2Kernel).(func(r0, r1, r2, tmp, first, out []T, padW int))
	w := 2*g.OutW + 2
	bp := getBuf[T](2 * w)
	defer putBuf(bp)
	tmp, first := (*bp)[:w], (*bp)[w:2*w]
	for oh := range g.OutH {
		h0 := 2*oh - g.PadH
		r0 := src[min(max(h0, 0), g.InH-1)*g.InW:][:g.InW]
		r1 := src[min(max(h0+1, 0), g.InH-1)*g.InW:][:g.InW]
		r2 := src[min(h0+2, g.InH-1)*g.InW:][:g.InW]
		out := dst[oh*g.OutW:][:g.OutW]
		if k32 != nil {
			k32(r0, r1, r2, tmp, first, out, g.PadW)
			continue
		}
		maxPool3x3s2Row(r0, r1, r2, tmp, first, out, g.PadW)
	}
}

// maxPool3x3s2Row pools the rows r0, r1 and r2 into out through tmp and
// first (2*len(out)+2 elements each): tmp[j] is the maximum of column
// j-padW of the rows without NaNs and first[j] that column of r0, the
// column clamped to the row.
func maxPool3x3s2Row[T Float](r0, r1, r2, tmp, first, out []T, padW int) {
	cols := min(len(r0), len(tmp)-padW)
	maxRows3(r0, r1, r2, tmp[padW:], 0, cols)
	padRow(tmp, padW, cols)
	copy(first[padW:], r0[:cols])
	padRow(first, padW, cols)
	maxStride2x3(tmp, first, out, 0)
}

// maxRows3 sets dst[j] to the maximum of r0[j], r1[j] and r2[j] that are
// not NaN (-Inf when all are) for j in [from, to).
func maxRows3[T Float](r0, r1, r2, dst []T, from, to int) {
	for j := from; j < to; j++ {
		m := T(math.Inf(-1))
		if v := r0[j]; v > m {
			m = v
		}
		if v := r1[j]; v > m {
			m = v
		}
		if v := r2[j]; v > m {
			m = v
		}
		dst[j] = m
	}
}

// padRow fills the columns of tmp outside those that maxRows3 wrote from
// padW on (cols of them) with their nearest written neighbour.
func padRow[T Float](tmp []T, padW, cols int) {
	for j := range padW {
		tmp[j] = tmp[padW]
	}
	for j := padW + cols; j < len(tmp); j++ {
		tmp[j] = tmp[padW+cols-1]
	}
}

// maxStride2x3 sets out[i] to first[2i] when it is NaN, else to the
// maximum of src[2i], src[2i+1] and src[2i+2] that are not NaN, for i
// from from on.
func maxStride2x3[T Float](src, first, out []T, from int) {
	for i := from; i < len(out); i++ {
		if f := first[2*i]; f != f {
			out[i] = f
			continue
		}
		m := src[2*i]
		if v := src[2*i+1]; v > m {
			m = v
		}
		if v := src[2*i+2]; v > m {
			m = v
		}
		out[i] = m
	}
}

// maxPlaneValues is MaxPool of one plane in any geometry. It computes each
// window's maximum and nothing else: not its position, which only the
// gradient needs (MaxPoolBackward finds it again), and with the max
// builtin, which needs no unpredictable branch. Its value is argmax's
// except with NaNs (a window holding one yields NaN) and with zeros of
// both signs (+0 wins).
func maxPlaneValues[T Float](g PoolGeom, src, dst []T) {
	inW := g.InW
	for oh := range g.OutH {
		h0 := oh*g.StrideH - g.PadH
		h1 := min(h0+g.KernelH, g.InH)
		h0 = max(h0, 0)
		out := dst[oh*g.OutW:][:g.OutW]
		if h1 <= h0 {
			for ow := range out {
				out[ow] = T(math.Inf(-1))
			}
			continue
		}
		for ow := range out {
			w0 := ow*g.StrideW - g.PadW
			w1 := min(w0+g.KernelW, inW)
			w0 = max(w0, 0)
			if w1 <= w0 {
				out[ow] = T(math.Inf(-1))
				continue
			}
			if w1-w0 == 3 {
				// ResNet's 3x3 windows: three independent maxima per row.
				r := src[h0*inW+w0:][:3]
				m := max(r[0], r[1], r[2])
				for h := h0 + 1; h < h1; h++ {
					r := src[h*inW+w0:][:3]
					m = max(m, max(r[0], r[1], r[2]))
				}
				out[ow] = m
				continue
			}
			m := src[h0*inW+w0]
			for h := h0; h < h1; h++ {
				for _, v := range src[h*inW+w0 : h*inW+w1] {
					m = max(m, v)
				}
			}
			out[ow] = m
		}
	}
}

// MaxPoolBackward writes gradIn, the gradient of MaxPool: each gradOut
// element goes to the position of its window's first maximum in in
// (row-major order within the window), summed where windows overlap;
// elements that are no window's maximum get zero.
func MaxPoolBackward[T Float](g PoolGeom, in, gradOut, gradIn []T) {
	inSz, outSz := g.planeSizes()
	in, gradIn = in[:g.Planes*inSz], gradIn[:g.Planes*inSz]
	gradOut = gradOut[:g.Planes*outSz]
	poolLoop[T]{g: g, kind: maxPoolBackward, in: in, gradOut: gradOut, gradIn: gradIn}.forPlanes()
}

func (l *poolLoop[T]) maxBackwardPlane(p int) {
	g, in, gradOut, gradIn := l.g, l.in, l.gradOut, l.gradIn
	inSz, outSz := g.planeSizes()
	src, gi := in[p*inSz:(p+1)*inSz], gradIn[p*inSz:(p+1)*inSz]
	gout := gradOut[p*outSz : (p+1)*outSz]
	if k := maxPoolBackPlaneKernel; k != nil && g.is3x3s2Even() {
		if src32, ok := any(src).([]float32); ok {
			k(g, src32, any(gout).([]float32), any(gi).([]float32)) // sets the whole plane
			return
		}
	}
	l.clearGradIn(p)
	if g.is2x2() {
		maxPool2x2Backward(g, src, gout, gi)
		return
	}
	if g.is3x3s2() {
		maxPool3x3s2Backward(g, src, gout, gi)
		return
	}
	for oh := range g.OutH {
		for ow := range g.OutW {
			if at := argmax(src, g.InW, g.window(oh, ow, false)); at >= 0 {
				gi[at] += gout[oh*g.OutW+ow]
			}
		}
	}
}

// maxPool3x3s2Backward is MaxPoolBackward of one plane for is3x3s2
// geometries: each window's nine elements are scanned in row-major order
// with the rows and columns clipped away replaced by their in-bounds
// neighbours (as in maxPool3x3s2), which never move the first maximum.
// The scan compares the values' orderKeys, integers, which the compiler
// selects between without branches (conditional moves), unrolled:
// comparing the floats themselves branched, on random data at random,
// and took 1.37 times as long (9.7 ms against 7.1 for ResNet's stem at
// batch 1).
func maxPool3x3s2Backward[T Float](g PoolGeom, src, gout, gi []T) {
	if k := maxPoolBack3x3s2Kernel; k != nil {
		if src32, ok := any(src).([]float32); ok {
			maxPool3x3s2Back32(k, g, src32, any(gout).([]float32), any(gi).([]float32))
			return
		}
	}
	clampH := func(h int) int { return min(max(h, 0), g.InH-1) * g.InW }
	for oh := range g.OutH {
		h0 := 2*oh - g.PadH
		r0, r1, r2 := clampH(h0), clampH(h0+1), clampH(h0+2)
		d := gout[oh*g.OutW:][:g.OutW]
		for ow, grad := range d {
			w0 := 2*ow - g.PadW
			c0, c1, c2 := max(w0, 0), min(max(w0+1, 0), g.InW-1), min(w0+2, g.InW-1)
			best := r0 + c0
			m := firstKey(float64(src[best]))
			best, m = laterMax(src, r0+c1, best, m)
			best, m = laterMax(src, r0+c2, best, m)
			best, m = laterMax(src, r1+c0, best, m)
			best, m = laterMax(src, r1+c1, best, m)
			best, m = laterMax(src, r1+c2, best, m)
			best, m = laterMax(src, r2+c0, best, m)
			best, m = laterMax(src, r2+c1, best, m)
			best, _ = laterMax(src, r2+c2, best, m)
			gi[best] += grad
		}
	}
}

// maxPool3x3s2Back32 is maxPool3x3s2Backward through the vector kernel:
// each input row is split into even and odd columns, clamped to the row
// as the scalar loop clamps them, so that the kernel reads each tap of
// sixteen windows as one vector. The rows are split once for the plane,
// not once for each window row that reads them (ResNet-18's training
// step at 112x112 spent half of this gradient's time splitting its 56
// columns three times over, and filling the columns past the windows).
func maxPool3x3s2Back32(k func(e, o *[3][]float32, rows [3]int, pad, w int, grad, gi []float32), g PoolGeom, src, gout, gi []float32) {
	n := g.OutW + 16   // what the kernel reads of a split row
	used := g.OutW + 1 // what the plane's windows read of it
	bp := getBuf[float32](2 * n * g.InH)
	defer putBuf(bp)
	split := (*bp)[:2*n*g.InH]
	for h := range g.InH {
		splitClamped(split[2*h*n:][:used], split[(2*h+1)*n:][:used], src[h*g.InW:][:g.InW], g.PadW)
	}
	var e, o [3][]float32
	for oh := range g.OutH {
		var rows [3]int
		for i := range 3 {
			h := min(max(2*oh-g.PadH+i, 0), g.InH-1)
			rows[i] = h * g.InW
			e[i], o[i] = split[2*h*n:][:n], split[(2*h+1)*n:][:n]
		}
		k(&e, &o, rows, g.PadW, g.InW, gout[oh*g.OutW:][:g.OutW], gi)
	}
}

// splitClamped sets even[j] to column 2j-pad of row and odd[j] to column
// 2j+1-pad, each clamped to the row (pad is 0 or 1; even and odd hold
// at least (len(row)+2)/2 values).
func splitClamped(even, odd, row []float32, pad int) {
	last := len(row) - 1
	deinterleave(even, odd, row, pad)
	even[0] = row[0] // column -pad
	for j := max(0, (last+pad-1)/2); j < len(even); j++ {
		even[j], odd[j] = row[min(max(2*j-pad, 0), last)], row[min(2*j+1-pad, last)]
	}
}

// laterMax is one step of a scan for the first maximum: it returns at and
// src[at]'s orderKey when that is above m, the maximum so far at best,
// else best and m.
func laterMax[T Float](src []T, at, best int, m int64) (int, int64) {
	v := orderKey(float64(src[at]))
	if v > m {
		best = at
	}
	return best, max(m, v)
}

// is3x3s2Even reports whether the windows are 3x3 at stride 2 with
// padding 1 over a plane of twice as many rows and columns as the
// output's (ResNet's stem pooling at an even size), which
// maxPoolPlaneKernel and maxPoolBackPlaneKernel take whole.
func (g PoolGeom) is3x3s2Even() bool {
	return g.KernelH == 3 && g.KernelW == 3 && g.StrideH == 2 && g.StrideW == 2 && g.PadH == 1 && g.PadW == 1 &&
		g.OutH > 0 && g.OutW > 0 && g.InH == 2*g.OutH && g.InW == 2*g.OutW
}

// is2x2 reports whether every window is an unclipped 2x2 block at stride
// 2, the most common pooling, which has a loop of its own.
func (g PoolGeom) is2x2() bool {
	return g.KernelH == 2 && g.KernelW == 2 && g.StrideH == 2 && g.StrideW == 2 &&
		g.PadH == 0 && g.PadW == 0 && g.OutH > 0 && g.OutW > 0 && 2*g.OutH <= g.InH && 2*g.OutW <= g.InW
}

// maxPool2x2 is MaxPool of one plane for is2x2 geometries. It picks the
// same element as argmax: the first maximum in row-major order.
func maxPool2x2[T Float](g PoolGeom, src, dst []T) {
	k32, _ := any(maxPool2x2Kernel).(func(r0, r1, out []T))
	for oh := range g.OutH {
		r0 := src[2*oh*g.InW:][:2*g.OutW]
		r1 := src[(2*oh+1)*g.InW:][:2*g.OutW]
		out := dst[oh*g.OutW:][:g.OutW]
		if k32 != nil {
			k32(r0, r1, out)
			continue
		}
		maxPool2x2Row(r0, r1, out, 0)
	}
}

// maxPool2x2Row pools outputs from..len(out)-1 of the rows r0 and r1.
func maxPool2x2Row[T Float](r0, r1, out []T, from int) {
	for ow := from; ow < len(out); ow++ {
		m := r0[2*ow]
		if v := r0[2*ow+1]; v > m {
			m = v
		}
		if v := r1[2*ow]; v > m {
			m = v
		}
		if v := r1[2*ow+1]; v > m {
			m = v
		}
		out[ow] = m
	}
}

// maxPool2x2Backward is MaxPoolBackward of one plane for is2x2 geometries.
func maxPool2x2Backward[T Float](g PoolGeom, src, gout, gi []T) {
	k32, _ := any(maxPool2x2BackKernel).(func(r0, r1, gout, g0, g1 []T))
	for oh := range g.OutH {
		i0 := 2 * oh * g.InW
		i1 := i0 + g.InW
		r0, r1 := src[i0:][:2*g.OutW], src[i1:][:2*g.OutW]
		g0, g1 := gi[i0:][:2*g.OutW], gi[i1:][:2*g.OutW]
		d := gout[oh*g.OutW:][:g.OutW]
		if k32 != nil {
			k32(r0, r1, d, g0, g1)
			continue
		}
		maxPool2x2BackRow(r0, r1, d, g0, g1, 0)
	}
}

// maxPool2x2BackRow is the gradient of outputs from..len(d)-1 of one row.
func maxPool2x2BackRow[T Float](r0, r1, d, g0, g1 []T, from int) {
	for ow := from; ow < len(d); ow++ {
		v := d[ow]
		j := 2 * ow
		m, row, col := r0[j], 0, j
		if x := r0[j+1]; x > m {
			m, col = x, j+1
		}
		if x := r1[j]; x > m {
			m, row, col = x, 1, j
		}
		if x := r1[j+1]; x > m {
			row, col = 1, j+1
		}
		if row == 0 {
			g0[col] += v
		} else {
			g1[col] += v
		}
	}
}

// argmax returns the index within plane (row stride inW) of the first
// maximum of the window, or -1 for an empty window.
func argmax[T Float](plane []T, inW int, w window) int {
	if w.h0 >= w.h1 || w.w0 >= w.w1 {
		return -1
	}
	best := w.h0*inW + w.w0
	m := plane[best]
	for h := w.h0; h < w.h1; h++ {
		row := plane[h*inW+w.w0 : h*inW+w.w1]
		for i, v := range row {
			if v > m {
				m, best = v, h*inW+w.w0+i
			}
		}
	}
	return best
}

// AvgPool writes, for each window, the sum of its in-bounds elements divided
// by the window's count (see PoolGeom.window), or the plain sum when sum is
// true (MXNet's pool_type "sum"). A window with a zero count yields 0.
func AvgPool[T Float](g PoolGeom, in, out []T, countIncludePad, sum bool) {
	inSz, outSz := g.planeSizes()
	in, out = in[:g.Planes*inSz], out[:g.Planes*outSz]
	poolLoop[T]{g: g, kind: avgPool, in: in, out: out, countIncludePad: countIncludePad, sum: sum}.forPlanes()
}

func (l *poolLoop[T]) avgPlane(p int) {
	g, in, out, countIncludePad, sum := l.g, l.in, l.out, l.countIncludePad, l.sum
	inSz, outSz := g.planeSizes()
	src, dst := in[p*inSz:(p+1)*inSz], out[p*outSz:(p+1)*outSz]
	for oh := range g.OutH {
		for ow := range g.OutW {
			w := g.window(oh, ow, countIncludePad)
			var s T
			for h := w.h0; h < w.h1; h++ {
				for _, v := range src[h*g.InW+w.w0 : h*g.InW+w.w1] {
					s += v
				}
			}
			dst[oh*g.OutW+ow] = scaleWindow(s, w.count, sum)
		}
	}
}

// avgWhole is avgPlane for planes lo to hi when the only window is the
// whole plane.
func (l *poolLoop[T]) avgWhole(lo, hi int) {
	sz := l.g.InH * l.g.InW
	count := l.g.window(0, 0, l.countIncludePad).count
	for p := lo; p < hi; p++ {
		l.out[p] = scaleWindow(sumSerial(l.in[p*sz:(p+1)*sz]), count, l.sum)
	}
}

// sumSerial sums x leaf by leaf on the calling goroutine: pooling is
// already parallel over planes, and a plane's sum allocates nothing.
func sumSerial[T Float](x []T) T {
	var s T
	for len(x) > sumBlock {
		s += sumLeaf(x[:sumBlock])
		x = x[sumBlock:]
	}
	return s + sumLeaf(x)
}

// AvgPoolBackward writes gradIn, the gradient of AvgPool: each gradOut
// element, divided by its window's count unless sum is true, goes to
// every in-bounds element of its window, summed where windows overlap.
func AvgPoolBackward[T Float](g PoolGeom, gradOut, gradIn []T, countIncludePad, sum bool) {
	inSz, outSz := g.planeSizes()
	gradIn, gradOut = gradIn[:g.Planes*inSz], gradOut[:g.Planes*outSz]
	poolLoop[T]{g: g, kind: avgPoolBackward, gradOut: gradOut, gradIn: gradIn, countIncludePad: countIncludePad, sum: sum}.forPlanes()
}

func (l *poolLoop[T]) avgBackwardPlane(p int) {
	g, gradOut, gradIn, countIncludePad, sum := l.g, l.gradOut, l.gradIn, l.countIncludePad, l.sum
	inSz, outSz := g.planeSizes()
	gi, gout := gradIn[p*inSz:(p+1)*inSz], gradOut[p*outSz:(p+1)*outSz]
	for oh := range g.OutH {
		for ow := range g.OutW {
			w := g.window(oh, ow, countIncludePad)
			d := scaleWindow(gout[oh*g.OutW+ow], w.count, sum)
			for h := w.h0; h < w.h1; h++ {
				row := gi[h*g.InW+w.w0 : h*g.InW+w.w1]
				for i := range row {
					row[i] += d
				}
			}
		}
	}
}

// scaleWindow divides a window's sum by its count, unless sum pooling is
// asked for; an empty count gives 0 rather than a division by zero.
func scaleWindow[T Float](s T, count int, sum bool) T {
	switch {
	case sum:
		return s
	case count <= 0:
		return 0
	default:
		return s / T(count)
	}
}

// orderKey maps v to an integer that orders as the values do: a larger
// value has a larger key, and -0 and +0 have the same key. A NaN, which
// no comparison finds larger, gets the smallest key. Float32 values
// convert to float64 exactly, in order. It compiles to no branches.
func orderKey(v float64) int64 {
	k := int64(math.Float64bits(v))
	s := k >> 63
	key := (k ^ (s & math.MaxInt64)) - s
	if k&math.MaxInt64 > int64(math.Float64bits(math.Inf(1))) {
		key = math.MinInt64 // NaN
	}
	return key
}

// firstKey is orderKey for the first value of a scan, whose NaN no later
// value replaces: it gets the largest key.
func firstKey(v float64) int64 {
	if v != v {
		return math.MaxInt64
	}
	return orderKey(v)
}
