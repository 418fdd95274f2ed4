package accel

import (
	"fmt"
	"unsafe"
)

// Gemm blocking, in the classic Goto/BLIS arrangement. For one call:
//
//	for jc over columns of C in steps of gemmNC     (B block: kc x nc, shared)
//	  for pc over the k dimension in steps of gemmKC
//	    pack op(B)[pc:pc+kc, jc:jc+nc] into nr-wide micro-panels
//	    for ic over rows of C in steps of gemmMC   (parallel tasks)
//	      pack op(A)[ic:ic+mc, pc:pc+kc] into mr-tall micro-panels
//	      for jr over the nr-wide panels of B      (one panel stays in L1)
//	        for ir over the mr-tall panels of A    (the A block stays in L2)
//	          micro-kernel: C[mr x nr] += alpha * Apanel * Bpanel
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
	gemmMC = 96   // rows of op(A) per packed block (rounded to a multiple of mr)
	gemmKC = 256  // depth of one packed block
	gemmNC = 3072 // columns of op(B) per packed block (rounded to a multiple of nr)

	// gemmTasksPerWorker is how many tasks Gemm aims for per worker so that
	// uneven blocks still balance.
	gemmTasksPerWorker = 3
	// gemmMinGroupPanels is the fewest B micro-panels a task handles when a
	// row block is split by columns; it keeps re-packing A cheap.
	gemmMinGroupPanels = 4
)

// Gemm computes C = alpha*op(A)*op(B) + beta*C for row-major matrices.
// op(A) is m x k (A is stored k x m when transA), op(B) is k x n (B is stored
// n x k when transB) and C is m x n. lda, ldb and ldc are the row strides.
// When beta is 0, C is not read, so NaNs in C are ignored; when alpha is 0 or
// k is 0, A and B are not read.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
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
		kern: kernelForRows[T](m), overwrite: beta == 0,
	}
	g.setA(a, lda, transA)
	g.setB(b, ldb, transB)
	g.run()
	putObj(g)
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
	ep        *Epilogue[T] // applied to each tile of C when it is final; nil for none
	bPre      []T          // op(B) packed by the caller (see GemmPackedB); nil to pack here
	aPre      []T          // op(A) packed by the caller (see PackA); nil to pack here

	// The bodies of the two parallel loops, kept here so that running
	// them allocates nothing.
	pack  gemmPackB[T]
	tasks gemmTasks[T]
}

// run performs the blocked multiplication described at the top of the file.
func (g *gemmCall[T]) run() {
	mr, nr := g.kern.mr, g.kern.nr
	// Spread the rows evenly over the row blocks so parallel tasks match.
	mc := max(mr, gemmMC/mr*mr)
	mc = roundUp(ceilDiv(g.m, ceilDiv(g.m, mc)), mr)
	nc := max(nr, gemmNC/nr*nr)
	kcMax := min(gemmKC, g.k)
	parallel := numWorkers > 1 && g.m*g.n*g.k >= gemmParallelMin
	if parallel {
		mc = balancedRowBlock(g.m, mc, mr, numWorkers)
	}

	if g.bPre != nil {
		// op(B) is packed already, as panels of the full depth: the kb-deep
		// slice of panel jp at depth pc starts at jp*nr*k + pc*nr.
		for jc := 0; jc < g.n; jc += nc {
			nb := min(nc, g.n-jc)
			for pc := 0; pc < g.k; pc += gemmKC {
				kb := min(gemmKC, g.k-pc)
				panels := g.bPre[jc*g.k:]
				g.multiplyBlock(panels, nr*g.k, pc*nr, jc, nb, pc, kb, mc, parallel)
			}
		}
		return
	}

	bBuf := getBuf[T](kcMax * roundUp(min(nc, g.n), nr))
	defer putBuf(bBuf)

	for jc := 0; jc < g.n; jc += nc {
		nb := min(nc, g.n-jc)
		for pc := 0; pc < g.k; pc += gemmKC {
			kb := min(gemmKC, g.k-pc)
			bPack := (*bBuf)[:kb*roundUp(nb, nr)]
			g.packB(bPack, jc, nb, pc, kb, parallel)
			g.multiplyBlock(bPack, nr*kb, 0, jc, nb, pc, kb, mc, parallel)
		}
	}
}

// balancedRowBlock returns the rows per block, a multiple of mr near mc
// (at most twice it), for which the workers' shares of m rows differ
// least: blocks go round the workers, so with three blocks on two
// workers one worker does two (ResNet-18's 256 filters at batch 1 scaled
// 1.58 times on two threads with blocks of 96 rows; 2 blocks of 132 make
// the shares 132 and 124).
func balancedRowBlock(m, mc, mr, workers int) int {
	best, worst := mc, ceilDiv(ceilDiv(m, mc), workers)*mc
	for rb := workers; rb <= 4*workers*ceilDiv(m, mc); rb += workers {
		c := roundUp(ceilDiv(m, rb), mr)
		if c > 2*mc {
			continue
		}
		if c < mr || ceilDiv(m, c) < workers {
			break
		}
		if w := ceilDiv(ceilDiv(m, c), workers) * c; w < worst {
			best, worst = c, w
		}
	}
	return best
}

// packB packs op(B)[pc:pc+kb, jc:jc+nb] into nr-wide micro-panels, splitting
// the panels over the worker pool when the multiplication is parallel.
func (g *gemmCall[T]) packB(dst []T, jc, nb, pc, kb int, parallel bool) {
	panels := ceilDiv(nb, g.kern.nr)
	g.pack = gemmPackB[T]{g: g, dst: dst, jc: jc, nb: nb, pc: pc, kb: kb}
	if !parallel {
		g.pack.Range(0, panels)
		return
	}
	ParallelLoop(panels, gemmMinGroupPanels, &g.pack)
}

// gemmPackB is the loop of packB over B micro-panels.
type gemmPackB[T Float] struct {
	g              *gemmCall[T]
	dst            []T
	jc, nb, pc, kb int
}

func (p *gemmPackB[T]) Range(lo, hi int) {
	g, nr, kb := p.g, p.g.kern.nr, p.kb
	j0 := lo * nr
	cols := min(hi*nr, p.nb) - j0
	packPanels(p.dst[j0*kb:hi*nr*kb], g.b, g.brs, g.bds, p.jc+j0, cols, p.pc, kb, nr)
}

// multiplyBlock accumulates alpha*op(A)[:, pc:pc+kb]*B into C[:, jc:jc+nb],
// where the kb x nr panel jp of B starts at bPack[jp*bStride+bOff].
// The work is cut into tasks, each one mc-row block of C times a group of B
// panels; a task packs its own block of A into a pooled buffer.
func (g *gemmCall[T]) multiplyBlock(bPack []T, bStride, bOff, jc, nb, pc, kb, mc int, parallel bool) {
	nr := g.kern.nr
	rowBlocks := ceilDiv(g.m, mc)
	panels := ceilDiv(nb, nr)
	groups := 1
	if parallel {
		want := gemmTasksPerWorker * numWorkers
		groups = max(1, min(ceilDiv(want, rowBlocks), panels/gemmMinGroupPanels))
	}
	tasks := rowBlocks * groups
	g.tasks = gemmTasks[T]{g: g, bPack: bPack, bStride: bStride, bOff: bOff, jc: jc, nb: nb, pc: pc, kb: kb, mc: mc, groups: groups, panels: panels}
	if !parallel {
		g.tasks.Range(0, tasks)
		return
	}
	ParallelLoop(tasks, 1, &g.tasks)
}

// gemmTasks is the loop of multiplyBlock over its tasks.
type gemmTasks[T Float] struct {
	g                  *gemmCall[T]
	bPack              []T
	bStride, bOff      int // panel jp of B starts at bPack[jp*bStride+bOff]
	jc, nb, pc, kb, mc int
	groups, panels     int
}

func (l *gemmTasks[T]) Range(lo, hi int) {
	g, mc, kb := l.g, l.mc, l.kb
	var aBuf *[]T // A's packed block, when A is not packed already
	if g.aPre == nil {
		aBuf = getBuf[T](mc * kb)
		defer putBuf(aBuf)
	}
	// The scratch tile for ragged edges comes from the pool too: a
	// local array would escape (it is passed to the kernel function
	// value) and be allocated on every call.
	eBuf := getBuf[T](maxTile)
	defer putBuf(eBuf)
	packedRow := -1
	mr := g.kern.mr
	for t := lo; t < hi; t++ {
		rb, grp := t/l.groups, t%l.groups
		i0 := rb * mc
		mb := min(mc, g.m-i0)
		p0, p1 := grp*l.panels/l.groups, (grp+1)*l.panels/l.groups
		var aPack []T
		var aRows []T // A as it lies, from row i0 and depth pc, when it is read so
		switch {
		case g.aPre != nil: // packed by the caller (see PackA)
			aPack = g.aPre[l.pc*roundUp(g.m, mr)+i0*kb:][:roundUp(mb, mr)*kb]
		case g.readsARows(p1 - p0):
			aPack = (*aBuf)[:roundUp(mb, mr)*kb]
			aRows = g.a[i0*g.ars+l.pc:]
			if full := mb / mr * mr; full < mb && rb != packedRow {
				// Only the ragged last panel is packed.
				packPanels(aPack[full*kb:], g.a, g.ars, g.ads, i0+full, mb-full, l.pc, kb, mr)
				packedRow = rb
			}
		default:
			aPack = (*aBuf)[:roundUp(mb, mr)*kb]
			if rb != packedRow { // consecutive tasks share a row block
				packPanels(aPack, g.a, g.ars, g.ads, i0, mb, l.pc, kb, mr)
				packedRow = rb
			}
		}
		g.macroKernel(aPack, aRows, mb, i0, l.bPack, l.bStride, l.bOff, l.nb, l.jc, p0, p1, kb, l.pc == 0 && g.overwrite, l.pc+kb == g.k, (*eBuf)[:mr*g.kern.nr])
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

// macroKernel multiplies a packed block of A (mb rows starting at row i0 of C)
// by the B panels [p0, p1) of a packed block of B (nb columns starting at
// column jc of C, panel jp at bPack[jp*bStride+bOff]), adding alpha times
// the product into C, or with first storing it there (C's old values are
// not read). last says that this is the final depth block, after which
// each finished tile gets the epilogue.
// tile is mr x nr scratch for the ragged edges.
func (g *gemmCall[T]) macroKernel(aPack, aRows []T, mb, i0 int, bPack []T, bStride, bOff, nb, jc, p0, p1, kb int, first, last bool, tile []T) {
	mr, nr := g.kern.mr, g.kern.nr
	kernel, rowsKernel := g.kern.fn, g.kern.rows
	ep := g.ep
	if !last {
		ep = nil
	}
	for jp := p0; jp < p1; jp++ {
		bp := bPack[jp*bStride+bOff:][:nr*kb]
		j := jp * nr
		cols := min(nr, nb-j)
		for ip := 0; ip*mr < mb; ip++ {
			ap := aPack[ip*mr*kb : (ip+1)*mr*kb]
			i := ip * mr
			rows := min(mr, mb-i)
			off := (i0+i)*g.ldc + jc + j
			byRows := aRows != nil && rows == mr // a full panel of A as it lies
			switch {
			case byRows && cols == nr:
				rowsKernel(kb, g.alpha, aRows[i*g.ars:], g.ars, bp, g.c[off:], g.ldc, first)
			case rows == mr && cols == nr:
				kernel(kb, g.alpha, ap, bp, g.c[off:], g.ldc, first)
			default:
				if byRows {
					rowsKernel(kb, g.alpha, aRows[i*g.ars:], g.ars, bp, tile, nr, true)
				} else {
					kernel(kb, g.alpha, ap, bp, tile, nr, true)
				}
				if first {
					for r := range rows {
						copy(g.c[off+r*g.ldc:][:cols], tile[r*nr:][:cols])
					}
				} else {
					addTile(g.c[off:], g.ldc, tile, nr, rows, cols)
				}
			}
			if ep != nil {
				ep.apply(g.c[off:], g.ldc, i0+i, jc+j, rows, cols)
			}
		}
	}
}

// packPanels copies the rows x depth submatrix X[r0:r0+rows, d0:d0+depth] of
// X(r, d) = x[r*rs + d*ds] into dst as w-row micro-panels: panel q holds rows
// r0+q*w ... r0+q*w+w-1, stored depth-major (element (r, d) of the panel at
// d*w + r). Rows past the end are zero-filled. Exactly one of rs and ds is 1
// for row-major operands; the loop order follows the unit stride.
func packPanels[T Float](dst, x []T, rs, ds, r0, rows, d0, depth, w int) {
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
		} else if rs == 1 {
			// The panel's rows are runs of x: whole copies.
			for d := range depth {
				at := base + d*ds
				copy(panel[d*w:d*w+cnt], x[at:at+cnt])
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
		if cnt < w {
			for d := range depth {
				clear(panel[d*w+cnt : d*w+w])
			}
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
