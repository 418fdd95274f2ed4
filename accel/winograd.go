package accel

// Winograd's minimal filtering F(4x4, 3x3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016): a 3x3 convolution
// at unit stride computes each 4x4 tile of an output map from the 6x6
// patch of input under it as
//
//	Y = Aᵀ [ Σ_c (G g_c Gᵀ) ⊙ (Bᵀ d_c B) ] A
//
// so that the 36 positions of the transformed patches are 36 independent
// products of the transformed filters (maps x channels) with the
// transformed patches (channels x tiles): 36 multiplications per tile and
// channel pair where the direct product takes 144. The transforms use the
// interpolation points 0, ±1, ±2 and ∞.

// winoTile is the side of an output tile, winoPatch that of the input
// patch under it, and winoPos the number of positions of a transformed
// patch.
const (
	winoTile  = 4
	winoPatch = 6
	winoPos   = winoPatch * winoPatch
)

// WinogradApplies reports whether ConvWinograd computes a convolution of
// geometry g: a 3x3 kernel at stride 1 without dilation (any padding).
func WinogradApplies(g ConvGeom) bool {
	return g.KernelH == 3 && g.KernelW == 3 && g.StrideH == 1 && g.StrideW == 1 &&
		g.DilateH == 1 && g.DilateW == 1 && g.PadH >= 0 && g.PadW >= 0 &&
		g.Channels > 0 && g.OutH() > 0 && g.OutW() > 0
}

// WinogradTiles is the number of 4x4 output tiles of one image of g.
func WinogradTiles(g ConvGeom) int {
	return ceilDiv(g.OutH(), winoTile) * ceilDiv(g.OutW(), winoTile)
}

// WinogradFiltersLen is the number of elements of maps filters of channels
// channels transformed by WinogradFilters.
func WinogradFiltersLen[T Float](maps, channels int) int {
	return winoPos * PackedALen[T](maps, channels)
}

// WinogradFilters transforms maps 3x3 filters of channels channels
// (weight: maps x channels x 3 x 3) into dst (WinogradFiltersLen
// elements): for each of the 36 positions, the maps x channels matrix of
// G g Gᵀ at that position, packed by PackA. The transform is one product:
// the 36 x 9 matrix G ⊗ G times the filters as columns, taken in the
// order of PackA's layout, so that each position's row of the product is
// its packed matrix (packing the 36 matrices after the product took 0.85
// of the time).
//
// With turned, weight holds channels x maps x 3 x 3 filters and filter
// (k, c) is weight's (c, k) turned by 180 degrees: the filters of the
// convolution that computes the data gradient of weight's (as
// GemmTurnedA takes them), turned as they are read.
func WinogradFilters[T Float](maps, channels int, turned bool, weight, dst []T) {
	weight = weight[:maps*channels*9]
	alen := PackedALen[T](maps, channels)
	dst = dst[:winoPos*alen]
	bp := getBuf[T](9 * alen)
	defer putBuf(bp)
	wt := (*bp)[:9*alen]
	mr := kernelForRows[T](maps).mr
	ParallelRange(roundUp(maps, mr)/mr, max(1, winoFilterGrain/(mr*channels)), filterRowsLoop[T]{maps, channels, mr, turned, weight, wt})
	Gemm(false, true, winoPos, alen, 9, 1, winoGG[T](), 9, wt, 9, 0, dst, alen)
}

// winoFilterGrain is the fewest filters a worker orders at a time.
const winoFilterGrain = 1 << 13

// filterRowsLoop writes the maps x channels 3x3 filters in weight to rows
// (9 elements each) in the order of PackA's layout of a maps x channels
// matrix: per block of depth (channels), micro-panels of mr maps (the
// product's rows kernel's) stored channel-major; the rows of the maps
// that pad the last panel are zero. Range writes the rows of panels lo
// to hi-1. With turned, filter (k, c) is weight's (c, k) turned (see
// WinogradFilters).
type filterRowsLoop[T Float] struct {
	maps, channels, mr int
	turned             bool
	weight, rows       []T
}

func (l *filterRowsLoop[T]) Range(lo, hi int) {
	mr := l.mr
	mp := roundUp(l.maps, mr)
	for pc := 0; pc < l.channels; pc += gemmKC {
		kb := min(gemmKC, l.channels-pc)
		for q := lo; q < hi; q++ {
			for d := range kb {
				at := (pc*mp + q*mr*kb + d*mr) * 9
				for i := range mr {
					row := l.rows[at+i*9:][:9]
					k := q*mr + i
					if k >= l.maps {
						clear(row)
						continue
					}
					if l.turned {
						src := l.weight[((pc+d)*l.maps+k)*9:][:9]
						row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8] = src[8], src[7], src[6], src[5], src[4], src[3], src[2], src[1], src[0]
						continue
					}
					src := l.weight[(k*l.channels+pc+d)*9:][:9]
					row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8] = src[0], src[1], src[2], src[3], src[4], src[5], src[6], src[7], src[8]
				}
			}
		}
	}
}

// winoGG32 and winoGG64 are winoFilterTransform's matrix in float32 and
// float64.
var (
	winoGG32 = winoFilterTransform[float32]()
	winoGG64 = winoFilterTransform[float64]()
)

// winoGG returns G ⊗ G in T: winoGG32 or winoGG64, or a new one for
// another float type.
func winoGG[T Float]() []T {
	if gg, ok := any(winoGG32).([]T); ok {
		return gg
	}
	if gg, ok := any(winoGG64).([]T); ok {
		return gg
	}
	return winoFilterTransform[T]()
}

// winoFilterTransform returns G ⊗ G, 36 x 9: row r*6+s, column kh*3+kw
// holds G[r][kh]*G[s][kw].
func winoFilterTransform[T Float]() []T {
	g := [winoPatch][3]float64{
		{1.0 / 4, 0, 0},
		{-1.0 / 6, -1.0 / 6, -1.0 / 6},
		{-1.0 / 6, 1.0 / 6, -1.0 / 6},
		{1.0 / 24, 1.0 / 12, 1.0 / 6},
		{1.0 / 24, -1.0 / 12, 1.0 / 6},
		{0, 0, 1},
	}
	gg := make([]T, winoPos*9)
	for r := range winoPatch {
		for s := range winoPatch {
			for kh := range 3 {
				for kw := range 3 {
					gg[(r*winoPatch+s)*9+kh*3+kw] = T(g[r][kh] * g[s][kw])
				}
			}
		}
	}
	return gg
}

// WinogradFast reports whether ConvWinograd has vector kernels for T on
// this CPU; without them it is correct but slower than the packed product.
func WinogradFast[T Float]() bool {
	_, ok := any(winoInputKernel).(func(int, []T, int, []T, int))
	return ok && winoInputKernel != nil && PanelWidth[T]()%8 == 0
}

// The vector kernels for float32, or nil where the CPU has none:
// winoInputLanes and winoOutputLanes on eight lanes at a time, and the
// gather and scatter of groups of eight tiles (winoGatherAVX2 and
// winoScatterAVX2).
var (
	winoInputKernel   func(n int, d []float32, ds int, v []float32, vs int)
	winoOutputKernel  func(n int, m []float32, ms int, o []float32, os int)
	winoGatherKernel  func(groups int, src []float32, ss int, d []float32, ds int)
	winoScatterKernel func(groups int, o []float32, os int, dst []float32, ds int)
)

// winoFrame is the layout ConvWinograd works in. Each input plane is
// copied with its border of zeros into bh rows of bw, so that every
// tile's patch lies inside; each output plane is computed as whole tiles
// into oh rows of ow, then cut to OutH x OutW. Both keep winoSlack
// columns past the last tile, which the vector gather reads and the
// vector scatter writes when a group of eight tiles runs past a row's
// end.
type winoFrame struct {
	tilesH, tilesW int
	bh, bw, oh, ow int
}

// winoSlack is the number of columns a frame's rows have past the last
// tile: a group of eight tiles starting at the last one reaches 4*8
// columns on.
const winoSlack = 32

func newWinoFrame(g ConvGeom) winoFrame {
	th, tw := ceilDiv(g.OutH(), winoTile), ceilDiv(g.OutW(), winoTile)
	return winoFrame{tilesH: th, tilesW: tw, bh: winoTile*th + 2, bw: winoTile*tw + winoSlack, oh: winoTile * th, ow: winoTile*tw + winoSlack}
}

// ConvWinograd computes the convolution of geometry g (WinogradApplies)
// of batch images (each Channels x InH x InW, one after another in
// images) with maps filters transformed by WinogradFilters, writing
// maps x OutH x OutW per image to out, then applies ep (nil for none) to
// each image's maps x (OutH*OutW) as a product's epilogue would, its Add
// holding the whole batch's (image n's at Add[n*maps*AddStride:]).
//
// The tiles of an image are taken in blocks of PanelWidth: each block's
// patches are gathered and transformed (Bᵀ d B), multiplied at each of
// the 36 positions by the filters (winoBlocks.products), transformed back
// (Aᵀ m A) and scattered to the output frame, the transforms vectorised
// over the tiles of the block. In batches each worker takes whole images,
// or, for images of fewer tiles than a block, whole groups of images
// whose tiles, one image's after another's, make the blocks; a single
// image's blocks, or each block's steps when there are fewer blocks than
// workers, are spread over the workers.
func ConvWinograd[T Float](g ConvGeom, maps, batch int, images, filters, out []T, ep *Epilogue[T]) {
	if !WinogradApplies(g) {
		panic("accel: ConvWinograd of a convolution that is not 3x3 at stride 1")
	}
	if maps <= 0 || batch <= 0 {
		return
	}
	ohw := g.OutH() * g.OutW()
	ep.check(maps, ohw)
	if ep != nil && ep.Add != nil && len(ep.Add) < (batch*maps-1)*ep.AddStride+ohw {
		panic("accel: ConvWinograd: Epilogue.Add is shorter than the batch's maps")
	}
	if !ep.active() {
		ep = nil
	}
	c := g.Channels
	f := newWinoFrame(g)
	images = images[:batch*c*g.InH*g.InW]
	filters = filters[:WinogradFiltersLen[T](maps, c)]
	out = out[:batch*maps*g.OutH()*g.OutW()]
	w := PanelWidth[T]()
	tiles := f.tilesH * f.tilesW
	work := getObj[winoWork[T]]() // recycled: the steps hand it to other goroutines
	defer putObj(work)
	*work = winoWork[T]{g: g, f: f, maps: maps, images: images, filters: filters, out: out, ep: ep, w: w, tiles: tiles, blocks: ceilDiv(tiles, w)}
	if per := min(w/tiles, ceilDiv(batch, Workers())); batch > 1 && per > 1 {
		// Images of fewer tiles than a panel's columns go several to a
		// block, a group of them at a time on each worker.
		ParallelRange(ceilDiv(batch, per), 1, winoGroupLoop[T]{work: *work, per: per, batch: batch})
		return
	}
	if batch > 1 && batch >= Workers() {
		// An image at a time on each worker, so that its frames stay in
		// the worker's cache from the border to the crop.
		ParallelRange(batch, 1, winoImageLoop[T]{*work})
		return
	}
	// One image's frames at a time, its blocks spread over the workers.
	ip := getBuf[T](c * f.bh * f.bw)
	defer putBuf(ip)
	op := getBuf[T](maps * f.oh * f.ow)
	defer putBuf(op)
	var shared winoBlocks[T]
	if work.blocks < Workers() {
		shared = newWinoBlocks(work)
		defer shared.release()
	}
	for n := range batch {
		ParallelRange(c, winoFrameGrain, winoFrameLoop[T]{wk: work, n: n, frame: *ip})
		if work.blocks >= Workers() {
			ParallelRange(work.blocks, 1, winoBlockLoop[T]{work: *work, in: *ip, out: *op})
		} else {
			// Too few blocks to go round: each block's steps are spread
			// over the workers instead.
			for blk := range work.blocks {
				shared.runSpread(work, *ip, *op, blk)
			}
		}
		ParallelRange(maps, winoFrameGrain, winoFrameLoop[T]{wk: work, n: n, frame: *op, crop: true})
	}
}

// winoWork is one call of ConvWinograd: the geometry and its frames, the
// operands, and the blocks of tiles of an image.
type winoWork[T Float] struct {
	g                    ConvGeom
	f                    winoFrame
	maps                 int
	images, filters, out []T
	ep                   *Epilogue[T] // nil for none
	w, tiles, blocks     int
}

// border copies channels lo to hi-1 of image n into the framed planes in
// (Channels planes of bh x bw) and clears the border around it, as far as the tiles' patches
// reach: the columns past them, which only lanes past a run of tiles
// read, are left as they are (clearing whole planes took a tenth of the
// convolution's time at 64x56x56).
func (wk *winoWork[T]) border(n int, in []T, lo, hi int) {
	g, f := wk.g, wk.f
	right := winoTile*f.tilesW + 2 // the patches' last column, plus one
	for ch := lo; ch < hi; ch++ {
		src := wk.images[(n*g.Channels+ch)*g.InH*g.InW:][:g.InH*g.InW]
		dst := in[ch*f.bh*f.bw:][:f.bh*f.bw]
		clear(dst[:g.PadH*f.bw])
		clear(dst[(g.PadH+g.InH)*f.bw:])
		for h := range g.InH {
			row := dst[(h+g.PadH)*f.bw:][:right]
			clear(row[:g.PadW])
			copy(row[g.PadW:], src[h*g.InW:][:g.InW])
			clear(row[g.PadW+g.InW:])
		}
	}
}

// crop cuts maps lo to hi-1 of image n out of the framed planes out
// (maps planes of oh x ow) and applies the epilogue to each while it is
// in cache.
func (wk *winoWork[T]) crop(n int, out []T, lo, hi int) {
	g, f := wk.g, wk.f
	oh, ow := g.OutH(), g.OutW()
	var ep *Epilogue[T]
	if wk.ep != nil {
		ep = getObj[Epilogue[T]]()
		defer putObj(ep)
		*ep = *wk.ep
		if ep.Add != nil {
			ep.Add = ep.Add[n*wk.maps*ep.AddStride:]
		}
	}
	for k := lo; k < hi; k++ {
		src := out[k*f.oh*f.ow:][:f.oh*f.ow]
		dst := wk.out[(n*wk.maps+k)*oh*ow:][:oh*ow]
		for h := range oh {
			copy(dst[h*ow:][:ow], src[h*f.ow:][:ow])
		}
		if ep != nil {
			ep.apply(dst, oh*ow, k, 0, 1, oh*ow)
		}
	}
}

// winoFrameGrain is the fewest planes a worker frames or crops at a time.
const winoFrameGrain = 8

// winoFrameLoop is one image's border (over its channels) or, with
// crop, its crop (over its maps), spread over the workers: on one
// thread they took a fifth of ResNet-18's 64x56x56 convolutions.
type winoFrameLoop[T Float] struct {
	wk    *winoWork[T]
	n     int
	frame []T
	crop  bool
}

func (l *winoFrameLoop[T]) Range(lo, hi int) {
	if l.crop {
		l.wk.crop(l.n, l.frame, lo, hi)
		return
	}
	l.wk.border(l.n, l.frame, lo, hi)
}

// winoImageLoop is ConvWinograd's loop over images, each worker taking
// whole images.
type winoImageLoop[T Float] struct{ work winoWork[T] }

func (l *winoImageLoop[T]) Range(lo, hi int) {
	wk := &l.work
	ip := getBuf[T](wk.g.Channels * wk.f.bh * wk.f.bw)
	defer putBuf(ip)
	op := getBuf[T](wk.maps * wk.f.oh * wk.f.ow)
	defer putBuf(op)
	b := newWinoBlocks(wk)
	defer b.release()
	for n := lo; n < hi; n++ {
		wk.border(n, *ip, 0, wk.g.Channels)
		for blk := range wk.blocks {
			b.run(wk, *ip, *op, blk)
		}
		wk.crop(n, *op, 0, wk.maps)
	}
}

// winoGroupLoop is ConvWinograd's loop over groups of per images of few
// tiles, each worker taking whole groups: their tiles, one image's after
// another's, make the blocks.
type winoGroupLoop[T Float] struct {
	work       winoWork[T]
	per, batch int
}

func (l *winoGroupLoop[T]) Range(lo, hi int) {
	wk := &l.work
	c, k, f := wk.g.Channels, wk.maps, wk.f
	inSize, outSize := c*f.bh*f.bw, k*f.oh*f.ow // an image's frames
	ip := getBuf[T](l.per * inSize)
	defer putBuf(ip)
	op := getBuf[T](l.per * outSize)
	defer putBuf(op)
	b := newWinoBlocks(wk)
	defer b.release()
	for gi := lo; gi < hi; gi++ {
		n0, n1 := gi*l.per, min((gi+1)*l.per, l.batch)
		for n := n0; n < n1; n++ {
			wk.border(n, (*ip)[(n-n0)*inSize:], 0, c)
		}
		cnt := (n1 - n0) * wk.tiles
		for t0 := 0; t0 < cnt; t0 += wk.w {
			b.runTiles(wk, *ip, *op, inSize, outSize, t0, min(wk.w, cnt-t0))
		}
		for n := n0; n < n1; n++ {
			wk.crop(n, (*op)[(n-n0)*outSize:], 0, k)
		}
	}
}

// winoBlockLoop is ConvWinograd's loop over the blocks of one image.
type winoBlockLoop[T Float] struct {
	work    winoWork[T]
	in, out []T // the image's frames
}

func (l *winoBlockLoop[T]) Range(lo, hi int) {
	b := newWinoBlocks(&l.work)
	defer b.release()
	for blk := lo; blk < hi; blk++ {
		b.run(&l.work, l.in, l.out, blk)
	}
}

// winoBlocks is a worker's memory for blocks of tiles: the transformed
// patches v (36 matrices, vstride apart), the products m (mstride apart),
// a channel's patches d and a map's output tiles o (rows of ds). The 36
// matrices are kept a little more than a multiple of 4 KiB apart, so that
// a tile's 36 values do not all fall in the same cache sets; the rows of
// d and o have room for a group of eight lanes past the last.
type winoBlocks[T Float] struct {
	bp                   *[]T
	v, m, d, o           []T
	vstride, mstride, ds int
}

func newWinoBlocks[T Float](wk *winoWork[T]) winoBlocks[T] {
	c, k, w := wk.g.Channels, wk.maps, wk.w
	// m has room for the rows of the last panel of filters past the maps,
	// which products writes.
	b := winoBlocks[T]{vstride: PackedBLen[T](c, w) + winoSkew, mstride: roundUp(k, kernelForRows[T](k).mr)*w + winoSkew, ds: w + 8}
	b.bp = getBuf[T](winoPos*(b.vstride+b.mstride) + (winoPos+winoTile*winoTile)*b.ds)
	buf := *b.bp
	b.v = buf[:winoPos*b.vstride]
	b.m = buf[winoPos*b.vstride:][:winoPos*b.mstride]
	b.d = buf[winoPos*(b.vstride+b.mstride):][:winoPos*b.ds]
	b.o = buf[winoPos*(b.vstride+b.mstride)+winoPos*b.ds:][:winoTile*winoTile*b.ds]
	return b
}

func (b *winoBlocks[T]) release() { putBuf(b.bp) }

// run computes block blk of the image framed in in, into the framed
// output planes out.
func (b *winoBlocks[T]) run(wk *winoWork[T], in, out []T, blk int) {
	t0 := blk * wk.w
	b.runTiles(wk, in, out, 0, 0, t0, min(wk.w, wk.tiles-t0))
}

// runTiles computes the block of tiles t0 .. t0+cnt-1 of a group of
// images, framed in in and out (image i's frames from in[i*inStride:] and
// out[i*outStride:]).
func (b *winoBlocks[T]) runTiles(wk *winoWork[T], in, out []T, inStride, outStride, t0, cnt int) {
	c, k, w, f := wk.g.Channels, wk.maps, wk.w, wk.f
	if cnt < w {
		winoClearLanes(c, k, cnt, w, b.v, b.vstride, b.m, b.mstride)
	}
	winoInput(f, c, in, inStride, t0, cnt, w, b.v, b.vstride, b.d, b.ds)
	b.products(wk, cnt, 0, winoPos)
	winoOutput(f, k, t0, cnt, w, b.m, b.mstride, out, outStride, b.o, b.ds)
}

// products computes the block's products at positions lo to hi-1: the
// filters at each (maps x channels, packed by PackA) times the block's
// transformed patches (channels x w, one packed panel), into m. Where the
// channels fit in one depth block of the packing and the panel is the
// micro-kernel's, it calls the micro-kernel itself, a panel of maps at a
// time, which saves a product's set-up on 36 small products a block.
func (b *winoBlocks[T]) products(wk *winoWork[T], cnt, lo, hi int) {
	c, k, w := wk.g.Channels, wk.maps, wk.w
	alen := PackedALen[T](k, c)
	kern := kernelForRows[T](k)
	if c > gemmKC || kern.nr != w {
		for p := lo; p < hi; p++ {
			GemmPacked(k, cnt, c, wk.filters[p*alen:], b.v[p*b.vstride:], 0, b.m[p*b.mstride:], w, nil)
		}
		return
	}
	mr := kern.mr
	for p := lo; p < hi; p++ {
		a := wk.filters[p*alen:][:alen]
		v := b.v[p*b.vstride:][:c*w]
		m := b.m[p*b.mstride:][:roundUp(k, mr)*w]
		for i := 0; i < k; i += mr {
			kern.fn(c, 1, a[i*c:], v, m[i*w:], w, true)
		}
	}
}

// runSpread is run with each step spread over the workers: the input
// transform by channels, the 36 products by position, the output
// transform by maps.
func (b *winoBlocks[T]) runSpread(wk *winoWork[T], in, out []T, blk int) {
	t0 := blk * wk.w
	cnt := min(wk.w, wk.tiles-t0)
	if cnt < wk.w {
		winoClearLanes(wk.g.Channels, wk.maps, cnt, wk.w, b.v, b.vstride, b.m, b.mstride)
	}
	step := winoStep[T]{wk: wk, b: b, in: in, out: out, t0: t0, cnt: cnt}
	step.kind = winoInputStep
	ParallelRange(wk.g.Channels, 8, step)
	step.kind = winoProductStep
	ParallelRange(winoPos, 1, step)
	step.kind = winoOutputStep
	ParallelRange(wk.maps, 8, step)
}

// The steps of a block that runSpread spreads over the workers.
const (
	winoInputStep = iota
	winoProductStep
	winoOutputStep
)

// winoStep is one step of a block, over a range of channels, positions
// or maps.
type winoStep[T Float] struct {
	wk      *winoWork[T]
	b       *winoBlocks[T]
	in, out []T
	t0, cnt int
	kind    int
}

func (l *winoStep[T]) Range(lo, hi int) {
	wk, b, f, w := l.wk, l.b, l.wk.f, l.wk.w
	switch l.kind {
	case winoInputStep:
		dp := getBuf[T](winoPos * b.ds)
		defer putBuf(dp)
		winoInput(f, hi-lo, l.in[lo*f.bh*f.bw:], 0, l.t0, l.cnt, w, b.v[lo*w:], b.vstride, *dp, b.ds)
	case winoProductStep:
		b.products(wk, l.cnt, lo, hi)
	case winoOutputStep:
		op := getBuf[T](winoTile * winoTile * b.ds)
		defer putBuf(op)
		winoOutput(f, hi-lo, l.t0, l.cnt, w, b.m[lo*w:], b.mstride, l.out[lo*f.oh*f.ow:], 0, *op, b.ds)
	}
}

// winoClearLanes clears what a block of cnt < w tiles reads past its
// tiles: the columns of the packed products' right operands (channels
// rows of w in each of v's 36 matrices) past the lanes the input
// transform writes, which GemmPacked requires to be zero, and the
// products' columns (maps rows of w in each of m's) from cnt to those
// lanes, which the output transform reads and which must hold finite
// values.
func winoClearLanes[T Float](channels, maps, cnt, w int, v []T, vstride int, m []T, mstride int) {
	lanes := winoLanes[T](cnt, w)
	for p := range winoPos {
		for c := range channels {
			clear(v[p*vstride+c*w+lanes : p*vstride+(c+1)*w])
		}
		for k := range maps {
			clear(m[p*mstride+k*w+cnt : p*mstride+k*w+lanes])
		}
	}
}

// winoSkew is the padding, in elements, between the 36 matrices of a block.
const winoSkew = 16

// winoLanes is the number of lanes the transforms of cnt tiles work on:
// cnt rounded up to the vector kernels' eight where T has them.
func winoLanes[T Float](cnt, w int) int {
	if WinogradFast[T]() {
		return min(roundUp(cnt, 8), w)
	}
	return cnt
}

// winoRuns calls run for each run of tiles t0 .. t0+cnt-1 that lie in one
// row of tiles of one image (of a group, whose tiles follow one image's
// after another's): its image, its first lane j (tile t0+j), its row and
// column of tiles, its length, and whether it ends the row.
func winoRuns(f winoFrame, t0, cnt int, run func(img, j, th, tw, n int, rowEnd bool)) {
	tiles := f.tilesH * f.tilesW
	for j := 0; j < cnt; {
		img, t := (t0+j)/tiles, (t0+j)%tiles
		th, tw := t/f.tilesW, t%f.tilesW
		n := min(cnt-j, f.tilesW-tw)
		run(img, j, th, tw, n, tw+n == f.tilesW)
		j += n
	}
}

// winoInput writes Bᵀ d B of the patches d of tiles t0 .. t0+cnt-1 of a
// group of images (image i's channels framed planes from
// planes[i*imgStride:]; tile t0 of the first image's tiles, the next
// image's following its last), for every channel, into v: at each
// position p, the channels x w matrix at v[p*vstride:] in the packed
// layout of GemmPackedB (one panel of w columns, the columns past cnt
// zero). d (36 rows of stride ds) holds a channel's patches, row r*6+q
// holding element (r, q) of each.
func winoInput[T Float](f winoFrame, channels int, planes []T, imgStride, t0, cnt, w int, v []T, vstride int, d []T, ds int) {
	lanes := winoLanes[T](cnt, w)
	in32, _ := any(winoInputKernel).(func(int, []T, int, []T, int))
	gather32, _ := any(winoGatherKernel).(func(int, []T, int, []T, int))
	for ch := range channels {
		winoRuns(f, t0, cnt, func(img, j, th, tw, n int, _ bool) {
			src := planes[img*imgStride+ch*f.bh*f.bw:][:f.bh*f.bw][winoTile*(th*f.bw+tw):]
			if gather32 != nil {
				// Groups past the run write lanes that the next run or
				// the clearing below writes again.
				gather32(ceilDiv(n, 8), src, f.bw, d[j:], ds)
				return
			}
			for r := range winoPatch {
				row := src[r*f.bw:]
				for q := range winoPatch {
					e := d[(r*winoPatch+q)*ds+j:][:n]
					for i := range e {
						e[i] = row[winoTile*i+q]
					}
				}
			}
		})
		if lanes > cnt {
			for p := range winoPos {
				clear(d[p*ds+cnt : p*ds+lanes])
			}
		}
		if in32 != nil && lanes%8 == 0 {
			in32(lanes, d, ds, v[ch*w:], vstride)
			continue
		}
		winoInputLanes(lanes, d, ds, v[ch*w:], vstride)
	}
}

// winoInputLanes is Bᵀ d B for n lanes: d (rows r*6+q, row stride ds)
// becomes Bᵀ d in place, and row r*6+s of v (row stride vs) receives
// element (r, s) of Bᵀ d B.
func winoInputLanes[T Float](n int, d []T, ds int, v []T, vs int) {
	for j := range n {
		for q := range winoPatch {
			x := inputColumn(d[q*ds+j], d[(6+q)*ds+j], d[(12+q)*ds+j], d[(18+q)*ds+j], d[(24+q)*ds+j], d[(30+q)*ds+j])
			for r := range winoPatch {
				d[(r*winoPatch+q)*ds+j] = x[r]
			}
		}
		for r := range winoPatch {
			e := d[r*winoPatch*ds+j:]
			x := inputColumn(e[0], e[ds], e[2*ds], e[3*ds], e[4*ds], e[5*ds])
			for s, val := range x {
				v[(r*winoPatch+s)*vs+j] = val
			}
		}
	}
}

// inputColumn is Bᵀ times a column of six values.
func inputColumn[T Float](d0, d1, d2, d3, d4, d5 T) [winoPatch]T {
	return [winoPatch]T{
		4*d0 - 5*d2 + d4,
		-4*(d1+d2) + d3 + d4,
		4*(d1-d2) - d3 + d4,
		2*(d3-d1) - d2 + d4,
		2*(d1-d3) - d2 + d4,
		4*d1 - 5*d3 + d5,
	}
}

// winoOutput writes Aᵀ m A of the products m (at position p, the
// maps x w matrix at m[p*mstride:]) for tiles t0 .. t0+cnt-1 of a group
// of images (as winoInput's) into their maps framed output planes, image
// i's from planes[i*imgStride:]. o (16 rows of stride os) holds
// a map's output tiles, row i*4+j holding element (i, j) of each.
func winoOutput[T Float](f winoFrame, maps, t0, cnt, w int, m []T, mstride int, planes []T, imgStride int, o []T, os int) {
	lanes := winoLanes[T](cnt, w)
	out32, _ := any(winoOutputKernel).(func(int, []T, int, []T, int))
	scatter32, _ := any(winoScatterKernel).(func(int, []T, int, []T, int))
	for k := range maps {
		if out32 != nil && lanes%8 == 0 {
			out32(lanes, m[k*w:], mstride, o, os)
		} else {
			winoOutputLanes(lanes, m[k*w:], mstride, o, os)
		}
		winoRuns(f, t0, cnt, func(img, j, th, tw, n int, rowEnd bool) {
			dst := planes[img*imgStride+k*f.oh*f.ow:][:f.oh*f.ow][winoTile*(th*f.ow+tw):]
			if scatter32 == nil {
				scatterTiles(o[j:], os, dst, f.ow, n)
				return
			}
			// A group past the run's end writes into the row's slack, so
			// only where the run ends the row; elsewhere the tiles of
			// the last group go one by one.
			groups := n / 8
			if rowEnd {
				groups = ceilDiv(n, 8)
			}
			if groups > 0 {
				scatter32(groups, o[j:], os, dst, f.ow)
			}
			if rest := n - 8*groups; rest > 0 {
				scatterTiles(o[j+8*groups:], os, dst[winoTile*8*groups:], f.ow, rest)
			}
		})
	}
}

// scatterTiles writes element (i, j) of output tile t < n, at
// o[(i*4+j)*os+t], to row i and column 4t+j of dst (row stride ds).
func scatterTiles[T Float](o []T, os int, dst []T, ds, n int) {
	for i := range winoTile {
		row := dst[i*ds:]
		for j := range winoTile {
			e := o[(i*winoTile+j)*os:]
			for t := range n {
				row[winoTile*t+j] = e[t]
			}
		}
	}
}

// winoOutputLanes is Aᵀ m A for n lanes: rows i*6+s of m (row stride ms),
// i < 4, become Aᵀ m in place, and row i*4+j of o (row stride os)
// receives element (i, j) of Aᵀ m A.
func winoOutputLanes[T Float](n int, m []T, ms int, o []T, os int) {
	for j := range n {
		for s := range winoPatch {
			x := outputColumn(m[s*ms+j], m[(6+s)*ms+j], m[(12+s)*ms+j], m[(18+s)*ms+j], m[(24+s)*ms+j], m[(30+s)*ms+j])
			for i := range winoTile {
				m[(i*winoPatch+s)*ms+j] = x[i]
			}
		}
		for i := range winoTile {
			e := m[i*winoPatch*ms+j:]
			x := outputColumn(e[0], e[ms], e[2*ms], e[3*ms], e[4*ms], e[5*ms])
			for jj, val := range x {
				o[(i*winoTile+jj)*os+j] = val
			}
		}
	}
}

// outputColumn is Aᵀ times a column of six values.
func outputColumn[T Float](m0, m1, m2, m3, m4, m5 T) [winoTile]T {
	a, b := m1+m2, m1-m2
	c, d := m3+m4, m3-m4
	return [winoTile]T{
		m0 + a + c,
		b + 2*d,
		a + 4*c,
		b + 8*d + m5,
	}
}
