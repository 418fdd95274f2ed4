package accel

import "unsafe"

// The weight gradient of a 3x3 convolution at unit stride by Winograd's
// F(3x3, 4x4): each filter's gradient is the correlation of the padded
// image with the output gradient, summed over the images, and each 4x4
// tile e of the output gradient meets the 6x6 patch d of the image under
// it. With the matrices of F(4x4, 3x3) (see winograd.go) exchanged as the
// transposition principle gives,
//
//	dW = Gᵀ [ Σ_tiles (A e Aᵀ) ⊙ (Bᵀ d B) ] G
//
// so that the sum over the tiles of every image is, at each of the 36
// positions, one product of the transformed output gradients (maps x
// tiles) with the transformed patches (channels x tiles, transposed): 36
// multiply-adds per tile and filter-channel pair where the column matrix
// and its product take 144.

// wgradWinoGroupBytes bounds the transformed patches and output gradients
// that a worker holds at once: its images are taken in groups that fit,
// so that they are still in its caches for the products. At ResNet-18's
// 64x28x28, a group of three images (4 MiB) took 0.57 of the time of
// sixteen.
var wgradWinoGroupBytes = 4 << 20

// ConvWeightGradWinograd sets dw (maps x Channels x 3 x 3) to the weight
// gradient of a convolution of geometry g (WinogradApplies): the sum over
// batch images (each Channels x InH x InW, one after another in images)
// of the correlation of each padded image with its output gradient (maps
// x OutH x OutW per image, one after another in gradOut). Each worker
// sums the products of a run of images; the sums are then added in
// order, so the result does not depend on scheduling.
func ConvWeightGradWinograd[T Float](g ConvGeom, maps, batch int, images, gradOut, dw []T) {
	if !WinogradApplies(g) {
		panic("accel: ConvWeightGradWinograd of a convolution that is not 3x3 at stride 1")
	}
	c := g.Channels
	dw = dw[:maps*c*9]
	if maps <= 0 || batch <= 0 {
		clear(dw)
		return
	}
	f := newWinoFrame(g)
	tiles := f.tilesH * f.tilesW
	var zero T
	size := int(unsafe.Sizeof(zero))
	runs := min(batch, Workers(), maxWgradWinoRuns)
	l := getObj[wgradWinoLoop[T]]() // recycled: the workers are handed it
	defer putObj(l)
	*l = wgradWinoLoop[T]{
		wk:      winoWork[T]{g: g, f: f, maps: maps, images: images[:batch*c*g.InH*g.InW], w: PanelWidth[T](), tiles: tiles},
		gradOut: gradOut[:batch*maps*g.OutH()*g.OutW()],
		batch:   batch, runs: runs,
		group: max(1, wgradWinoGroupBytes/(winoPos*(c+maps)*tiles*size)),
	}
	mc := maps * c
	for r := range runs {
		l.sums[r] = getBuf[T](winoPos * mc)
	}
	ParallelLoop(runs, 1, l)
	m := (*l.sums[0])[:winoPos*mc]
	for r := 1; r < runs; r++ {
		Axpy(1, (*l.sums[r])[:winoPos*mc], m)
	}
	// dW (maps*channels x 9) is the sums (36 x maps*channels) transposed
	// times G ⊗ G (36 x 9).
	Gemm(true, false, mc, 9, winoPos, 1, m, mc, winoGG[T](), 9, 0, dw, 9)
	for r := range runs {
		putBuf(l.sums[r])
	}
}

// maxWgradWinoRuns bounds the runs of images, each with its own sums, of
// ConvWeightGradWinograd.
const maxWgradWinoRuns = 16

// wgradWinoLoop is ConvWeightGradWinograd's loop over runs of images: run
// r sums the products of its images at the 36 positions (36 matrices of
// maps x channels) into sums[r].
type wgradWinoLoop[T Float] struct {
	wk                 winoWork[T]
	gradOut            []T
	batch, runs, group int
	sums               [maxWgradWinoRuns]*[]T
}

func (l *wgradWinoLoop[T]) Range(lo, hi int) {
	c, k, tiles := l.wk.g.Channels, l.wk.maps, l.wk.tiles
	cols := groupCols(l.group, tiles)
	// v holds the transformed patches of a group of images (36 matrices
	// of channels x cols, image i's tiles from column i*tiles; vs apart),
	// u their transformed output gradients (36 of maps x cols, us apart).
	// The 36 matrices lie a little more than their size apart, so that
	// a tile's 36 values do not fall in the same cache sets.
	w := wgradWinoGroup[T]{vs: c*cols + winoSkew, us: k*cols + winoSkew}
	vp := getBuf[T](winoPos * w.vs)
	defer putBuf(vp)
	up := getBuf[T](winoPos * w.us)
	defer putBuf(up)
	w.v, w.u = *vp, *up
	for r := lo; r < hi; r++ {
		m := (*l.sums[r])[:winoPos*k*c]
		n0, n1 := r*l.batch/l.runs, (r+1)*l.batch/l.runs
		if n0 == n1 {
			clear(m)
			continue
		}
		var beta T
		for g0 := n0; g0 < n1; g0 += l.group {
			w.n0, w.n = g0, min(l.group, n1-g0)
			w.cols = groupCols(w.n, tiles)
			l.transform(&w)
			for p := range winoPos {
				u := w.u[p*w.us:][:k*w.cols]
				v := w.v[p*w.vs:][:c*w.cols]
				gemmSerial(false, true, k, c, w.cols, 1, u, w.cols, v, w.cols, beta, m[p*k*c:][:k*c], c)
			}
			beta = 1
		}
	}
}

// wgradWinoGroup is a group of images of a run: v and u their
// transformed patches and output gradients, the strides of their 36
// matrices, the group's first image, its images and its columns (in v's
// and u's rows; the strides allow for a whole group).
type wgradWinoGroup[T Float] struct {
	v, u        []T
	vs, us      int
	n0, n, cols int
}

// groupCols is the columns of the transformed matrices of n images of
// tiles tiles each: their tiles side by side, and room past the last for
// the sixteen lanes at a time that the transforms write (zero there).
func groupCols(n, tiles int) int { return (n-1)*tiles + roundUp(tiles, 16) }

// transform writes the transformed patches and output gradients of the
// images of group w into its v and u.
func (l *wgradWinoLoop[T]) transform(w *wgradWinoGroup[T]) {
	wk, f := &l.wk, l.wk.f
	c, k, pw := wk.g.Channels, wk.maps, wk.w
	ds := pw + 8
	fp := getBuf[T](c * f.bh * f.bw)
	defer putBuf(fp)
	dp := getBuf[T](winoPos * ds)
	defer putBuf(dp)
	tp := roundUp(wk.tiles, 16) // the lanes of an image's output gradient transforms
	var lanes *winoGradTable    // where the planes' tiles lie, for winoGradOutPlaneKernel
	if _, ok := any(l.gradOut).([]float32); ok && winoGradOutPlaneKernel != nil && winoGradPlaneFits(wk.g) {
		lanes = winoGradTables.get(wk.g, newWinoGradTable)
	}
	es := winoTile * winoTile * tp
	if lanes != nil {
		es = 24*16 + lanes.need
	}
	ep := getBuf[T](es)
	defer putBuf(ep)
	ohw := wk.g.OutH() * wk.g.OutW()
	// The images' tiles lie side by side; the lanes each image's
	// transforms write past its tiles are the next image's, written
	// again after.
	for i := range w.n {
		n, col0 := w.n0+i, i*wk.tiles
		wk.border(n, *fp, 0, c)
		for t0 := 0; t0 < wk.tiles; t0 += pw {
			cnt := min(pw, wk.tiles-t0)
			winoInput(f, c, *fp, 0, t0, cnt, w.cols, w.v[col0+t0:], w.vs, *dp, ds)
		}
		gy := l.gradOut[n*k*ohw:][:k*ohw]
		for m := range k {
			u := w.u[m*w.cols+col0:]
			if lanes != nil { // the plane and the rest of the batch's, which its last tiles may read
				winoGradOutPlaneKernel(lanes, any(l.gradOut[(n*k+m)*ohw:]).([]float32), any(u).([]float32), w.us, any(*ep).([]float32))
				continue
			}
			winoGradOut(wk.g, f, gy[m*ohw:][:ohw], u, w.us, tp, *ep)
		}
	}
	// Past the last image's tiles u is zero; so must v be, where
	// winoInput did not write (a NaN left in a recycled buffer times
	// zero is NaN).
	for p := range winoPos {
		for ch := range c {
			row := w.v[p*w.vs+ch*w.cols:][:w.cols]
			clear(row[w.n*wk.tiles:])
		}
	}
}

// winoGradOutPlaneKernel is winoGradOut for float32 with vector
// instructions that load each tile's rows from the plane where they lie,
// with 384+l.need elements of scratch; nil where the CPU has none. The
// plane is followed by whatever lies after it (the tiles that cross its
// edges are read whole, and the elements outside it cleared after);
// where less than l.need elements remain, it is copied first.
var winoGradOutPlaneKernel func(l *winoGradTable, plane, u []float32, us int, scratch []float32)

// winoGradTable tells winoGradOutPlaneKernel where the 4x4 tiles of an
// output gradient plane lie: sixteen tiles to a group of lanes, the
// plane's tiles in order, then empty lanes up to a multiple of sixteen.
type winoGradTable struct {
	lanes []winoGradLanes
	ow    int // the plane's row length
	reach int // the plane's elements
	need  int // the elements from the plane's first that its tiles read whole
}

// winoGradLanes is a group of sixteen tiles of a winoGradTable: each
// tile's first element in the plane (zero for an empty lane), and masks
// of the lanes whose row i (rows[i]) and column j (cols[j]) lie in the
// plane, bit l for lane l.
type winoGradLanes struct {
	first      [16]int32
	rows, cols [4]uint16
}

// winoGradPlaneFits reports whether the tiles of g's output planes lie
// within the reach of winoGradLanes' 32-bit offsets.
func winoGradPlaneFits(g ConvGeom) bool { return g.OutH()*g.OutW()+4*g.OutW() < 1<<31 }

// winoGradTables holds a winoGradTable per convolution geometry.
var winoGradTables geomCache[*winoGradTable]

func newWinoGradTable(g ConvGeom) *winoGradTable {
	oh, ow := g.OutH(), g.OutW()
	f := newWinoFrame(g)
	tiles := f.tilesH * f.tilesW
	t := &winoGradTable{lanes: make([]winoGradLanes, ceilDiv(tiles, 16)), ow: ow, reach: oh * ow,
		need: winoTile*(f.tilesH-1)*ow + winoTile*(f.tilesW-1) + (winoTile-1)*ow + winoTile}
	for tile := range tiles {
		r, c := winoTile*(tile/f.tilesW), winoTile*(tile%f.tilesW)
		l, bit := &t.lanes[tile/16], uint16(1)<<(tile%16)
		l.first[tile%16] = int32(r*ow + c)
		for i := range winoTile {
			if r+i < oh {
				l.rows[i] |= bit
			}
			if c+i < ow {
				l.cols[i] |= bit
			}
		}
	}
	return t
}

// WinogradWeightGradFast reports whether ConvWeightGradWinograd has its
// vector kernels for T on this CPU; without them it is correct but
// slower than the column matrix and its product.
func WinogradWeightGradFast[T Float]() bool {
	var zero T
	_, f32 := any(zero).(float32)
	return f32 && winoGradOutPlaneKernel != nil && WinogradFast[T]()
}

// winoGradOut writes A e Aᵀ of each 4x4 tile e of one output gradient
// plane (OutH x OutW, zero past its edges) to u: position p of tile t at
// u[p*ustride+t], for the tp columns of the plane's tiles (zero past the
// last). e (16 rows of stride tp) holds the tiles, row i*4+j holding
// element (i, j) of each.
func winoGradOut[T Float](g ConvGeom, f winoFrame, plane, u []T, ustride, tp int, e []T) {
	oh, ow := g.OutH(), g.OutW()
	tiles := f.tilesH * f.tilesW
	full := ow / winoTile // the tiles of a row that lie inside the plane
	for th := range f.tilesH {
		for i := range winoTile {
			r := winoTile*th + i
			at := th * f.tilesW
			e0 := e[i*winoTile*tp+at:][:f.tilesW]
			e1 := e[(i*winoTile+1)*tp+at:][:f.tilesW]
			e2 := e[(i*winoTile+2)*tp+at:][:f.tilesW]
			e3 := e[(i*winoTile+3)*tp+at:][:f.tilesW]
			if r >= oh {
				clear(e0)
				clear(e1)
				clear(e2)
				clear(e3)
				continue
			}
			src := plane[r*ow:][:ow]
			for tw := range full {
				x := src[winoTile*tw:][:winoTile]
				e0[tw], e1[tw], e2[tw], e3[tw] = x[0], x[1], x[2], x[3]
			}
			for tw := full; tw < f.tilesW; tw++ { // a tile past the plane's right edge
				for j, ej := range [...][]T{e0, e1, e2, e3} {
					var x T
					if q := winoTile*tw + j; q < ow {
						x = src[q]
					}
					ej[tw] = x
				}
			}
		}
	}
	for i := range winoTile * winoTile {
		clear(e[i*tp+tiles : (i+1)*tp])
	}
	winoGradOutLanes(tp, e, tp, u, ustride)
}

// winoGradOutLanes is A e Aᵀ for n lanes: e (rows i*4+j, row stride es)
// holds the tiles, and row r*6+s of u (row stride us) receives element
// (r, s) of A e Aᵀ.
func winoGradOutLanes[T Float](n int, e []T, es int, u []T, us int) {
	for l := range n {
		var ae [winoPatch][winoTile]T
		for j := range winoTile {
			x := gradColumn(e[j*es+l], e[(4+j)*es+l], e[(8+j)*es+l], e[(12+j)*es+l])
			for r := range winoPatch {
				ae[r][j] = x[r]
			}
		}
		for r := range winoPatch {
			x := gradColumn(ae[r][0], ae[r][1], ae[r][2], ae[r][3])
			for s, val := range x {
				u[(r*winoPatch+s)*us+l] = val
			}
		}
	}
}

// gradColumn is A times a column of four values: A is Aᵀ of the output
// transform (outputColumn) transposed.
func gradColumn[T Float](e0, e1, e2, e3 T) [winoPatch]T {
	a, b := e0+e2, e1+e3
	c, d := e0+4*e2, 2*e1+8*e3
	return [winoPatch]T{e0, a + b, a - b, c + d, c - d, e3}
}
