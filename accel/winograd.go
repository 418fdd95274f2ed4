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
// the 36 x 9 matrix G ⊗ G times the filters as columns.
func WinogradFilters[T Float](maps, channels int, weight, dst []T) {
	mc := maps * channels
	weight = weight[:mc*9]
	alen := PackedALen[T](maps, channels)
	dst = dst[:winoPos*alen]
	gg, ok := any(winoGG32).([]T)
	if !ok {
		if gg, ok = any(winoGG64).([]T); !ok {
			gg = winoFilterTransform[T]()
		}
	}
	// The filters' rows in channel-major order, so that each position's
	// matrix comes out transposed (channels x maps), which PackA copies
	// in runs.
	bp := getBuf[T](winoPos*mc + 9*mc)
	defer putBuf(bp)
	u := (*bp)[:winoPos*mc]
	wt := (*bp)[winoPos*mc:][:9*mc]
	for k := range maps {
		for c := range channels {
			copy(wt[(c*maps+k)*9:][:9], weight[(k*channels+c)*9:][:9])
		}
	}
	Gemm(false, true, winoPos, mc, 9, 1, gg, 9, wt, 9, 0, u, mc)
	for p := range winoPos {
		PackA(true, maps, channels, u[p*mc:], maps, dst[p*alen:])
	}
}

// winoGG32 and winoGG64 are winoFilterTransform's matrix in float32 and
// float64.
var (
	winoGG32 = winoFilterTransform[float32]()
	winoGG64 = winoFilterTransform[float64]()
)

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

// WinogradFast reports whether ConvWinograd has vector transforms for T
// on this CPU; without them it is correct but slower than the packed
// product.
func WinogradFast[T Float]() bool {
	_, ok := any(winoInputKernel).(func(int, []T, int, []T, int))
	return ok && winoInputKernel != nil && PanelWidth[T]()%8 == 0
}

// winoInputKernel and winoOutputKernel are winoInputLanes and
// winoOutputLanes for float32 on eight lanes at a time, or nil when there
// are no vector kernels.
var (
	winoInputKernel  func(n int, d []float32, ds int, v []float32, vs int)
	winoOutputKernel func(n int, m []float32, ms int, o []float32, os int)
)

// ConvWinograd computes the convolution of geometry g (WinogradApplies)
// of batch images (each Channels x InH x InW, one after another in
// images) with maps filters transformed by WinogradFilters, writing
// maps x OutH x OutW per image to out. The tiles of an image are taken in
// blocks of PanelWidth: each block's patches are transformed (Bᵀ d B),
// multiplied at each of the 36 positions by the filters (GemmPacked) and
// transformed back (Aᵀ m A), the transforms vectorised over the tiles of
// the block. Blocks are spread over the workers.
func ConvWinograd[T Float](g ConvGeom, maps, batch int, images, filters, out []T) {
	if !WinogradApplies(g) {
		panic("accel: ConvWinograd of a convolution that is not 3x3 at stride 1")
	}
	if maps <= 0 || batch <= 0 {
		return
	}
	c := g.Channels
	images = images[:batch*c*g.InH*g.InW]
	filters = filters[:WinogradFiltersLen[T](maps, c)]
	out = out[:batch*maps*g.OutH()*g.OutW()]
	w := PanelWidth[T]()
	tiles := WinogradTiles(g)
	blocks := ceilDiv(tiles, w)
	l := winoLoop[T]{g: g, maps: maps, images: images, filters: filters, out: out, w: w, tiles: tiles, blocks: blocks}
	ParallelRange(batch*blocks, 1, l)
}

// winoLoop is ConvWinograd's loop over (image, block of tiles) pairs.
type winoLoop[T Float] struct {
	g                    ConvGeom
	maps                 int
	images, filters, out []T
	w, tiles, blocks     int
}

func (l *winoLoop[T]) Range(lo, hi int) {
	g, c, k, w := l.g, l.g.Channels, l.maps, l.w
	// The 36 matrices of a block are kept a little more than a multiple
	// of 4 KiB apart, so that a tile's 36 values do not all fall in the
	// same cache sets.
	vstride := PackedBLen[T](c, w) + winoSkew
	mstride := k*w + winoSkew
	alen := PackedALen[T](k, c)
	bp := getBuf[T](winoPos*(vstride+mstride) + (winoPos+winoTile*winoTile)*w)
	defer putBuf(bp)
	buf := *bp
	clear(buf) // lanes past a block's tiles hold finite values
	v := buf[:winoPos*vstride]
	m := buf[winoPos*vstride:][:winoPos*mstride]
	d := buf[winoPos*(vstride+mstride):][:winoPos*w]
	o := buf[winoPos*(vstride+mstride)+winoPos*w:][:winoTile*winoTile*w]
	outSize := k * g.OutH() * g.OutW()
	for task := lo; task < hi; task++ {
		n, b := task/l.blocks, task%l.blocks
		t0 := b * w
		cnt := min(w, l.tiles-t0)
		img := l.images[n*c*g.InH*g.InW:][:c*g.InH*g.InW]
		winoInput(g, img, t0, cnt, w, v, vstride, d)
		for p := range winoPos {
			GemmPacked(k, cnt, c, l.filters[p*alen:], v[p*vstride:], 0, m[p*mstride:], w, nil)
		}
		winoOutput(g, k, t0, cnt, w, m, mstride, l.out[n*outSize:][:outSize], o)
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

// winoInput writes Bᵀ d B of the patches d of tiles t0 .. t0+cnt-1 of the
// image, for every channel, into v: at each position p, the channels x w
// matrix at v[p*vstride:] in the packed layout of GemmPackedB (one panel
// of w columns, the columns past cnt zero). d (36*w elements, zero past
// cnt columns) holds a channel's patches, row r*6+q holding element
// (r, q) of each; they are gathered a run of tiles in a row of tiles at
// a time.
func winoInput[T Float](g ConvGeom, img []T, t0, cnt, w int, v []T, vstride int, d []T) {
	tilesW := ceilDiv(g.OutW(), winoTile)
	plane := g.InH * g.InW
	lanes := winoLanes[T](cnt, w)
	k32, _ := any(winoInputKernel).(func(int, []T, int, []T, int))
	for ch := range g.Channels {
		src := img[ch*plane:][:plane]
		for j := 0; j < cnt; {
			th, tw := (t0+j)/tilesW, (t0+j)%tilesW
			run := min(cnt-j, tilesW-tw)
			gatherPatches(g, src, th*winoTile-g.PadH, tw*winoTile-g.PadW, run, d[j:], w)
			j += run
		}
		if k32 != nil && lanes%8 == 0 {
			k32(lanes, d, w, v[ch*w:], vstride)
			continue
		}
		winoInputLanes(lanes, d, w, v[ch*w:], vstride)
	}
}

// gatherPatches writes the 6x6 patches of src at rows h0.. and columns
// w0+4i.. for i < run to d[(r*6+q)*ds+i] for element (r, q) of patch i,
// with zeros outside the image.
func gatherPatches[T Float](g ConvGeom, src []T, h0, w0, run int, d []T, ds int) {
	// Patches lo .. hi-1 lie inside the image's columns.
	lo := min(run, max(0, ceilDiv(-w0, winoTile)))
	hi := max(lo, min(run, (g.InW-winoPatch-w0)/winoTile+1))
	if g.InW-winoPatch-w0 < 0 {
		hi = lo
	}
	for r := range winoPatch {
		h := h0 + r
		for q := range winoPatch {
			dst := d[(r*winoPatch+q)*ds:][:run]
			if h < 0 || h >= g.InH {
				clear(dst)
				continue
			}
			row := src[h*g.InW : (h+1)*g.InW]
			for i := range lo {
				dst[i] = at(row, w0+winoTile*i+q)
			}
			if hi > lo {
				in := row[w0+winoTile*lo+q:]
				in = in[:winoTile*(hi-lo-1)+1]
				out := dst[lo:hi]
				for i := range out {
					out[i] = in[winoTile*i]
				}
			}
			for i := hi; i < run; i++ {
				dst[i] = at(row, w0+winoTile*i+q)
			}
		}
	}
}

// at is row[x], or 0 outside the row.
func at[T Float](row []T, x int) T {
	if x < 0 || x >= len(row) {
		return 0
	}
	return row[x]
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
// maps x w matrix at m[p*mstride:]) for tiles t0 .. t0+cnt-1 into the
// output maps of one image, clipping the tiles at the edges; o (16*w
// elements) holds a map's output tiles, row i*4+j holding element (i, j)
// of each.
func winoOutput[T Float](g ConvGeom, maps, t0, cnt, w int, m []T, mstride int, out, o []T) {
	outH, outW := g.OutH(), g.OutW()
	tilesW := ceilDiv(outW, winoTile)
	lanes := winoLanes[T](cnt, w)
	k32, _ := any(winoOutputKernel).(func(int, []T, int, []T, int))
	for k := range maps {
		if k32 != nil && lanes%8 == 0 {
			k32(lanes, m[k*w:], mstride, o, w)
		} else {
			winoOutputLanes(lanes, m[k*w:], mstride, o, w)
		}
		dst := out[k*outH*outW:][:outH*outW]
		for j := 0; j < cnt; {
			th, tw := (t0+j)/tilesW, (t0+j)%tilesW
			run := min(cnt-j, tilesW-tw)
			scatterTiles(dst, outH, outW, th*winoTile, tw*winoTile, run, o[j:], w)
			j += run
		}
	}
}

// scatterTiles writes element (i, jj) of output tile t, at o[(i*4+jj)*os+t]
// for t < run, to row h0+i and column w0+4t+jj of the outH x outW map
// dst, leaving out what falls outside it.
func scatterTiles[T Float](dst []T, outH, outW, h0, w0, run int, o []T, os int) {
	for i := range min(winoTile, outH-h0) {
		row := dst[(h0+i)*outW : (h0+i+1)*outW]
		for jj := range winoTile {
			src := o[(i*winoTile+jj)*os:][:run]
			n := min(run, (outW-w0-jj+winoTile-1)/winoTile) // tiles whose column jj is inside
			if n <= 0 {
				continue
			}
			out := row[w0+jj:]
			out = out[:winoTile*(n-1)+1]
			for t, x := range src[:n] {
				out[winoTile*t] = x
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
