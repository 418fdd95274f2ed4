package accel

import (
	"math"
	"sync"
	"sync/atomic"
)

// Fused epilogues, pre-packed operands and small products.
//
// A layer such as a convolution or a dense layer computes a product, adds a
// bias and applies a rectifier. Done as three passes, the bias and the
// rectifier each read and write the whole output again. GemmEpilogue and
// GemmPackedB instead finish each mr x nr tile of C while it is still in the
// L1 cache: once the last depth block of a tile is accumulated, the bias is
// added and the rectifier applied to that tile only.
//
// GemmPackedB also skips Gemm's packing of op(B): the caller hands B already
// in the packed panel layout (Im2colPacked writes a convolution's column
// matrix straight into it), which saves one full copy of the column matrix.

// Epilogue says what to do with each finished element of C: multiply it
// by a scale per row (RowScale, one value per row of C), add a bias per
// row (RowBias) and a bias per column (ColBias, one per column), add the
// element of Add at the same place (row i of Add starts at Add[i*AddStride]),
// in that order, then with Relu replace negative values by 0, and with
// Capped values above Cap by Cap (relu6 is Relu, Capped and Cap 6). NaN
// stays NaN. Nil slices are skipped; the zero Epilogue changes nothing. A
// convolution followed by an inference BatchNorm, a residual sum and a
// rectifier is one product with such an epilogue.
type Epilogue[T Float] struct {
	RowScale  []T
	RowBias   []T
	ColBias   []T
	Add       []T
	AddStride int
	Relu      bool
	Capped    bool
	Cap       T
}

// active reports whether the epilogue changes anything.
func (e *Epilogue[T]) active() bool {
	return e != nil && (e.RowScale != nil || e.RowBias != nil || e.ColBias != nil || e.Add != nil || e.Relu || e.Capped)
}

// check panics when a bias is too short for an m x n C.
func (e *Epilogue[T]) check(m, n int) {
	if e == nil {
		return
	}
	if e.RowBias != nil && len(e.RowBias) < m {
		panic("accel: Epilogue.RowBias is shorter than the rows of C")
	}
	if e.RowScale != nil && len(e.RowScale) < m {
		panic("accel: Epilogue.RowScale is shorter than the rows of C")
	}
	if e.Add != nil && (e.AddStride < n || len(e.Add) < (m-1)*e.AddStride+n) && m > 0 {
		panic("accel: Epilogue.Add is not an m x n matrix with row stride AddStride")
	}
	if e.ColBias != nil && len(e.ColBias) < n {
		panic("accel: Epilogue.ColBias is shorter than the columns of C")
	}
}

// Apply applies the epilogue to the rows x cols matrix C at c (row stride
// ldc), as a product with this epilogue would: for a C computed some
// other way. Large matrices are spread over the workers, by rows.
func (e *Epilogue[T]) Apply(c []T, ldc, rows, cols int) {
	checkMatrix("C", rows, cols, len(c), ldc)
	e.check(rows, cols)
	if !e.active() || rows <= 0 || cols <= 0 {
		return
	}
	grain := max(1, vecGrain/cols)
	if RunsInline(rows, grain) {
		e.apply(c, ldc, 0, 0, rows, cols)
		return
	}
	ParallelRange(rows, grain, applyLoop[T]{e, c, ldc, cols})
}

// applyLoop is Apply's loop over rows.
type applyLoop[T Float] struct {
	e         *Epilogue[T]
	c         []T
	ldc, cols int
}

func (l *applyLoop[T]) Range(lo, hi int) {
	l.e.apply(l.c[lo*l.ldc:], l.ldc, lo, 0, hi-lo, l.cols)
}

// apply finishes the rows x cols block of C at c (row stride ldc), whose
// first element is element (r0, c0) of C.
func (e *Epilogue[T]) apply(c []T, ldc, r0, c0, rows, cols int) {
	if x32, ok := any(c).([]float32); ok && scaleAddClampKernel != nil && addVecReluKernel != nil {
		e32 := any(e).(*Epilogue[float32])
		e32.apply32(x32, ldc, r0, c0, rows, cols)
		return
	}
	for r := range rows {
		row := c[r*ldc:][:cols]
		if e.RowScale != nil {
			s := e.RowScale[r0+r]
			for j := range row {
				row[j] *= s
			}
		}
		if e.RowBias != nil {
			b := e.RowBias[r0+r]
			for j := range row {
				row[j] += b
			}
		}
		if e.ColBias != nil {
			cb := e.ColBias[c0:][:cols]
			for j := range row {
				row[j] += cb[j]
			}
		}
		if e.Add != nil {
			add := e.Add[(r0+r)*e.AddStride+c0:][:cols]
			for j := range row {
				row[j] += add[j]
			}
		}
		if e.Relu {
			for j, v := range row {
				if v < 0 {
					row[j] = 0
				}
			}
		}
		if e.Capped {
			for j, v := range row {
				if v > e.Cap {
					row[j] = e.Cap
				}
			}
		}
	}
}

// apply32 is apply with the vector kernels: without a column bias, one
// call over the rows that scales, adds the row bias and the added row and
// clamps (relu and the cap) where there is such a kernel; else per row,
// that pass after one that adds the column bias where there is one.
func (e *Epilogue[T]) apply32(c []float32, ldc, r0, c0, rows, cols int) {
	rs, _ := any(e.RowScale).([]float32)
	rb, _ := any(e.RowBias).([]float32)
	cb, _ := any(e.ColBias).([]float32)
	add, _ := any(e.Add).([]float32)
	inf := float32(math.Inf(1))
	lo, hi := -inf, inf
	if e.Relu {
		lo = 0
	}
	if e.Capped {
		hi = float32(e.Cap)
	}
	if cb == nil && scaleAddClampRowsKernel != nil {
		if rs != nil {
			rs = rs[r0:][:rows]
		}
		if rb != nil {
			rb = rb[r0:][:rows]
		}
		if add != nil {
			add = add[r0*e.AddStride+c0:]
		}
		scaleAddClampRowsKernel(c, ldc, rows, cols, rs, rb, add, e.AddStride, lo, hi)
		return
	}
	for r := range rows {
		row := c[r*ldc:][:cols]
		s, b := float32(1), float32(0)
		if rs != nil {
			s = rs[r0+r]
		}
		if rb != nil {
			b = rb[r0+r]
		}
		var addRow []float32
		if add != nil {
			addRow = add[(r0+r)*e.AddStride+c0:][:cols]
		}
		if cb != nil {
			if rs != nil || rb != nil {
				scaleAddClamp(row, row, s, b, nil, -inf, inf)
			}
			if addRow == nil && !e.Capped { // the column bias and relu finish the row
				addVecReluKernel(row, cb[c0:][:cols], e.Relu)
				continue
			}
			addVecReluKernel(row, cb[c0:][:cols], false)
			s, b = 1, 0
		}
		scaleAddClamp(row, row, s, b, addRow, lo, hi)
	}
}

// epilogueWholeMax is the size of C, in elements, up to which the
// epilogue runs once over the whole of C after the product (C is still in
// cache, and long rows make fewer, longer vector loops) rather than strip
// by strip.
const epilogueWholeMax = 1 << 14

// tileEpilogue returns ep when it is to be applied strip by strip (the
// rows of C that one panel of A makes, see gemmTasks), nil when C is small
// enough to take it whole afterwards.
func tileEpilogue[T Float](ep *Epilogue[T], m, n int) *Epilogue[T] {
	if m*n <= epilogueWholeMax {
		return nil
	}
	return ep
}

// GemmEpilogue computes C = op(A)*op(B) and then applies ep to every
// element of C, strip by strip while the strip is in cache. The arguments are
// those of Gemm with alpha 1 and beta 0; ep may be nil.
func GemmEpilogue[T Float](transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int, ep *Epilogue[T]) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	ep.check(m, n)
	if !ep.active() {
		ep = nil
	}
	if m == 0 || n == 0 {
		return
	}
	if !transA && transB && k > 0 && m <= dotRowsMax && dotsFor[T]() != nil {
		gemmDots(m, n, k, 1, a, lda, b, ldb, 0, c, ldc, ep)
		return
	}
	if columnDots[T](transA, transB, n, k, ldb) {
		gemmColumn(m, k, 1, a, lda, b, 0, c, ldc, ep)
		return
	}
	if k == 0 {
		scaleMatrix(m, n, 0, c, ldc)
		if ep != nil {
			ep.apply(c, ldc, 0, 0, m, n)
		}
		return
	}
	g := getObj[gemmCall[T]]() // recycled: the parallel loops hand it to other goroutines
	*g = gemmCall[T]{m: m, n: n, k: k, alpha: 1, c: c, ldc: ldc, kern: kernelForRows[T](m), overwrite: true, ep: tileEpilogue(ep, m, n)}
	g.setA(a, lda, transA)
	g.setB(b, ldb, transB)
	g.runWith(ep)
}

// PanelWidth is the width of the column panels of a packed B operand for
// element type T: the micro-kernel's nr.
func PanelWidth[T Float]() int { return kernelFor[T]().nr }

// PackedBLen is the number of elements of a k x n matrix packed for
// GemmPackedB: k times n rounded up to a whole number of panels.
func PackedBLen[T Float](k, n int) int { return k * roundUp(n, PanelWidth[T]()) }

// GemmPackedB computes C = op(A)*B + beta*C, then applies ep (which may be
// nil), for a k x n matrix B packed by the caller: column panels of
// PanelWidth columns, each stored depth-major over the full depth, so that
// element (p, j) of B is at bPacked[(j/w)*w*k + p*w + j%w] with
// w = PanelWidth, and the columns past n in the last panel are zero.
// Im2colPacked writes this layout for a convolution's column matrix, and
// Im2colPackedT for its transpose. With beta 0, C is not read.
func GemmPackedB[T Float](transA bool, m, n, k int, a []T, lda int, bPacked []T, beta T, c []T, ldc int, ep *Epilogue[T]) {
	if m < 0 || n < 0 || k < 0 {
		panic("accel: GemmPackedB with a negative size")
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	checkMatrix("A", rowsA, colsA, len(a), lda)
	checkMatrix("C", m, n, len(c), ldc)
	if need := PackedBLen[T](k, n); len(bPacked) < need && m > 0 && k > 0 {
		panic("accel: GemmPackedB: the packed B is shorter than k x n in panels")
	}
	g, ep := startPacked(m, n, k, beta, c, ldc, ep)
	if g == nil {
		return
	}
	g.bPre = bPacked
	g.setA(a, lda, transA)
	g.runWith(ep)
}

// startPacked is what the packed products share once their operands are
// checked: it checks ep (dropping it when it does nothing), scales C by
// beta and returns the recycled call for the product, to be given its
// operands and run with runWith. It returns nil when there is nothing to
// multiply; the epilogue has then been applied already.
func startPacked[T Float](m, n, k int, beta T, c []T, ldc int, ep *Epilogue[T]) (*gemmCall[T], *Epilogue[T]) {
	ep.check(m, n)
	if !ep.active() {
		ep = nil
	}
	if m == 0 || n == 0 {
		return nil, nil
	}
	if k == 0 || beta != 0 {
		scaleMatrix(m, n, beta, c, ldc)
	}
	if k == 0 {
		if ep != nil {
			ep.apply(c, ldc, 0, 0, m, n)
		}
		return nil, nil
	}
	g := getObj[gemmCall[T]]() // recycled: the parallel loops hand it to other goroutines
	*g = gemmCall[T]{m: m, n: n, k: k, alpha: 1, c: c, ldc: ldc, kern: kernelForRows[T](m), overwrite: beta == 0, ep: tileEpilogue(ep, m, n)}
	return g, ep
}

// PackedALen is the number of elements of an m x k matrix op(A) packed by
// PackA: m rounded up to whole micro-panels, times k.
func PackedALen[T Float](m, k int) int { return roundUp(m, kernelForRows[T](m).mr) * k }

// PackA packs op(A), m x k (A stored k x m when transA, row stride lda),
// into dst (PackedALen(m, k) elements) for GemmPacked, so that a left
// operand used with many right ones (a convolution's filters, once per
// image) is packed once. The layout is Gemm's own: for each block of
// depth, micro-panels of mr rows stored depth-major.
func PackA[T Float](transA bool, m, k int, a []T, lda int, dst []T) {
	rows, cols := m, k
	ars, ads := lda, 1
	if transA {
		rows, cols = k, m
		ars, ads = 1, lda
	}
	checkMatrix("A", rows, cols, len(a), lda)
	mr := kernelForRows[T](m).mr
	dst = dst[:PackedALen[T](m, k)]
	for pc := 0; pc < k; pc += gemmKC {
		kb := min(gemmKC, k-pc)
		packPanels(dst[pc*roundUp(m, mr):], a, ars, ads, 0, m, pc, kb, mr)
	}
}

// GemmPacked is GemmPackedB with op(A) packed by PackA as well.
func GemmPacked[T Float](m, n, k int, aPacked, bPacked []T, beta T, c []T, ldc int, ep *Epilogue[T]) {
	if m < 0 || n < 0 || k < 0 {
		panic("accel: GemmPacked with a negative size")
	}
	checkMatrix("C", m, n, len(c), ldc)
	if m > 0 && k > 0 && (len(aPacked) < PackedALen[T](m, k) || len(bPacked) < PackedBLen[T](k, n)) {
		panic("accel: GemmPacked: a packed operand is shorter than its size in panels")
	}
	g, ep := startPacked(m, n, k, beta, c, ldc, ep)
	if g == nil {
		return
	}
	g.bPre, g.aPre = bPacked, aPacked
	g.runWith(ep)
}

// GemmPackedA computes C = op(A)*op(B) + beta*C for an m x k matrix op(A)
// packed by PackA: Gemm with alpha 1, for a left operand used with many
// right ones (a deconvolution's filters, once per image).
func GemmPackedA[T Float](transB bool, m, n, k int, aPacked, b []T, ldb int, beta T, c []T, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic("accel: GemmPackedA with a negative size")
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	checkMatrix("B", rowsB, colsB, len(b), ldb)
	checkMatrix("C", m, n, len(c), ldc)
	if m > 0 && k > 0 && len(aPacked) < PackedALen[T](m, k) {
		panic("accel: GemmPackedA: the packed A is shorter than m x k in panels")
	}
	g, _ := startPacked[T](m, n, k, beta, c, ldc, nil)
	if g == nil {
		return
	}
	g.aPre = aPacked
	g.setB(b, ldb, transB)
	g.runWith(nil)
}

// runWith runs g, applies ep to the whole of C when g did not apply it
// strip by strip, and recycles g.
func (g *gemmCall[T]) runWith(ep *Epilogue[T]) {
	g.run()
	tiled := g.ep != nil
	c, ldc, m, n := g.c, g.ldc, g.m, g.n
	putObj(g)
	if ep != nil && !tiled {
		ep.apply(c, ldc, 0, 0, m, n)
	}
}

// Im2colPacked writes the column matrix of Im2col for one image straight
// into the packed layout of GemmPackedB (PackedBLen(Channels*KernelH*KernelW,
// OutH*OutW) elements of dst), zero-padding the last panel.
//
// With padding, the image is first copied into a zero-bordered buffer, so
// that every tap reads in bounds. Then tap r of output position j reads
// element tapBase[r] + posOff[j] of the (bordered) image: one gather loop
// per tap and panel, written sequentially into dst. Large matrices are
// written by the worker pool, a run of panels each.
func Im2colPacked[T Float](g ConvGeom, img, dst []T) {
	outW := g.OutW()
	k, n := g.colRows(), g.OutH()*outW
	if k <= 0 || n <= 0 || outW <= 0 {
		return
	}
	w := PanelWidth[T]()
	dst = dst[:k*roundUp(n, w)]
	src, bp := im2colImage(g, img)
	if bp != nil {
		defer putBuf(bp)
	}
	gather32, _ := any(gatherRunsKernel).(func(dst []T, w int, src []T, tapBase []int, runs []int) int)
	l := im2colPackedLoop[T]{tb: tablesFor(g, w), gather32: gather32, src: src, dst: dst, k: k, n: n, w: w}
	ParallelRange(ceilDiv(n, w), max(1, im2colGrain/(w*k)), l)
}

// im2colPackedLoop is Im2colPacked's loop over the panels of dst.
type im2colPackedLoop[T Float] struct {
	tb       *im2colTables
	gather32 func(dst []T, w int, src []T, tapBase []int, runs []int) int
	src, dst []T
	k, n, w  int
	first    int // the panel that dst starts with
}

func (l *im2colPackedLoop[T]) Range(lo, hi int) {
	for q := lo; q < hi; q++ {
		l.panelTaps(q, 0, l.k, l.dst[(q-l.first)*l.w*l.k:][:l.w*l.k])
	}
}

// panelTaps writes taps r0 to r1-1 of panel q into their rows of panel.
func (l *im2colPackedLoop[T]) panelTaps(q, r0, r1 int, panel []T) {
	tb, src, n, w := l.tb, l.src, l.n, l.w
	tapBase := tb.tapBase[r0:r1]
	panel = panel[r0*w : r1*w]
	cnt := min(w, n-q*w)
	// Positions in one output row are contiguous in the image when the
	// stride is 1: then each panel row is a few runs, copied whole.
	var runs []int
	if tb.runs != nil {
		runs = tb.runs[tb.panelRuns[q]:tb.panelRuns[q+1]]
	}
	done := 0 // taps copied by the vector kernel
	if runs != nil && l.gather32 != nil {
		done = l.gather32(panel, w, src, tapBase, runs)
		if cnt < w {
			for r := range done {
				clear(panel[r*w+cnt : r*w+w])
			}
		}
	}
	offs := tb.posOff[q*w:][:cnt]
	for r := done; r < len(tapBase); r++ {
		base := tapBase[r]
		d := panel[r*w:][:w]
		s := src[base:]
		if runs != nil {
			for i := 0; i < len(runs); i += 3 {
				t, o, l := runs[i], runs[i+1], runs[i+2]
				copy(d[t:t+l], s[o:o+l])
			}
		} else {
			for t, o := range offs {
				d[t] = s[o]
			}
		}
		if cnt < w {
			clear(d[cnt:])
		}
	}
}

// im2colTapsLoop is Im2colAt's loop over the taps of a column matrix
// written as one panel as wide as the matrix (see im2colPackedLoop).
type im2colTapsLoop[T Float] struct{ l im2colPackedLoop[T] }

func (l *im2colTapsLoop[T]) Range(lo, hi int) { l.l.panelTaps(0, lo, hi, l.l.dst) }

// Im2colPanels writes the packed column matrix of Im2colPacked for one
// image a range of panels at a time, so that a product can take the
// matrix in pieces, each while it is in cache. Make one with
// NewIm2colPanels and hand it back with Release; Write may be called from
// several goroutines at once.
type Im2colPanels[T Float] struct {
	l  im2colPackedLoop[T]
	bp *[]T
}

// NewIm2colPanels prepares the column matrix of image img of g.
func NewIm2colPanels[T Float](g ConvGeom, img []T) *Im2colPanels[T] {
	p := getObj[Im2colPanels[T]]()
	w := PanelWidth[T]()
	src, bp := im2colImage(g, img)
	gather32, _ := any(gatherRunsKernel).(func(dst []T, w int, src []T, tapBase []int, runs []int) int)
	*p = Im2colPanels[T]{bp: bp, l: im2colPackedLoop[T]{tb: tablesFor(g, w), gather32: gather32, src: src, k: g.colRows(), n: g.OutH() * g.OutW(), w: w}}
	return p
}

// Panels is the number of panels of the column matrix.
func (p *Im2colPanels[T]) Panels() int { return ceilDiv(p.l.n, p.l.w) }

// Write writes panels lo to hi-1 to dst ((hi-lo)*PanelWidth*Channels*
// KernelH*KernelW elements): the packed layout of GemmPackedB for the
// columns lo*PanelWidth on.
func (p *Im2colPanels[T]) Write(dst []T, lo, hi int) {
	l := p.l
	l.dst, l.first = dst[:(hi-lo)*l.w*l.k], lo
	// Large pieces are written by the worker pool, a run of panels each.
	ParallelRange(hi-lo, max(1, im2colGrain/(l.w*l.k)), im2colPanelsLoop[T]{l})
}

// im2colPanelsLoop is Write's loop over the panels of a piece, counted
// from its first.
type im2colPanelsLoop[T Float] struct{ l im2colPackedLoop[T] }

func (l *im2colPanelsLoop[T]) Range(lo, hi int) { l.l.Range(l.l.first+lo, l.l.first+hi) }

// Release hands p back; it must not be used afterwards.
func (p *Im2colPanels[T]) Release() {
	if p.bp != nil {
		putBuf(p.bp)
	}
	putObj(p)
}

// Im2colPackedT writes the transpose of the column matrix of Im2col, an
// (OutH*OutW) x (Channels*KernelH*KernelW) matrix, into the packed layout
// of GemmPackedB (PackedBLen(OutH*OutW, Channels*KernelH*KernelW) elements
// of dst): the operand of a convolution's weight gradient,
// ograd * im2col(image)ᵀ.
func Im2colPackedT[T Float](g ConvGeom, img, dst []T) {
	k, n := g.colRows(), g.OutH()*g.OutW()
	if k <= 0 || n <= 0 || g.OutW() <= 0 {
		return
	}
	w := PanelWidth[T]()
	dst = dst[:n*roundUp(k, w)]
	tb := tablesFor(g, w)
	src, bp := im2colImage(g, img)
	if bp != nil {
		defer putBuf(bp)
	}
	tapBase, posOff := tb.tapBase, tb.posOff
	gather32, _ := any(gatherRunsKernel).(func(dst []T, w int, src []T, tapBase []int, runs []int) int)
	for q := 0; q*w < k; q++ {
		taps := tapBase[q*w : min(k, q*w+w)]
		panel := dst[q*w*n:][:w*n]
		// Each row of the panel is one output position: the same runs of
		// taps, from that position's offset.
		done := 0 // positions copied by the vector kernel
		if tb.runsT != nil && gather32 != nil {
			done = gather32(panel, w, src, posOff, tb.runsT[tb.panelRunsT[q]:tb.panelRunsT[q+1]])
			if len(taps) < w {
				for p := range done {
					clear(panel[p*w+len(taps) : p*w+w])
				}
			}
		}
		for p := done; p < n; p++ {
			o := posOff[p]
			d := panel[p*w:][:w]
			s := src[o:]
			for t, b := range taps {
				d[t] = s[b]
			}
			if len(taps) < w {
				clear(d[len(taps):])
			}
		}
	}
}

// im2colTables are the offsets Im2colPacked and Im2colPackedT gather
// with, the same for every image of one geometry: tap r of output
// position j is element tapBase[r]+posOff[j] of the image, bordered with
// zeros when there is padding. runs lists, for unit-stride rows, each
// panel's contiguous runs as (start in the panel, posOff of the start,
// length) triples; panel q's are runs[panelRuns[q]:panelRuns[q+1]].
type im2colTables struct {
	tapBase, posOff []int
	runs, panelRuns []int
	// runsT and panelRunsT are the same for the transposed packing
	// (Im2colPackedT), whose panels are runs of taps: taps next to each
	// other in a kernel row read elements next to each other.
	runsT, panelRunsT []int
}

type tablesKey struct {
	g ConvGeom
	w int
}

// tableCache holds the tables of recent geometries; it is emptied when it
// grows past tableCacheMax entries, which only a program that convolves
// many different shapes reaches.
var (
	tableMu         sync.RWMutex
	tableCache      = map[tablesKey]*im2colTables{} // a map, not a sync.Map: its struct keys are not boxed per lookup
	tableCacheCount atomic.Int64
)

const tableCacheMax = 256

// tablesFor returns the tables of geometry g with panels of width w.
func tablesFor(g ConvGeom, w int) *im2colTables {
	key := tablesKey{g, w}
	tableMu.RLock()
	t, ok := tableCache[key]
	tableMu.RUnlock()
	if ok {
		return t
	}
	outH, outW := g.OutH(), g.OutW()
	k, n := g.colRows(), outH*outW
	ph, pw := g.InH+2*g.PadH, g.InW+2*g.PadW
	split := splitColumns(g)
	t = &im2colTables{tapBase: make([]int, k), posOff: make([]int, n)}
	for r := range t.tapBase {
		c, kh, kw := g.tap(r)
		t.tapBase[r] = (c*ph+kh*g.DilateH)*pw + splitColumn(pw, kw*g.DilateW, split)
	}
	step := g.StrideW // between output columns, in the image
	if split {
		step = 1
	}
	j := 0
	for oh := range outH {
		for ow := range outW {
			t.posOff[j] = oh*g.StrideH*pw + ow*step
			j++
		}
	}
	if g.DilateW == 1 && g.KernelW >= 4 {
		for q := 0; q*w < k; q++ {
			t.panelRunsT = append(t.panelRunsT, len(t.runsT))
			cnt := min(w, k-q*w)
			for i := 0; i < cnt; {
				run := 1
				for i+run < cnt && t.tapBase[q*w+i+run] == t.tapBase[q*w+i]+run {
					run++
				}
				t.runsT = append(t.runsT, i, t.tapBase[q*w+i], run)
				i += run
			}
		}
		t.panelRunsT = append(t.panelRunsT, len(t.runsT))
	}
	if step == 1 && min(outW, w) >= 4 {
		for q := 0; q*w < n; q++ {
			t.panelRuns = append(t.panelRuns, len(t.runs))
			cnt := min(w, n-q*w)
			for i := 0; i < cnt; {
				run := min(cnt-i, outW-(q*w+i)%outW)
				t.runs = append(t.runs, i, t.posOff[q*w+i], run)
				i += run
			}
		}
		t.panelRuns = append(t.panelRuns, len(t.runs))
	}
	tableMu.Lock()
	if tableCacheCount.Add(1) > tableCacheMax {
		clear(tableCache)
		tableCacheCount.Store(0)
	}
	tableCache[key] = t
	tableMu.Unlock()
	return t
}

// splitColumns reports whether im2colImage splits the rows of the image
// of g into even and odd columns: for a stride of 2 along the width, so
// that the columns one tap reads for consecutive outputs lie side by side.
func splitColumns(g ConvGeom) bool { return g.StrideW == 2 }

// splitColumn is where column x of a bordered row of pw columns lies in
// im2colImage's row: x itself, or with split, the even columns first.
func splitColumn(pw, x int, split bool) int {
	if !split {
		return x
	}
	if x%2 == 0 {
		return x / 2
	}
	return (pw+1)/2 + x/2
}

// im2colImage returns the image Im2colPacked and Im2colPackedT gather
// from: borderedImage's, with the columns of each row split into even
// and odd ones where splitColumns says (always a copy, in a pooled buffer
// that the caller hands back with putBuf when bp is not nil).
func im2colImage[T Float](g ConvGeom, img []T) (src []T, bp *[]T) {
	if !splitColumns(g) {
		return borderedImage(g, img)
	}
	return framedImage(g, img, true)
}

// borderedImage returns img, or when g has padding a copy of it with a
// zero border of PadH rows and PadW columns (in a pooled buffer, which
// the caller hands back with putBuf when bp is not nil).
func borderedImage[T Float](g ConvGeom, img []T) (src []T, bp *[]T) {
	img = img[:g.Channels*g.InH*g.InW]
	if g.PadH == 0 && g.PadW == 0 {
		return img, nil
	}
	return framedImage(g, img, false)
}

// framedImage copies img into a pooled buffer with a zero border of PadH
// rows and PadW columns, each row's columns split into even and odd ones
// with split; the rows are spread over the workers.
func framedImage[T Float](g ConvGeom, img []T, split bool) (src []T, bp *[]T) {
	img = img[:g.Channels*g.InH*g.InW]
	ph, pw := g.InH+2*g.PadH, g.InW+2*g.PadW
	bp = getBuf[T](g.Channels * ph * pw)
	src = (*bp)[:g.Channels*ph*pw]
	if g.InH == 0 {
		clear(src) // all border
		return src, bp
	}
	ParallelRange(g.Channels*g.InH, max(1, framedGrain/pw), framedRowsLoop[T]{g, img, src, split})
	return src, bp
}

// framedGrain is the number of elements from which framedImage spreads
// its rows over the workers.
const framedGrain = 1 << 14

// framedRowsLoop is framedImage's loop over the rows of the image, all
// planes' one after another; a plane's first and last rows clear the
// border rows above and below them.
type framedRowsLoop[T Float] struct {
	g        ConvGeom
	img, src []T
	split    bool
}

func (l *framedRowsLoop[T]) Range(lo, hi int) {
	g := l.g
	ph, pw := g.InH+2*g.PadH, g.InW+2*g.PadW
	even := (pw + 1) / 2
	// The border's columns of a split row: even ones before evenIn and
	// from evenOut on, odd ones before oddIn and from oddOut on.
	evenIn, oddIn := (g.PadW+1)/2, g.PadW/2
	evenOut, oddOut := (g.PadW+g.InW+1)/2, (g.PadW+g.InW)/2
	c, h := lo/g.InH, lo%g.InH
	for i := lo; i < hi; i++ {
		plane := l.src[c*ph*pw:][:ph*pw]
		if h == 0 {
			clear(plane[:g.PadH*pw])
		}
		if h == g.InH-1 {
			clear(plane[(g.PadH+g.InH)*pw:])
		}
		row := plane[(h+g.PadH)*pw:][:pw]
		in := l.img[i*g.InW:][:g.InW]
		if !l.split {
			clear(row[:g.PadW])
			if g.InW <= 16 {
				for x, v := range in { // a copy call costs more than a short row
					row[g.PadW+x] = v
				}
			} else {
				copy(row[g.PadW:], in)
			}
			clear(row[g.PadW+g.InW:])
		} else {
			ev, od := row[:even], row[even:]
			clear(ev[:evenIn])
			clear(ev[evenOut:])
			clear(od[:oddIn])
			clear(od[oddOut:])
			deinterleave(ev, od, in, g.PadW)
		}
		if h++; h == g.InH {
			c, h = c+1, 0
		}
	}
}

// dotRowsMax is the most rows of C for which a product with a transposed B
// (a dense layer's x·Wᵀ) is computed as dot products of rows of A and B
// rather than by packing B: with so few rows, packing B would cost as much
// as the multiplication.
const dotRowsMax = 4

// dotGrain is the number of multiply-adds from which gemmDots spreads its
// columns over the workers.
const dotGrain = 1 << 16

// dotsFor returns the vector dot-product kernel for T, or nil when there
// is none (then Gemm packs as usual).
func dotsFor[T Float]() func(x, y []T) T {
	if f, ok := any(sdotKernel).(func(x, y []T) T); ok && sdotKernel != nil {
		return f
	}
	return nil
}

// columnDots reports whether a product whose C is a single column (a
// matrix-vector product: a dense layer's Wx, a 1x1 convolution of a 1x1
// image) is computed as one dot product per row of A: op(A) not
// transposed and B's column contiguous. The packed kernel would fill one
// of its nr columns and waste the rest: MobileNet v2's classifier, a
// 1000x1280 convolution of a 1x1 image, took 2.3 ms packed.
func columnDots[T Float](transA, transB bool, n, k, ldb int) bool {
	return !transA && n == 1 && k > 0 && (transB || ldb == 1) && dotsFor[T]() != nil
}

// gemmColumn computes C = alpha*A*x + beta*C (then ep) for A m x k,
// row-major, x the k values of B's one column and C m x 1: one dot
// product per row of A, the rows spread over the workers.
func gemmColumn[T Float](m, k int, alpha T, a []T, lda int, x []T, beta T, c []T, ldc int, ep *Epilogue[T]) {
	dot := dotsFor[T]()
	x = x[:k]
	ParallelFor(m, max(1, dotGrain/k), func(lo, hi int) {
		if beta == 0 && ldc == 1 && dotRows(a[lo*lda:], lda, x, c[lo:hi]) {
			scaleBy(c[lo:hi], alpha)
		} else {
			for i := lo; i < hi; i++ {
				v := alpha * dot(a[i*lda:][:k], x)
				if beta != 0 {
					v += beta * c[i*ldc]
				}
				c[i*ldc] = v
			}
		}
		if ep != nil {
			ep.apply(c[lo*ldc:], ldc, lo, 0, hi-lo, 1)
		}
	})
}

// dotRows sets out[r] to the dot product of row r of a (rows lda apart)
// with x, for the len(out) rows, with the kernel that takes several rows
// at once, and reports whether there was one for T.
func dotRows[T Float](a []T, lda int, x, out []T) bool {
	a32, ok := any(a).([]float32)
	if !ok || sdotRowsKernel == nil || len(out) == 0 {
		return false
	}
	sdotRowsKernel(a32, lda, any(x).([]float32), any(out).([]float32))
	return true
}

// scaleBy multiplies x by alpha, unless alpha is 1.
func scaleBy[T Float](x []T, alpha T) {
	if alpha != 1 {
		for i := range x {
			x[i] *= alpha
		}
	}
}

// gemmDots computes C = alpha*A*Bᵀ + beta*C (then ep) as one dot product
// per element, for A m x k and B n x k, both row-major.
func gemmDots[T Float](m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int, ep *Epilogue[T]) {
	dot := dotsFor[T]()
	grain := max(1, dotGrain/max(1, m*k))
	ParallelFor(n, grain, func(lo, hi int) {
		for i := range m {
			x := a[i*lda:][:k]
			row := c[i*ldc:][:n]
			if beta == 0 && dotRows(b[lo*ldb:], ldb, x, row[lo:hi]) {
				scaleBy(row[lo:hi], alpha)
			} else {
				for j := lo; j < hi; j++ {
					v := alpha * dot(x, b[j*ldb:][:k])
					if beta != 0 {
						v += beta * row[j]
					}
					row[j] = v
				}
			}
			if ep != nil {
				ep.apply(row[lo:], ldc, i, lo, 1, hi-lo)
			}
		}
	})
}
