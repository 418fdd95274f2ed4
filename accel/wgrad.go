package accel

import "slices"

// The direct weight gradient of a convolution computes
// dW[f][t] = Σ_p gy[f][p] · col[t][p] without the column matrix: for each
// tap t, the image rows the tap reads are multiplied against the rows of
// the output gradient, sixteen output positions to a vector, six filters
// at a time. Lane sums are kept per tap and filter across the images of a
// call and added up once at its end.

// wgradSeg is a vector's worth of output positions: a run of at most 16
// along an output row (along the whole plane for pointwise geometries),
// or, for narrow outputs, two whole rows side by side. Lanes in mask
// read the image at xoff+lane from a tap's first element, lanes in mask2 at xoff2+lane; the gradient is read at
// gyoff+lane of a filter's output plane for the lanes of either.
type wgradSeg struct {
	xoff, gyoff int
	mask        uint64
	xoff2       int
	mask2       uint64
}

// wgradKernel runs the direct weight gradient of one image for six
// filters (see wgrad6AVX512), or is nil when the CPU has no such kernel.
var wgradKernel func(t *wgradTable, x, gy []float32, fs int, acc []float32)

// wgradTable holds what the direct weight gradient of one geometry reads
// with: each tap's offset in the image (bordered with zeros when the
// geometry pads), the segments of the output, and how far the reads
// reach past a tap's offset and past a filter row's start.
type wgradTable struct {
	offs            []int // a multiple of 4 of them (see wgradTableFor)
	taps            int   // how many of offs are the geometry's own
	offMax          int   // the largest of offs
	segs            []wgradSeg
	xReach, gyReach int
	// fwdSegs are segs padded with empty ones to whole blocks of the
	// direct forward's kernels: blocks of three segments when some
	// segment holds two rows, as twoRow says; else blocks of four, the
	// first fwdFours segments, then up to three blocks of three, so that
	// few lanes are left empty (14 segments, a 14x14 image's, take two
	// blocks of each, not four of four).
	fwdSegs  []wgradSeg
	fwdFours int
	twoRow   bool
}

var wgradCache geomCache[*wgradTable]

// pointwise reports whether g is a 1x1 convolution at unit stride without
// padding: a product of the weights and the image's planes as they lie.
func (g ConvGeom) pointwise() bool {
	return g.KernelH == 1 && g.KernelW == 1 && g.StrideH == 1 && g.StrideW == 1 && g.PadH == 0 && g.PadW == 0
}

// wgradTableFor returns the table of geometry g (unit stride along the
// width), made on first use and cached.
func wgradTableFor(g ConvGeom) *wgradTable { return wgradCache.get(g, newWgradTable) }

func newWgradTable(g ConvGeom) *wgradTable {
	outH, outW := g.OutH(), g.OutW()
	ph, pw := g.InH+2*g.PadH, g.InW+2*g.PadW
	t := &wgradTable{}
	for r := range g.colRows() {
		c, kh, kw := g.tap(r)
		t.offs = append(t.offs, (c*ph+kh*g.DilateH)*pw+splitColumn(pw, kw*g.DilateW, splitColumns(g)))
	}
	t.taps = len(t.offs)
	t.offMax = slices.Max(t.offs)
	// The kernel takes four taps at a time: the last few are repeated,
	// into lane sums nobody reads.
	for len(t.offs)%4 != 0 {
		t.offs = append(t.offs, t.offs[len(t.offs)-1])
	}
	if g.pointwise() {
		// The image plane and the output plane are the same array: runs
		// of 16 cross the rows, so that no vector is part empty and each
		// starts where the plane's vectors do.
		for p := 0; p < outH*outW; p += 16 {
			n := min(16, outH*outW-p)
			t.segs = append(t.segs, wgradSeg{xoff: p, gyoff: p, mask: 1<<n - 1})
			t.xReach, t.gyReach = p+n, p+n
		}
	} else {
		t.rowSegs(g)
	}
	for _, s := range t.segs {
		t.twoRow = t.twoRow || s.mask2 != 0
	}
	n, threes := len(t.segs), 0
	switch {
	case t.twoRow:
		threes = ceilDiv(n, 3)
	case 3*((4-n%4)%4) <= n:
		threes = (4 - n%4) % 4 // n - 3*threes is a multiple of 4
	default:
		threes = ceilDiv(n, 3) // too few segments for blocks of four
	}
	t.fwdFours = max(0, n-3*threes)
	t.fwdSegs = append([]wgradSeg(nil), t.segs...)
	for len(t.fwdSegs) < t.fwdFours+3*threes {
		t.fwdSegs = append(t.fwdSegs, wgradSeg{}) // no lanes: nothing read or written
	}
	return t
}

// fwdMain is how many of fwdSegs lie in blocks where a chunk of the
// direct forward may end: the blocks of four, or every segment of a
// table of two-row blocks.
func (t *wgradTable) fwdMain() int {
	if t.twoRow {
		return len(t.fwdSegs)
	}
	return t.fwdFours
}

// rowSegs cuts g's output rows into segments: runs of at most 16 along a
// row, or two whole rows side by side where rows are at most 8 long.
func (t *wgradTable) rowSegs(g ConvGeom) {
	outH, outW := g.OutH(), g.OutW()
	pw := g.InW + 2*g.PadW
	for oh := 0; oh < outH; oh++ {
		if outW <= 8 && oh+1 < outH {
			// Two rows in one vector: the second row's lanes start at
			// outW, and its image row lies StrideH rows further down.
			s := wgradSeg{xoff: oh * g.StrideH * pw, gyoff: oh * outW, mask: 1<<outW - 1,
				xoff2: (oh+1)*g.StrideH*pw - outW, mask2: (1<<outW - 1) << outW}
			t.segs = append(t.segs, s)
			t.xReach = max(t.xReach, s.xoff2+2*outW)
			t.gyReach = max(t.gyReach, s.gyoff+2*outW)
			oh++
			continue
		}
		for ow0 := 0; ow0 < outW; ow0 += 16 {
			n := min(16, outW-ow0)
			s := wgradSeg{xoff: oh*g.StrideH*pw + ow0, gyoff: oh*outW + ow0, mask: 1<<n - 1}
			t.segs = append(t.segs, s)
			t.xReach = max(t.xReach, s.xoff+n)
			t.gyReach = max(t.gyReach, s.gyoff+n)
		}
	}
}

// ConvWeightGradDirect writes into dw (filters x Channels*KernelH*KernelW,
// row-major) the weight gradient of a run of images: the sum over the
// images of gy·im2col(img)ᵀ, with image n at img[n*imgStride:] and its
// output gradient (filters x OutH*OutW) at gy[n*gyStride:]. It works
// without a column matrix, and reports false, doing nothing, where it has
// no kernel: other types than float32, a stride along the width other
// than 1, fewer than six filters, or a CPU without AVX-512.
func ConvWeightGradDirect[T Float](g ConvGeom, filters, images int, img []T, imgStride int, gy []T, gyStride int, dw []T) bool {
	if !ConvWeightGradDirectApplies[T](g, filters) || images < 1 {
		return false
	}
	img32, gy32, dw32 := any(img).([]float32), any(gy).([]float32), any(dw).([]float32)
	outH, outW, taps := g.OutH(), g.OutW(), g.colRows()
	t := wgradTableFor(g)
	plane := outH * outW
	groups := ceilDiv(filters, 6)
	stride := len(t.offs) * 96 // lane sums of one group: 6 filters x 16 lanes per tap, padded taps included
	accp := GetScratch[float32](groups * stride)
	defer PutScratch(accp)
	acc := (*accp)[:groups*stride]
	clear(acc)
	dw32 = dw32[:filters*taps]
	// Group q holds filters f0(q) to f0(q)+5; the last one is shifted
	// back to end at the last filter, overlapping the one before.
	f0 := func(q int) int { return min(q*6, filters-6) }
	for n := range images {
		src, bp := borderedImage(g, img32[n*imgStride:])
		for q := range groups {
			wgradKernel(t, src, gy32[n*gyStride+f0(q)*plane:][:filters*plane-f0(q)*plane], plane, acc[q*stride:][:stride])
		}
		if bp != nil {
			putBuf(bp)
		}
	}
	for f := range filters {
		q := min(f/6, groups-1)
		lanes := acc[q*stride+(f-f0(q))*16:]
		row := dw32[f*taps:][:taps]
		for tap := range row {
			l := lanes[tap*96:][:16]
			var s0, s1, s2, s3 float32
			for i := 0; i < 16; i += 4 {
				s0 += l[i]
				s1 += l[i+1]
				s2 += l[i+2]
				s3 += l[i+3]
			}
			row[tap] = (s0 + s1) + (s2 + s3)
		}
	}
	return true
}
