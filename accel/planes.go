package accel

import "math"

// Products of whole 7x7 planes.
//
// A convolution of one image with 7x7 output maps (the last stage of a
// network for 224x224 images: ResNet's 512 channels, MobileNet's 160 to
// 960) is a product of few columns: 49, or 196 for 14x14 maps. Gemm's
// 32-wide panels then leave 15 of every 64 columns empty, and their
// multiply-adds are wasted. plane7Kernel takes 49 columns at a time,
// three vectors of 16 and one more column that it sums along the depth,
// so that no lane is idle (see kernel49_amd64.s). Its B panels are split
// to suit: for each depth block, 48 columns depth-major, then the 49th
// along the depth (splitPack). A is read as it lies, seven rows at
// a time, as the rows kernels read it.

// planeCols is the width of a split panel.
const planeCols = 49

// planeRows is the height of plane7Kernel's tile.
const planeRows = 7

// planesMaxPanels is the most split panels (of 49 columns) a product
// may have to take plane7Kernel: the A panel is read from memory for the
// first and from L1 for the rest.
const planesMaxPanels = 4

// planesBlock is the number of elements of B's split panels for one
// block of depth: 392 KiB, which stay in L2 while A's rows stream past
// (2048 depths of 49 columns, 512 of 196). Against blocks of 256 depths,
// ResNet-18's 512x512 7x7 convolutions took 0.8 of their time; those
// with 196 columns took 0.9 of it at 512 depths against 2048.
const planesBlock = 2048 * planeCols

// planesSplitRuns is the number of runs of seven rows per worker below
// which a parallel product of planes makes each panel of each run a task
// of its own. At 64 x 196 x 384 (ten runs, the last of one row) whole
// runs left a worker idle for much of the last one: MobileNet v2's
// projections of 14x14 planes took 0.85–0.9 of their time on two
// threads. Its expansions (55 runs) took 1.05 of theirs.
const planesSplitRuns = 8

// planesKC is the depth of a block of a product of planes of n columns:
// planesBlock elements, in whole steps of 16.
func planesKC(n int) int { return max(16, planesBlock/n/16*16) }

// planesDepth is the depth of the blocks of a product of planes of n
// columns and depth k: planesKC at most, the blocks as near the same
// depth as steps of 16 allow, so that no block is a short remainder.
func planesDepth(n, k int) int {
	kc := planesKC(n)
	blocks := ceilDiv(k, kc)
	return min(kc, roundUp(ceilDiv(k, blocks), 16))
}

// plane7Kernel multiplies seven rows of A, row i at a[i*lda:], by a
// split panel b of kc depths into a 7 x 49 tile of C: C += alpha*A*B,
// or with store C = alpha*A*B, asking the cache for the rows of the next
// tile's A at next (same lda) on the way, and finishing the tile with ep
// as it stores it when ep.on. nil where the CPU has no such kernel.
var plane7Kernel func(kc int, alpha float32, a []float32, lda int, b, c []float32, ldc int, store bool, next []float32, ep planeEpilogue)

// plane1Kernel multiplies one row of A, kc values at a, by a split panel
// b into 49 values of C at c, as plane7Kernel does seven (C += alpha*a*B,
// or with store C = alpha*a*B): the last row of a product whose rows are
// one more than a multiple of seven (64, 512), which a tile of seven
// would compute seven times over: MobileNet v2's 14x14 projections to 64
// channels took 0.93 of their time. nil where the CPU has no such kernel.
var plane1Kernel func(kc int, alpha float32, a, b, c []float32, store bool)

// A planeEpilogue is an epilogue that plane7Kernel applies to its tile as
// it stores it, when on: row r times scale[r] plus bias[r] (nil for 1 and 0),
// plus row r of add (row stride addStride; nil for none), bounded to
// [lo, hi]. Applied there rather than in a pass over the stored tile,
// MobileNet v2's products of planes took 0.98 of their time.
type planeEpilogue struct {
	on               bool
	scale, bias, add []float32
	addStride        int
	lo, hi           float32
}

// TakesPlanes reports whether Gemm and GemmEpilogue multiply an m-row
// op(A), not transposed and of row stride lda, by n columns as whole 7x7
// planes: in float32 on a CPU with the kernel, n a multiple of 49 of at
// most planesMaxPanels panels, and at least seven rows. A caller with a
// convolution's column matrix then writes it as it lies rather than
// packed.
func TakesPlanes[T Float](m, n, lda int) bool {
	var zero T
	_, f32 := any(zero).(float32)
	return f32 && plane7Kernel != nil && n%planeCols == 0 && n/planeCols <= planesMaxPanels &&
		m >= planeRows && rowsStrideFits[T](lda)
}

// takesPlanes reports whether g is a product of planes (TakesPlanes),
// with neither operand packed by the caller.
func (g *gemmCall[T]) takesPlanes() bool {
	return g.aPre == nil && g.bPre == nil && g.ads == 1 && TakesPlanes[T](g.m, g.n, g.ars)
}

// runPlanes is run for a product of planes: for each depth block, B is
// packed into split panels, then each run of seven rows of A is
// multiplied by them, the runs (or, for few runs, each of their panels)
// spread over the workers. In parallel, a product of at least as many
// panels as workers is spread by panels instead (planePanels).
func (g *gemmCall[T]) runPlanes() {
	panels := g.n / planeCols
	kc := planesDepth(g.n, g.k)
	kcMax := min(kc, g.k)
	l := getObj[planeTasks]() // recycled: the workers are handed it
	defer putObj(l)
	*l = planeTasks{
		a: any(g.a).([]float32), c: any(g.c).([]float32), lda: g.ars, ldc: g.ldc,
		m: g.m, n: g.n, alpha: any(g.alpha).(float32),
	}
	if g.ep != nil {
		l.ep = any(g.ep).(*Epilogue[float32])
	}
	b := any(g.b).([]float32)
	runs := ceilDiv(g.m, planeRows)
	parallel := g.parallel()
	if parallel && panels >= numWorkers && g.m > g.n {
		// Each worker packs all of B for itself and multiplies its share
		// of the runs of A by it: A, the larger, is read once, each part
		// by one core. (MobileNet v2's 14x14 expansions on two threads
		// took 0.97 of the time of planePanels, where each worker reads
		// all of A.)
		ParallelRange(numWorkers, 1, planeRuns{l: l, b: b, rs: g.brs, ds: g.bds, k: g.k, kc: kc, overwrite: g.overwrite, runs: runs})
		return
	}
	if parallel && panels >= numWorkers {
		// Each worker takes whole panels, packs them and multiplies
		// every run of A by them, depth block after depth block: no
		// worker waits for another's packing, and each reads the columns
		// of B it packed from its own cache.
		ParallelRange(panels, 1, planePanels{l: l, b: b, rs: g.brs, ds: g.bds, k: g.k, kc: kc, overwrite: g.overwrite})
		return
	}
	bBuf := getBuf[float32](panels * planeCols * kcMax)
	defer putBuf(bBuf)
	tasks := runs
	l.qs = panels
	if parallel && runs < planesSplitRuns*numWorkers {
		tasks, l.qs = runs*panels, 1
	}
	for pc := 0; pc < g.k; pc += kc {
		kb := min(kc, g.k-pc)
		l.b = (*bBuf)[:panels*planeCols*kb]
		pack := splitPack{dst: l.b, x: b, rs: g.brs, ds: g.bds, pc: pc, kb: kb, panels: panels}
		l.pc, l.kb = pc, kb
		l.first, l.last = pc == 0 && g.overwrite, pc+kb == g.k
		if parallel {
			ParallelRange(kb, 64, pack)
			ParallelLoop(tasks, 1, l)
		} else {
			pack.Range(0, kb)
			l.Range(0, tasks)
		}
	}
}

// planePanels is runPlanes' loop over the panels of B, each worker's
// panels packed and multiplied by every run of A on that worker (l
// holds the product, its columns those of the first panel).
type planePanels struct {
	l             *planeTasks
	b             []float32
	rs, ds, k, kc int
	overwrite     bool
}

func (p planePanels) Range(lo, hi int) {
	l := *p.l // the panels lo to hi-1 as a product of their own
	l.n, l.qs, l.col0 = (hi-lo)*planeCols, hi-lo, lo*planeCols
	l.c = l.c[l.col0:]
	planeBlocks(l, p.b[l.col0*p.rs:], p.rs, p.ds, p.k, p.kc, p.overwrite, 0, ceilDiv(l.m, planeRows))
}

// planeBlocks is the work of one worker of planePanels or planeRuns:
// for each depth block, l's panels of B (op(B)'s columns from x on)
// packed into a buffer of its own, then runs r0 to r1-1 of A times them.
func planeBlocks(l planeTasks, x []float32, rs, ds, k, kc int, overwrite bool, r0, r1 int) {
	bp := getBuf[float32](l.n * min(kc, k))
	defer putBuf(bp)
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		l.b = (*bp)[:l.n*kb]
		pack := splitPack{dst: l.b, x: x, rs: rs, ds: ds, pc: pc, kb: kb, panels: l.n / planeCols}
		pack.Range(0, kb)
		l.pc, l.kb = pc, kb
		l.first, l.last = pc == 0 && overwrite, pc+kb == k
		l.Range(r0, r1)
	}
}

// planeRuns is runPlanes' loop over the workers, each packing all of B
// into a buffer of its own and multiplying its share of the runs of A
// (l holds the product) by it, depth block after depth block.
type planeRuns struct {
	l             *planeTasks
	b             []float32
	rs, ds, k, kc int
	overwrite     bool
	runs          int
}

func (p planeRuns) Range(lo, hi int) {
	l := *p.l
	l.qs = l.n / planeCols
	planeBlocks(l, p.b, p.rs, p.ds, p.k, p.kc, p.overwrite, lo*p.runs/numWorkers, hi*p.runs/numWorkers)
}

// splitPack packs op(B)[pc:pc+kb, 0:panels*49], element (p, j) at
// x[j*rs + p*ds], into split panels (see plane7Kernel) in dst; Range
// packs depths lo to hi-1 of every panel.
type splitPack struct {
	dst, x         []float32
	rs, ds, pc, kb int
	panels         int
}

func (l *splitPack) Range(lo, hi int) {
	for q := range l.panels {
		panel := l.dst[q*planeCols*l.kb:][:planeCols*l.kb]
		last := panel[(planeCols-1)*l.kb:]
		if l.rs == 1 && splitRowsKernel != nil && hi > lo {
			splitRowsKernel(hi-lo, l.x[q*planeCols+(l.pc+lo)*l.ds:], l.ds, panel[lo*(planeCols-1):], last[lo:])
			continue
		}
		for d := lo; d < hi; d++ {
			row := panel[d*(planeCols-1):][:planeCols-1]
			at := (q*planeCols)*l.rs + (l.pc+d)*l.ds
			if l.rs == 1 {
				copy(row, l.x[at:][:planeCols-1])
			} else {
				for j := range row {
					row[j] = l.x[at+j*l.rs]
				}
			}
			last[d] = l.x[at+(planeCols-1)*l.rs]
		}
	}
}

// splitRowsKernel packs n rows of a panel of B whose columns lie side by
// side, row d at src[d*ds:], into a split panel: its first 48 columns
// to dst[d*48:], its last to last[d]; nil where the CPU has no such
// kernel.
var splitRowsKernel func(n int, src []float32, ds int, dst, last []float32)

// planeTasks is runPlanes' loop over the runs of seven rows of A for one
// depth block.
type planeTasks struct {
	a, b, c     []float32
	lda, ldc    int
	m, n        int
	alpha       float32
	pc, kb      int
	first, last bool
	ep          *Epilogue[float32]
	// qs is the number of panels a task multiplies: all of them, so that
	// a run's rows of A are read from memory once, or one (see
	// planesSplitRuns).
	qs int
	// col0 is the column of the whole product that c's first is (where
	// a worker multiplies panels of its own).
	col0 int
}

func (l *planeTasks) Range(lo, hi int) {
	per := l.n / planeCols / l.qs // the tasks of a run
	for t := lo; t < hi; t++ {
		run, q0 := t/per, t%per*l.qs
		i := run * planeRows
		rows := min(planeRows, l.m-i)
		if rows < planeRows {
			l.ragged(i, rows, q0)
			if l.last && l.ep != nil {
				c0 := q0 * planeCols
				l.ep.apply(l.c[i*l.ldc+c0:], l.ldc, i, l.col0+c0, rows, l.qs*planeCols)
			}
			continue
		}
		next := l.a[i*l.lda+l.pc:]
		if i+2*planeRows <= l.m {
			next = l.a[(i+planeRows)*l.lda+l.pc:]
		}
		var ep planeEpilogue
		if l.last && l.ep != nil {
			ep = l.epilogueFrom(i)
		}
		for q := q0; q < q0+l.qs; q++ {
			if ep.on && l.ep.Add != nil {
				ep.add = l.ep.Add[i*l.ep.AddStride+l.col0+q*planeCols:]
			}
			l.tile(l.a[i*l.lda+l.pc:], l.lda, q, l.c[i*l.ldc+q*planeCols:], l.ldc, l.first, next, ep)
		}
		if l.last && l.ep != nil && !ep.on {
			c0 := q0 * planeCols
			l.ep.apply(l.c[i*l.ldc+c0:], l.ldc, i, l.col0+c0, rows, l.qs*planeCols)
		}
	}
}

// tile multiplies seven rows of A at a by split panel q into C at c,
// finished by ep.
func (l *planeTasks) tile(a []float32, lda, q int, c []float32, ldc int, store bool, next []float32, ep planeEpilogue) {
	plane7Kernel(l.kb, l.alpha, a, lda, l.b[q*planeCols*l.kb:][:planeCols*l.kb], c, ldc, store, next, ep)
}

// epilogueFrom returns the product's epilogue for the seven rows from
// row i, as the kernel applies it to a tile (its add still to be placed
// at the tile's columns), off where the kernel cannot apply it: a
// column bias.
func (l *planeTasks) epilogueFrom(i int) (ep planeEpilogue) {
	e := l.ep
	if e.ColBias != nil {
		return ep
	}
	ep = planeEpilogue{on: true, addStride: e.AddStride, lo: float32(math.Inf(-1)), hi: float32(math.Inf(1))}
	if e.RowScale != nil {
		ep.scale = e.RowScale[i:][:planeRows]
	}
	if e.RowBias != nil {
		ep.bias = e.RowBias[i:][:planeRows]
	}
	if e.Relu {
		ep.lo = 0
	}
	if e.Capped {
		ep.hi = e.Cap
	}
	return ep
}

// ragged multiplies the last rows < 7 of A, from row i, by the task's
// panels from q0: copied, with rows of zeros after them, into a block of
// seven, their products go through a tile of scratch into C.
func (l *planeTasks) ragged(i, rows, q0 int) {
	if rows == 1 && plane1Kernel != nil {
		for q := q0; q < q0+l.qs; q++ {
			plane1Kernel(l.kb, l.alpha, l.a[i*l.lda+l.pc:][:l.kb], l.b[q*planeCols*l.kb:][:planeCols*l.kb], l.c[i*l.ldc+q*planeCols:], l.first)
		}
		return
	}
	ap := getBuf[float32](planeRows * l.kb)
	defer putBuf(ap)
	tp := getBuf[float32](planeRows * planeCols)
	defer putBuf(tp)
	a, tile := (*ap)[:planeRows*l.kb], (*tp)[:planeRows*planeCols]
	clear(a[rows*l.kb:])
	for r := range rows {
		copy(a[r*l.kb:][:l.kb], l.a[(i+r)*l.lda+l.pc:])
	}
	for q := q0; q < q0+l.qs; q++ {
		l.tile(a, l.kb, q, tile, planeCols, true, a, planeEpilogue{})
		c := l.c[i*l.ldc+q*planeCols:]
		if l.first {
			for r := range rows {
				copy(c[r*l.ldc:][:planeCols], tile[r*planeCols:][:planeCols])
			}
		} else {
			addTile(c, l.ldc, tile, planeCols, rows, planeCols)
		}
	}
}
