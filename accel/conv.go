package accel

import (
	"fmt"
	"sync"
)

// ConvGeom describes one image's convolution window geometry. A 1-D
// convolution uses InH=1, KernelH=1, StrideH=1, PadH=0, DilateH=1.
type ConvGeom struct {
	Channels, InH, InW int
	KernelH, KernelW   int
	StrideH, StrideW   int
	PadH, PadW         int
	DilateH, DilateW   int
}

// OutH is the number of output rows: (InH + 2*PadH - DilateH*(KernelH-1) - 1)/StrideH + 1.
func (g ConvGeom) OutH() int {
	return convOut(g.InH, g.KernelH, g.StrideH, g.PadH, g.DilateH)
}

// OutW is the number of output columns, as OutH for the width.
func (g ConvGeom) OutW() int {
	return convOut(g.InW, g.KernelW, g.StrideW, g.PadW, g.DilateW)
}

func convOut(in, kernel, stride, pad, dilate int) int {
	return (in+2*pad-dilate*(kernel-1)-1)/stride + 1
}

// colRows is the number of rows of the column matrix: Channels*KernelH*KernelW.
func (g ConvGeom) colRows() int { return g.Channels * g.KernelH * g.KernelW }

// im2colGrain is the number of column-matrix elements below which Im2col
// and Col2im stay on the calling goroutine.
const im2colGrain = 1 << 15

// Im2col writes col, a (Channels*KernelH*KernelW) x (OutH*OutW) row-major
// matrix, from one image img (Channels x InH x InW). Row (c*KernelH+kh)*KernelW+kw
// of col holds, for every output position (oh, ow), the input element
// img[c, oh*StrideH-PadH+kh*DilateH, ow*StrideW-PadW+kw*DilateW], or zero where
// that falls in the padding. The product W*col, with W the filters as a
// Filters x (Channels*KernelH*KernelW) matrix, is then the convolution.
func Im2col[T Float](g ConvGeom, img, col []T) {
	Im2colAt(g, img, col, g.OutH()*g.OutW())
}

// Im2colAt is Im2col writing row r of the column matrix at col[r*ld:]
// (ld at least OutH*OutW): the column matrices of several images side by
// side in one matrix, image i's at col[i*OutH*OutW:] with ld their total
// width.
func Im2colAt[T Float](g ConvGeom, img, col []T, ld int) {
	outH, outW := g.OutH(), g.OutW()
	rows, cols := g.colRows(), outH*outW
	if rows <= 0 || outH <= 0 || outW <= 0 {
		return
	}
	if ld < cols || len(col) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("accel: Im2colAt: col of %d elements with row stride %d cannot hold %d rows of %d", len(col), ld, rows, cols))
	}
	img = img[:g.Channels*g.InH*g.InW]
	grain := max(1, im2colGrain/max(1, cols))
	if cols <= im2colGatherCols {
		src, bp := im2colImage(g, img)
		if bp != nil {
			defer putBuf(bp)
		}
		ParallelRange(rows, grain, im2colGatherLoop[T]{tablesFor(g, PanelWidth[T]()), src, col, ld, cols})
		return
	}
	if splitColumns(g) && ld == cols {
		// At a stride of 2 the image's columns are split into even and
		// odd ones, and each output row is a run copied whole, as in
		// Im2colPacked with a single panel as wide as the matrix.
		src, bp := im2colImage(g, img)
		defer putBuf(bp)
		gather32, _ := any(gatherRunsKernel).(func(dst []T, w int, src []T, tapBase []int, runs []int) int)
		l := im2colPackedLoop[T]{tb: tablesFor(g, cols), gather32: gather32, src: src, dst: col[:rows*cols], k: rows, n: cols, w: cols}
		ParallelRange(rows, grain, im2colTapsLoop[T]{l})
		return
	}
	ParallelRange(rows, grain, im2colLoop[T]{g, outH, outW, ld, img, col})
}

// im2colGatherCols is the largest output plane for which Im2colAt gathers
// each row of the column matrix through the tables of Im2colPacked from
// the bordered image, rather than copying it output row by output row:
// at 4x4 (ResNet-18's last stage in its training step at 112x112) the
// copies of four elements took 40% of the side-by-side convolution's
// time.
const im2colGatherCols = 64

// im2colGatherLoop is Im2colAt's loop over column-matrix rows for small
// planes: row r is src[tapBase[r]+posOff[j]] for each output position j.
type im2colGatherLoop[T Float] struct {
	tb       *im2colTables
	src, col []T
	ld, cols int
}

func (l *im2colGatherLoop[T]) Range(lo, hi int) {
	offs := l.tb.posOff[:l.cols]
	for r := lo; r < hi; r++ {
		dst := l.col[r*l.ld:][:len(offs)]
		src := l.src[l.tb.tapBase[r]:]
		for j, o := range offs {
			dst[j] = src[o]
		}
	}
}

// im2colLoop is Im2colAt's loop over column-matrix rows.
type im2colLoop[T Float] struct {
	g              ConvGeom
	outH, outW, ld int
	img, col       []T
}

func (l *im2colLoop[T]) Range(lo, hi int) {
	cols := l.outH * l.outW
	for r := lo; r < hi; r++ {
		im2colRow(l.g, r, l.outH, l.outW, l.img, l.col[r*l.ld:][:cols])
	}
}

// im2colRow fills row r of the column matrix: one (c, kh, kw) kernel tap
// across all output positions.
func im2colRow[T Float](g ConvGeom, r, outH, outW int, img, dst []T) {
	c, kh, kw := g.tap(r)
	plane := img[c*g.InH*g.InW : (c+1)*g.InH*g.InW]
	offW := kw*g.DilateW - g.PadW
	owLo, owHi := validRange(outW, g.InW, g.StrideW, offW)
	for oh := range outH {
		out := dst[oh*outW : (oh+1)*outW]
		ih := oh*g.StrideH - g.PadH + kh*g.DilateH
		if ih < 0 || ih >= g.InH || owLo >= owHi {
			clear(out)
			continue
		}
		clear(out[:owLo])
		clear(out[owHi:])
		src := plane[ih*g.InW : (ih+1)*g.InW]
		if g.StrideW == 1 {
			copy(out[owLo:owHi], src[owLo+offW:owHi+offW])
			continue
		}
		for ow := owLo; ow < owHi; ow++ {
			out[ow] = src[ow*g.StrideW+offW]
		}
	}
}

// Col2im adds the columns back into img: it is the adjoint of Im2col, so
// every col element is added to the image element it was copied from, and
// elements that came from padding are dropped. img is not cleared first.
func Col2im[T Float](g ConvGeom, col, img []T) {
	outH, outW := g.OutH(), g.OutW()
	cols := outH * outW
	taps := g.KernelH * g.KernelW
	if taps <= 0 || g.Channels <= 0 || outH <= 0 || outW <= 0 {
		return
	}
	img = img[:g.Channels*g.InH*g.InW]
	col = col[:g.colRows()*cols]
	// Taps of one channel overlap in the image, so channels are the unit of
	// parallel work.
	grain := max(1, im2colGrain/max(1, taps*cols))
	ParallelRange(g.Channels, grain, col2imLoop[T]{g, outH, outW, col, img})
}

// Col2imSet writes into img what Col2im would add into a zeroed img:
// every col element summed into the image element it was copied from.
// For float32 at a stride of 1 or 2 along the width it gathers instead
// of scattering: each vector of 8 image elements sums the masked loads
// of the column elements that map to it (at a stride of 2, four of them
// a load, moved to every other lane), and is stored once. (The data
// gradients of ResNet-18's convolutions at a stride of 2 spent a
// quarter of their time scattering.)
func Col2imSet[T Float](g ConvGeom, col, img []T) {
	outH, outW := g.OutH(), g.OutW()
	cols := outH * outW
	img = img[:g.Channels*g.InH*g.InW]
	k, _ := any(col2imRowKernel).(func(dst, col []T, offs []int, t *col2imGatherTable))
	if k == nil || g.StrideW > 2 || g.InW < 8 || g.KernelH*g.KernelW <= 0 || cols <= 0 {
		clear(img)
		Col2im(g, col, img)
		return
	}
	col = col[:g.colRows()*cols]
	grain := max(1, im2colGrain/max(1, g.KernelH*g.KernelW*cols))
	ParallelRange(g.Channels, grain, col2imSetLoop[T]{g, col2imGatherFor(g), k, col, img})
}

// col2imSetLoop is Col2imSet's loop over channels.
type col2imSetLoop[T Float] struct {
	g        ConvGeom
	t        *col2imGatherTable
	k        func(dst, col []T, offs []int, t *col2imGatherTable)
	col, img []T
}

func (l *col2imSetLoop[T]) Range(lo, hi int) {
	g, t := l.g, l.t
	plane := g.KernelH * g.KernelW * g.OutH() * g.OutW() // column-matrix elements per channel
	for c := lo; c < hi; c++ {
		col := l.col[c*plane:][:plane]
		for ih := range g.InH {
			l.k(l.img[(c*g.InH+ih)*g.InW:][:g.InW], col, t.rowOffs[t.rowStart[ih]:t.rowStart[ih+1]], t)
		}
	}
}

// col2imGatherTable lays out the vectors of one image row for Col2imSet:
// the first column iw0 of each (every 8th, and the last 8 when the width
// is not a multiple of 8), and for each vector and kernel column j a
// col2imTap. Image row ih of a channel reads the kernel rows whose
// output row falls on it: rowOffs[rowStart[ih]:rowStart[ih+1]] are the
// offsets, within the channel's column-matrix rows, of each such kernel
// row's first tap at its output row.
type col2imGatherTable struct {
	kw                int
	iw0               []int
	taps              []col2imTap // len(iw0) * kw
	rowOffs, rowStart []int
}

// col2imTap is the load of one kernel column for one vector: an element
// offset from a kernel row's first column-matrix row at its output row,
// the lanes of the load whose output column exists (all ones) or not
// (zero), and the lane of the load that each lane of the vector takes
// (a masked-off one, which loads zero, for a lane the tap does not
// reach).
type col2imTap struct {
	off  int
	mask [8]int32
	perm [8]int32
}

var gatherCache geomCache[*col2imGatherTable]

// col2imGatherFor returns the table of geometry g (a stride of 1 or 2
// along the width), made on first use and cached.
func col2imGatherFor(g ConvGeom) *col2imGatherTable { return gatherCache.get(g, newCol2imGatherTable) }

func newCol2imGatherTable(g ConvGeom) *col2imGatherTable {
	outH, outW := g.OutH(), g.OutW()
	cols := outH * outW
	t := &col2imGatherTable{kw: g.KernelW}
	for iw0 := 0; iw0 < g.InW; iw0 += 8 {
		t.iw0 = append(t.iw0, min(iw0, g.InW-8))
	}
	t.rowStart = append(t.rowStart, 0)
	for ih := range g.InH {
		for kh := range g.KernelH {
			y := ih + g.PadH - kh*g.DilateH
			if y >= 0 && y%g.StrideH == 0 && y/g.StrideH < outH {
				t.rowOffs = append(t.rowOffs, kh*g.KernelW*cols+y/g.StrideH*outW)
			}
		}
		t.rowStart = append(t.rowStart, len(t.rowOffs))
	}
	for _, iw0 := range t.iw0 {
		for j := range g.KernelW {
			// Image column iw takes output column (iw + shift)/StrideW
			// where that divides: load lane i holds output column ow0+i.
			// At a stride of 2 only load lanes 0 to 3 are reached, and
			// the lanes the tap does not reach take lane 7, masked off.
			shift := g.PadW - j*g.DilateW
			ow0 := floorDiv(iw0+shift+g.StrideW-1, g.StrideW)
			tap := col2imTap{off: j*cols + ow0}
			for lane := range tap.perm {
				tap.perm[lane] = 7
				if x := iw0 + lane + shift; x%g.StrideW == 0 {
					i := x/g.StrideW - ow0
					tap.perm[lane] = int32(i)
					if ow := x / g.StrideW; ow >= 0 && ow < outW {
						tap.mask[i] = -1
					}
				}
			}
			t.taps = append(t.taps, tap)
		}
	}
	return t
}

// floorDiv is a/b rounded down, for positive b.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// col2imLoop is Col2im's loop over channels.
type col2imLoop[T Float] struct {
	g          ConvGeom
	outH, outW int
	col, img   []T
}

func (l *col2imLoop[T]) Range(lo, hi int) {
	cols, taps := l.outH*l.outW, l.g.KernelH*l.g.KernelW
	for r := lo * taps; r < hi*taps; r++ {
		col2imRow(l.g, r, l.outH, l.outW, l.col[r*cols:(r+1)*cols], l.img)
	}
}

// col2imRow adds row r of the column matrix into the image.
func col2imRow[T Float](g ConvGeom, r, outH, outW int, src, img []T) {
	c, kh, kw := g.tap(r)
	plane := img[c*g.InH*g.InW : (c+1)*g.InH*g.InW]
	offW := kw*g.DilateW - g.PadW
	owLo, owHi := validRange(outW, g.InW, g.StrideW, offW)
	if owLo >= owHi {
		return
	}
	offH := kh*g.DilateH - g.PadH
	if g.StrideW == 1 {
		// Whole rows at unit stride: one call for the tap.
		ohLo, ohHi := validRange(outH, g.InH, g.StrideH, offH)
		if ohLo < ohHi {
			addRows(plane[(ohLo*g.StrideH+offH)*g.InW+owLo+offW:], g.StrideH*g.InW,
				src[ohLo*outW+owLo:], outW, ohHi-ohLo, owHi-owLo)
		}
		return
	}
	for oh := range outH {
		ih := oh*g.StrideH + offH
		if ih < 0 || ih >= g.InH {
			continue
		}
		in := src[oh*outW : (oh+1)*outW]
		dst := plane[ih*g.InW : (ih+1)*g.InW]
		for ow := owLo; ow < owHi; ow++ {
			dst[ow*g.StrideW+offW] += in[ow]
		}
	}
}

// tap splits a column-matrix row index into (channel, kernel row, kernel column).
func (g ConvGeom) tap(r int) (c, kh, kw int) {
	kw = r % g.KernelW
	r /= g.KernelW
	return r / g.KernelH, r % g.KernelH, kw
}

// validRange returns the output positions [lo, hi) of [0, out) whose input
// position o*stride+off lies in [0, in).
func validRange(out, in, stride, off int) (lo, hi int) {
	// o*stride+off >= 0  <=>  o >= ceil(-off/stride)
	if off < 0 {
		lo = ceilDiv(-off, stride)
	}
	// o*stride+off <= in-1  <=>  o <= floor((in-1-off)/stride)
	if in-1-off < 0 {
		return 0, 0
	}
	hi = min(out, (in-1-off)/stride+1)
	lo = min(lo, hi)
	return lo, hi
}

// geomCache holds tables made per convolution geometry, the same for
// every image of that shape. It is emptied when it grows past
// tableCacheMax entries, which only a program that convolves many
// different shapes reaches.
type geomCache[V any] struct {
	mu sync.RWMutex
	m  map[ConvGeom]V // a map, not a sync.Map: its struct keys are not boxed per lookup
}

// get returns the table of g, made with make on first use.
func (c *geomCache[V]) get(g ConvGeom, make func(ConvGeom) V) V {
	c.mu.RLock()
	v, ok := c.m[g]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = make(g)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= tableCacheMax {
		c.m = map[ConvGeom]V{}
	}
	c.m[g] = v
	c.mu.Unlock()
	return v
}

// len is the number of geometries held.
func (c *geomCache[V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
