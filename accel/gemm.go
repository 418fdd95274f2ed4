package accel

import (
	"fmt"
	"unsafe"
)

// Gemm blocking, in the Goto/BLIS arrangement with the operands' roles
// suited to row-major C (the kernel broadcasts A's values and loads B's
// rows as vectors). For one call:
//
//	for ic over rows of C in steps of gemmMC        (A block: mc x kc)
//	  for pc over the k dimension in steps of gemmKC
//	    pack op(A)[ic:ic+mc, pc:pc+kc] into mr-tall micro-panels
//	    for jc over columns of C in steps of gemmNC   (B block: kc x nc, in L2)
//	      pack op(B)[pc:pc+kc, jc:jc+nc] into nr-wide micro-panels
//	      for ir over the mr-tall panels of A
//	        for jr over the nr-wide panels of B        (the A panel stays in L1)
//	          micro-kernel: C[mr x nr] += alpha * Apanel * Bpanel
//
// Each A panel is multiplied by the whole B block before the next, so it
// is read from L1 while B's panels stream from L2; A is packed once per
// depth block whatever n is, B once per A block. The other order, a B
// panel against a column of A panels, read both from L2: with blocks of
// 96 rows of A, square products of 512 to 2048 ran 10 to 16% slower on
// one thread (the micro-kernel alone, fed as in a product of 1024, ran at
// 117 GFLOP/s that way and 127 this way, on a core whose FMA peak is 150).
//
// A parallel product gives each task a block of C's columns (the jc loop,
// see columnTasks); one with few columns splits the ir and jr loops.
//
// C is first multiplied by beta once, so every kc step only accumulates.
// Packing makes the micro-kernel's loads contiguous and unit-stride whatever
// the transpose flags and leading dimensions, and zero-pads the ragged edges
// so the kernel always sees full mr x nr tiles.

// gemmParallelMin is the number of multiply-adds (m*n*k) from which Gemm
// spreads its work over the worker pool; smaller products stay on the
// calling goroutine. Measured on two cores (medians): a 128x128x128
// product (2^21) took 29 µs alone and 21 µs split, a 256x256x256 one
// 198 µs and 143 µs; at 96x96x96 there is too little to split. (A
// variable so that tests can force the parallel path.)
var gemmParallelMin = 1 << 21

const (
	// gemmMC is the rows of op(A) per packed block (rounded to a
	// multiple of mr): every B block is multiplied by the whole A block,
	// so a larger one packs B fewer times; 3 MiB at full depth.
	gemmMC = 3072
	gemmKC = 256 // depth of one packed block
	// gemmNC is the columns of op(B) per packed block (rounded to a
	// multiple of nr): 512 KiB of B at full depth, half of the L2 cache
	// (768 columns ran at two thirds of the speed).
	gemmNC = 512

	// gemmTasksPerWorker is how many tasks Gemm aims for per worker so that
	// uneven blocks still balance.
	gemmTasksPerWorker = 3
	// gemmMinGroupPanels is the fewest B micro-panels a task handles when
	// a run of A panels is split by columns too.
	gemmMinGroupPanels = 4
)

// Gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices.
// op(A) is m x k (A is stored k x m when transA), op(B) is k x n (B is stored
// n x k when transB) and C is m x n. lda, ldb and ldc are the row strides.
// When beta is 0, C is not read, so NaNs in C are ignored; when alpha is 0 or
// k is 0, A and B are not read.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemm(false, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmSerial is Gemm with its blocked product on the calling goroutine
// alone, for callers that spread several products over the workers
// themselves (products of a column, or of at most four rows by a
// transposed B, still take the workers).
func gemmSerial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemm(true, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gemm[T Float](serial, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if !transA && transB && k > 0 && alpha != 0 && m <= dotRowsMax && dotsFor[T]() != nil {
		gemmDots(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
		return
	}
	if columnDots[T](transA, transB, n, k, ldb) && alpha != 0 {
		gemmColumn(m, k, alpha, a, lda, b, beta, c, ldc, nil)
		return
	}
	if k == 0 || alpha == 0 {
		scaleMatrix(m, n, beta, c, ldc)
		return
	}
	if beta != 0 {
		scaleMatrix(m, n, beta, c, ldc)
	}
	// The call's state is recycled: the parallel loops below hand it to
	// other goroutines, so it cannot live on the stack.
	g := getObj[gemmCall[T]]()
	*g = gemmCall[T]{
		m: m, n: n, k: k, alpha: alpha, c: c, ldc: ldc,
		kern: kernelForRows[T](m), overwrite: beta == 0, serial: serial,
	}
	g.setA(a, lda, transA)
	g.setB(b, ldb, transB)
	g.run()
	putObj(g)
}

// GemmTurnedA computes C = A*B, overwriting C, for an m x k matrix A of
// filters turned for a convolution's data gradient: w holds k/taps
// filters of m channels of taps taps each (k/taps x m x taps), and
// A(i, f*taps+t) is w[f][i][taps-1-t], the filters with their maps and
// channels swapped and each turned by 180 degrees. B is k x n (row
// stride ldb), C m x n (row stride ldc). A is packed block by block as
// the product goes, never written whole: turning 512 filters of
// 512x3x3 into a matrix of their own first read and wrote 9 MB, and
// took a third of the time of their product with 16 images of 4x4.
//
// On the workers, each takes a run of A's rows, packs them and B itself,
// and multiplies them alone: no worker waits for another's packing. (The
// blocks packed by all the workers together, as Gemm packs them, took
// 1.3 times as long on two threads, and twice as long where another
// process took a core now and then.)
func GemmTurnedA[T Float](m, n, k, taps int, w, b []T, ldb int, c []T, ldc int) {
	if m < 0 || n < 0 || k < 0 || taps <= 0 || k%taps != 0 {
		panic(fmt.Sprintf("accel: GemmTurnedA with m=%d n=%d k=%d taps=%d", m, n, k, taps))
	}
	if len(w) < k*m {
		panic(fmt.Sprintf("accel: GemmTurnedA: w has %d elements, %d filters of %d channels of %d taps need %d", len(w), k/taps, m, taps, k*m))
	}
	checkMatrix("B", k, n, len(b), ldb)
	checkMatrix("C", m, n, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleMatrix(m, n, 0, c, ldc)
		return
	}
	kern := kernelForRows[T](m)
	runs := 1
	if numWorkers > 1 && m*n*k >= gemmParallelMin {
		runs = min(numWorkers, ceilDiv(m, kern.mr))
	}
	l := turnedRuns[T]{m: m, n: n, k: k, taps: taps, runs: runs, kern: kern, w: w, b: b, ldb: ldb, c: c, ldc: ldc}
	ParallelRange(runs, 1, l)
}

// turnedRuns is GemmTurnedA's loop over runs of A's rows (whole panels
// of the kernel's rows, as even as may be), each a product on the
// calling goroutine.
type turnedRuns[T Float] struct {
	m, n, k, taps, runs int
	kern                microKernel[T]
	w, b, c             []T
	ldb, ldc            int
}

func (l *turnedRuns[T]) Range(lo, hi int) {
	mr := l.kern.mr
	panels := ceilDiv(l.m, mr)
	for r := lo; r < hi; r++ {
		i0, i1 := r*panels/l.runs*mr, min(l.m, (r+1)*panels/l.runs*mr)
		if i0 >= i1 {
			continue
		}
		g := getObj[gemmCall[T]]()
		*g = gemmCall[T]{m: i1 - i0, n: l.n, k: l.k, alpha: 1, c: l.c[i0*l.ldc:], ldc: l.ldc,
			kern: l.kern, overwrite: true, serial: true}
		g.a, g.ars, g.aTaps = l.w[i0*l.taps:], l.m*l.taps, l.taps
		g.setB(l.b, l.ldb, false)
		g.run()
		putObj(g)
	}
}

// setA and setB give g its operands. Both packers read element (row,
// depth) of op(A) or (col, depth) of op(B) at index row*rs + depth*ds.
func (g *gemmCall[T]) setA(a []T, lda int, transA bool) {
	g.a, g.ars, g.ads = a, lda, 1
	if transA {
		g.ars, g.ads = 1, lda
	}
}

func (g *gemmCall[T]) setB(b []T, ldb int, transB bool) {
	g.b, g.brs, g.bds = b, 1, ldb
	if transB {
		g.brs, g.bds = ldb, 1
	}
}

// checkGemm panics with a descriptive message when the arguments of Gemm do
// not describe matrices that fit in the given slices.
func checkGemm(transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("accel: Gemm with negative size m=%d n=%d k=%d", m, n, k))
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	checkMatrix("A", rowsA, colsA, lenA, lda)
	checkMatrix("B", rowsB, colsB, lenB, ldb)
	checkMatrix("C", m, n, lenC, ldc)
}

func checkMatrix(name string, rows, cols, length, ld int) {
	if rows == 0 || cols == 0 {
		return // an empty matrix is never read, whatever its stride
	}
	if ld < cols {
		panic(fmt.Sprintf("accel: Gemm: ld%s=%d is less than the %d columns of %s", name, ld, cols, name))
	}
	if length < (rows-1)*ld+cols {
		panic(fmt.Sprintf("accel: Gemm: %s has %d elements, a %dx%d matrix with stride %d needs %d",
			name, length, rows, cols, ld, (rows-1)*ld+cols))
	}
}

// scaleMatrix sets C = beta*C for an m x n matrix, writing zeros (not reading
// C) when beta is 0.
func scaleMatrix[T Float](m, n int, beta T, c []T, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// gemmCall holds the operands of one Gemm call after argument checking.
type gemmCall[T Float] struct {
	m, n, k  int
	alpha    T
	a        []T
	ars, ads int // op(A)(i, p) = a[i*ars + p*ads]
	b        []T
	brs, bds int // op(B)(p, j) = b[j*brs + p*bds]
	c        []T
	ldc      int
	kern     microKernel[T]
	// overwrite says that C's values are not to be read (beta 0): the
	// first depth block stores its products instead of adding them.
	overwrite bool
	serial    bool         // on the calling goroutine alone (gemmSerial)
	ep        *Epilogue[T] // applied to each tile of C when it is final; nil for none
	bPre      []T          // op(B) packed by the caller (see GemmPackedB); nil to pack here
	aPre      []T          // op(A) packed by the caller (see PackA); nil to pack here
	// aTaps, when not 0, says that op(A) is turned filters of aTaps taps
	// each (see GemmTurnedA): a[(d/aTaps)*ars + i*aTaps + aTaps-1-d%aTaps]
	// is op(A)(i, d), and ads is 0.
	aTaps int

	// The bodies of the two parallel loops, kept here so that running
	// them allocates nothing.
	pack  gemmPack[T]
	tasks gemmTasks[T]
	cols  gemmColumns[T]
}

// parallel reports whether g spreads its blocked product over the
// workers: unless it is serial (gemmSerial), from gemmParallelMin
// multiply-adds.
func (g *gemmCall[T]) parallel() bool {
	return numWorkers > 1 && !g.serial && g.m*g.n*g.k >= gemmParallelMin
}

// run performs the blocked multiplication described at the top of the file.
func (g *gemmCall[T]) run() {
	if g.takesPlanes() {
		g.runPlanes()
		return
	}
	mr, nr := g.kern.mr, g.kern.nr
	mc := max(mr, gemmMC/mr*mr)
	nc := max(nr, gemmNC/nr*nr)
	kcMax := min(gemmKC, g.k)
	parallel := g.parallel()
	byRows := g.aPre == nil && g.readsARows(ceilDiv(g.n, nr))

	colWidth, colTasks := g.columnTasks(nc, parallel)
	var aBuf, bBuf *[]T
	if g.aPre == nil {
		aBuf = getBuf[T](roundUp(min(mc, g.m), mr) * kcMax)
		defer putBuf(aBuf)
	}
	if g.bPre == nil && colTasks == 0 { // column tasks pack their own blocks
		bBuf = getBuf[T](kcMax * roundUp(min(nc, g.n), nr))
		defer putBuf(bBuf)
	}
	for ic := 0; ic < g.m; ic += mc {
		mb := min(mc, g.m-ic)
		for pc := 0; pc < g.k; pc += gemmKC {
			kb := min(gemmKC, g.k-pc)
			var aPack, aRows []T
			switch {
			case g.aPre != nil: // packed by the caller (see PackA)
				aPack = g.aPre[pc*roundUp(g.m, mr)+ic*kb:][:roundUp(mb, mr)*kb]
			case byRows:
				// A is read as it lies; only a ragged last panel is packed.
				aPack = (*aBuf)[:roundUp(mb, mr)*kb]
				aRows = g.a[ic*g.ars+pc:]
				if full := mb / mr * mr; full < mb {
					packPanels(aPack[full*kb:], g.a, g.ars, g.ads, ic+full, mb-full, pc, kb, mr)
				}
			default:
				aPack = (*aBuf)[:roundUp(mb, mr)*kb]
				g.packA(aPack, ic, mb, pc, kb, parallel)
			}
			if colTasks > 0 {
				g.cols = gemmColumns[T]{g: g, aPack: aPack, aRows: aRows, i0: ic, mb: mb, pc: pc, kb: kb, width: colWidth}
				ParallelLoop(colTasks, 1, &g.cols)
				continue
			}
			for jc := 0; jc < g.n; jc += nc {
				nb := min(nc, g.n-jc)
				var bPack []T
				var bStride, bOff int
				if g.bPre != nil {
					bPack, bStride, bOff = g.bPanels(jc, pc)
				} else {
					bPack, bStride, bOff = (*bBuf)[:kb*roundUp(nb, nr)], nr*kb, 0
					g.packB(bPack, jc, nb, pc, kb, parallel)
				}
				g.multiplyBlock(aPack, aRows, ic, mb, bPack, bStride, bOff, jc, nb, pc, kb, parallel)
			}
		}
	}
}

// bPanels returns where the B panels of columns from jc and depths from
// pc lie in the B packed by the caller as panels of the full depth: the
// kb-deep slice of panel jp starts at jp*nr*k + pc*nr.
func (g *gemmCall[T]) bPanels(jc, pc int) (panels []T, stride, off int) {
	nr := g.kern.nr
	return g.bPre[jc*g.k:], nr * g.k, pc * nr
}

// columnTasks returns how a parallel product splits C's columns when
// each task takes a block of columns of its own, packs that block of B
// and multiplies all of A's rows by it: the width of a block and the
// number of blocks, a multiple of the workers; no blocks when the
// product is not parallel or has too few columns, and its tasks split
// A's rows instead. Then every worker reads the B block that it packed,
// from its own L2 cache, and A's panels are read by all.
func (g *gemmCall[T]) columnTasks(nc int, parallel bool) (width, tasks int) {
	nr := g.kern.nr
	if !parallel || ceilDiv(g.n, nr) < numWorkers*gemmMinGroupPanels {
		return 0, 0
	}
	tasks = roundUp(ceilDiv(g.n, nc), numWorkers)
	width = roundUp(ceilDiv(g.n, tasks), nr)
	return width, ceilDiv(g.n, width)
}

// gemmColumns is the loop over the column blocks of columnTasks for one
// block of A's rows and depths.
type gemmColumns[T Float] struct {
	g            *gemmCall[T]
	aPack, aRows []T
	i0, mb       int
	pc, kb       int
	width        int
}

func (l *gemmColumns[T]) Range(lo, hi int) {
	g, nr, kb := l.g, l.g.kern.nr, l.kb
	var bBuf *[]T
	if g.bPre == nil {
		bBuf = getBuf[T](kb * roundUp(l.width, nr))
		defer putBuf(bBuf)
	}
	for t := lo; t < hi; t++ {
		jc := t * l.width
		nb := min(l.width, g.n-jc)
		var bPack []T
		var bStride, bOff int
		if g.bPre != nil {
			bPack, bStride, bOff = g.bPanels(jc, l.pc)
		} else {
			bPack, bStride, bOff = (*bBuf)[:kb*roundUp(nb, nr)], nr*kb, 0
			packPanels(bPack, g.b, g.brs, g.bds, jc, nb, l.pc, kb, nr)
		}
		tasks := g.blockTasks(l.aPack, l.aRows, l.i0, l.mb, bPack, bStride, bOff, jc, nb, l.pc, kb)
		tasks.Range(0, 1)
	}
}

// packB packs op(B)[pc:pc+kb, jc:jc+nb] into nr-wide micro-panels, splitting
// the panels over the worker pool when the multiplication is parallel.
func (g *gemmCall[T]) packB(dst []T, jc, nb, pc, kb int, parallel bool) {
	g.packPanelsOf(gemmPack[T]{dst: dst, x: g.b, rs: g.brs, ds: g.bds, r0: jc, rows: nb, d0: pc, depth: kb, w: g.kern.nr}, parallel)
}

// packA packs op(A)[i0:i0+mb, pc:pc+kb] into mr-tall micro-panels,
// splitting the panels over the worker pool when the multiplication is
// parallel.
func (g *gemmCall[T]) packA(dst []T, i0, mb, pc, kb int, parallel bool) {
	g.packPanelsOf(gemmPack[T]{dst: dst, x: g.a, rs: g.ars, ds: g.ads, taps: g.aTaps, r0: i0, rows: mb, d0: pc, depth: kb, w: g.kern.mr}, parallel)
}

// packPanelsOf runs p, over the worker pool when parallel. (A and B are
// packed one after the other, so one loop value in g serves both.)
func (g *gemmCall[T]) packPanelsOf(p gemmPack[T], parallel bool) {
	g.pack = p
	panels := ceilDiv(p.rows, p.w)
	if !parallel {
		g.pack.Range(0, panels)
		return
	}
	ParallelLoop(panels, gemmMinGroupPanels, &g.pack)
}

// gemmPack is the loop of packPanels over the w-wide micro-panels of
// X(r, d) = x[r*rs + d*ds], rows r0 to r0+rows and depths d0 to d0+depth
// (or, with taps, of turned filters: packTurnedPanels).
type gemmPack[T Float] struct {
	dst, x       []T
	rs, ds, taps int
	r0, rows, d0 int
	depth, w     int
}

func (p *gemmPack[T]) Range(lo, hi int) {
	r := lo * p.w
	rows := min(hi*p.w, p.rows) - r
	dst := p.dst[r*p.depth : hi*p.w*p.depth]
	if p.taps > 0 {
		packTurnedPanels(dst, p.x, p.rs, p.taps, p.r0+r, rows, p.d0, p.depth, p.w)
		return
	}
	packPanels(dst, p.x, p.rs, p.ds, p.r0+r, rows, p.d0, p.depth, p.w)
}

// multiplyBlock accumulates alpha*op(A)[i0:i0+mb, pc:pc+kb]*B into
// C[i0:i0+mb, jc:jc+nb]. A's micro-panel ip is aPack[ip*mr*kb:], or row
// i0+i of op(A) lies at aRows[i*ars:] when aRows is not nil (full panels
// are then read from there); the kb x nr panel jp of B starts at
// bPack[jp*bStride+bOff]. The work is cut into tasks, each a run of A
// panels times a group of B panels.
func (g *gemmCall[T]) multiplyBlock(aPack, aRows []T, i0, mb int, bPack []T, bStride, bOff, jc, nb, pc, kb int, parallel bool) {
	g.tasks = g.blockTasks(aPack, aRows, i0, mb, bPack, bStride, bOff, jc, nb, pc, kb)
	if !parallel {
		g.tasks.Range(0, 1)
		return
	}
	l := &g.tasks
	want := gemmTasksPerWorker * numWorkers
	l.runs = min(l.aPanels, want)
	if l.runs < want {
		l.groups = max(1, min(ceilDiv(want, l.runs), l.bPanels/gemmMinGroupPanels))
	}
	ParallelLoop(l.runs*l.groups, 1, l)
}

// blockTasks returns the loop of multiplyBlock as one task.
func (g *gemmCall[T]) blockTasks(aPack, aRows []T, i0, mb int, bPack []T, bStride, bOff, jc, nb, pc, kb int) gemmTasks[T] {
	return gemmTasks[T]{g: g, aPack: aPack, aRows: aRows, i0: i0, mb: mb, bPack: bPack, bStride: bStride, bOff: bOff,
		jc: jc, nb: nb, kb: kb, first: pc == 0 && g.overwrite, last: pc+kb == g.k,
		runs: 1, groups: 1, aPanels: ceilDiv(mb, g.kern.mr), bPanels: ceilDiv(nb, g.kern.nr)}
}

// gemmTasks is the loop of multiplyBlock over its tasks.
type gemmTasks[T Float] struct {
	g                *gemmCall[T]
	aPack, aRows     []T
	i0, mb           int
	bPack            []T
	bStride, bOff    int // panel jp of B starts at bPack[jp*bStride+bOff]
	jc, nb, kb       int
	first, last      bool
	runs, groups     int
	aPanels, bPanels int
}

func (l *gemmTasks[T]) Range(lo, hi int) {
	g := l.g
	// The scratch tile for ragged edges comes from the pool: a local
	// array would escape (it is passed to the kernel function value) and
	// be allocated on every call.
	eBuf := getBuf[T](maxTile)
	defer putBuf(eBuf)
	tile := (*eBuf)[:g.kern.mr*g.kern.nr]
	for t := lo; t < hi; t++ {
		run, grp := t/l.groups, t%l.groups
		ip0, ip1 := run*l.aPanels/l.runs, (run+1)*l.aPanels/l.runs
		p0, p1 := grp*l.bPanels/l.groups, (grp+1)*l.bPanels/l.groups
		mr, nr := g.kern.mr, g.kern.nr
		j0, j1 := p0*nr, min(p1*nr, l.nb)
		for ip := ip0; ip < ip1; ip++ {
			for jp := p0; jp < p1; jp++ {
				l.tile(ip, jp, tile)
			}
			if l.last && g.ep != nil && j0 < j1 {
				// The strip of C that A's panel makes is final: the
				// epilogue runs along its rows while they are in cache,
				// in one call per row rather than one per tile (a
				// product of depth 27 took a third of its time in
				// calls for 32 columns).
				i := ip * mr
				g.ep.apply(g.c[(l.i0+i)*g.ldc+l.jc+j0:], g.ldc, l.i0+i, l.jc+j0, min(mr, l.mb-i), j1-j0)
			}
		}
	}
}

// tile multiplies A's panel ip by B's panel jp into their tile of C.
// scratch is mr x nr, for the ragged edges.
func (l *gemmTasks[T]) tile(ip, jp int, scratch []T) {
	g := l.g
	mr, nr, kb := g.kern.mr, g.kern.nr, l.kb
	i, j := ip*mr, jp*nr
	rows, cols := min(mr, l.mb-i), min(nr, l.nb-j)
	bp := l.bPack[jp*l.bStride+l.bOff:][:nr*kb]
	ap := l.aPack[ip*mr*kb : (ip+1)*mr*kb]
	off := (l.i0+i)*g.ldc + l.jc + j
	byRows := l.aRows != nil && rows == mr // a full panel of A as it lies
	switch {
	case byRows && cols == nr:
		g.kern.rows(kb, g.alpha, l.aRows[i*g.ars:], g.ars, bp, g.c[off:], g.ldc, l.first)
	case rows == mr && cols == nr:
		g.kern.fn(kb, g.alpha, ap, bp, g.c[off:], g.ldc, l.first)
	default:
		if byRows {
			g.kern.rows(kb, g.alpha, l.aRows[i*g.ars:], g.ars, bp, scratch, nr, true)
		} else {
			g.kern.fn(kb, g.alpha, ap, bp, scratch, nr, true)
		}
		if l.first {
			for r := range rows {
				copy(g.c[off+r*g.ldc:][:cols], scratch[r*nr:][:cols])
			}
		} else {
			addTile(g.c[off:], g.ldc, scratch, nr, rows, cols)
		}
	}
}

// readsARows reports whether the micro-kernel reads op(A) as it lies
// rather than packed, for a task of this many B panels: where the kernel
// can (op(A) not transposed) and the A block serves so few panels that
// packing it costs about what multiplying it does. A convolution at
// batch 1 with a 7x7 or 14x14 output (2 to 7 panels of 32 columns) and
// thousands of weights per filter then reads its filters once, where
// packing them read and wrote each first: ResNet-18's forward at batch 1
// spent a quarter of its time packing.
//
// Not at a row stride that is a multiple of 4 KiB: the twelve rows' loads
// then fall in one set of the L1 cache, and the kernel ran at two thirds
// of its speed (lda 1024 and 3072, against the same speed as packed A at
// 576, 2304 and 4608).
func (g *gemmCall[T]) readsARows(panels int) bool {
	return g.kern.rows != nil && g.ads == 1 && panels <= aRowsMaxPanels && rowsStrideFits[T](g.ars)
}

// rowsStrideFits reports whether rows lda elements apart may be read as
// they lie (see readsARows).
func rowsStrideFits[T Float](lda int) bool {
	var zero T
	return lda*int(unsafe.Sizeof(zero))%4096 != 0
}

// aRowsMaxPanels is the most B panels for which a task reads A as it
// lies (see readsARows).
const aRowsMaxPanels = 8

// ReadsARows reports whether a product of an m-row op(A), not
// transposed, with row stride lda, and n columns reads A as it lies
// rather than packing it (Gemm, GemmEpilogue and GemmPackedB do so where
// the micro-kernel can and the product has few columns): then packing A
// once beforehand (PackA) only adds work.
func ReadsARows[T Float](m, n, lda int) bool {
	k := kernelForRows[T](m)
	return k.rows != nil && ceilDiv(n, k.nr) <= aRowsMaxPanels && rowsStrideFits[T](lda)
}

// packPanels copies the rows x depth submatrix X[r0:r0+rows, d0:d0+depth] of
// X(r, d) = x[r*rs + d*ds] into dst as w-row micro-panels: panel q holds rows
// r0+q*w ... r0+q*w+w-1, stored depth-major (element (r, d) of the panel at
// d*w + r). Rows past the end are zero-filled. Exactly one of rs and ds is 1
// for row-major operands; the loop order follows the unit stride.
func packPanels[T Float](dst, x []T, rs, ds, r0, rows, d0, depth, w int) {
	if rs == 1 && ds != 1 {
		packRunPanels(dst, x, ds, r0, rows, d0, depth, w)
		return
	}
	for q := 0; q*w < rows; q++ {
		panel := dst[q*w*depth : (q+1)*w*depth]
		cnt := min(w, rows-q*w)
		base := (r0+q*w)*rs + d0*ds
		if ds == 1 && transposePanel(panel, x, rs, base, cnt, depth, w) {
			// done by blocks of 8x8 (float32 with AVX2)
		} else if ds == 1 {
			for r := range cnt {
				src := x[base+r*rs : base+r*rs+depth]
				for d, v := range src {
					panel[d*w+r] = v
				}
			}
		} else {
			for d := range depth {
				out := panel[d*w : d*w+cnt]
				at := base + d*ds
				for r := range out {
					out[r] = x[at+r*rs]
				}
			}
		}
	}
	clearLastPanel(dst, rows, depth, w)
}

// packRunPanels is packPanels for an X whose rows are runs of x (rs 1):
// it copies x one run of depth d at a time into every panel, so that x is
// read in order rather than a panel's width at a time down its depth (a
// 512x512 B packed a panel at a time took half as long as its products).
func packRunPanels[T Float](dst, x []T, ds, r0, rows, d0, depth, w int) {
	panels := ceilDiv(rows, w)
	for d := range depth {
		run := x[r0+(d0+d)*ds:][:rows]
		for q := range panels {
			copy(dst[q*w*depth+d*w:][:w], run[q*w:min(rows, q*w+w)])
		}
	}
	clearLastPanel(dst, rows, depth, w)
}

// packTurnedPanels is packPanels for turned filters (GemmTurnedA):
// X(r, d) = x[(d/taps)*rs + r*taps + taps-1-d%taps]. Each filter's taps
// for all the rows lie in one run of rows*taps elements of x, read in
// order, one filter after another: a panel at a time, which read each
// filter's run a panel's share at a time, took twice as long.
func packTurnedPanels[T Float](dst, x []T, rs, taps, r0, rows, d0, depth, w int) {
	panels := ceilDiv(rows, w)
	for d := 0; d < depth; {
		f, t := (d0+d)/taps, (d0+d)%taps
		n := min(taps-t, depth-d) // the depths of filter f in this block
		run := x[f*rs+r0*taps:][:rows*taps]
		for q := range panels {
			cnt := min(w, rows-q*w)
			panel := dst[q*w*depth+d*w:][:(n-1)*w+cnt]
			if n == 9 && taps == 9 {
				for r := range cnt {
					s := run[(q*w+r)*9:][:9]
					p := panel[r:]
					_ = p[8*w]
					p[0], p[w], p[2*w], p[3*w], p[4*w], p[5*w], p[6*w], p[7*w], p[8*w] = s[8], s[7], s[6], s[5], s[4], s[3], s[2], s[1], s[0]
				}
				continue
			}
			for r := range cnt {
				src := run[(q*w+r)*taps:][:taps-t]
				for i := range n {
					panel[i*w+r] = src[taps-1-t-i]
				}
			}
		}
		d += n
	}
	clearLastPanel(dst, rows, depth, w)
}

// clearLastPanel zeroes the rows past rows in the last of the w-wide,
// depth-deep micro-panels at dst that hold rows rows.
func clearLastPanel[T Float](dst []T, rows, depth, w int) {
	panels := ceilDiv(rows, w)
	if cnt := rows - (panels-1)*w; cnt < w {
		last := dst[(panels-1)*w*depth:]
		for d := range depth {
			clear(last[d*w+cnt : d*w+w])
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func roundUp(a, b int) int { return ceilDiv(a, b) * b }

// addTile adds the rows x cols top-left corner of tile (row stride nr) to
// C at c (row stride ldc).
func addTile[T Float](c []T, ldc int, tile []T, nr, rows, cols int) {
	if add32 := addVecReluKernel; add32 != nil {
		if c32, ok := any(c).([]float32); ok {
			t32 := any(tile).([]float32)
			for r := range rows {
				add32(c32[r*ldc:][:cols], t32[r*nr:][:cols], false)
			}
			return
		}
	}
	for r := range rows {
		dst := c[r*ldc:][:cols]
		for s, v := range tile[r*nr : r*nr+cols] {
			dst[s] += v
		}
	}
}
