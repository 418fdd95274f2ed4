package accel

// The direct convolution forward computes out[f][p] = Σ_t w[f][t] ·
// col[t][p] without the column matrix: each output vector (a segment, as
// the direct weight gradient lays them out) sums, tap by tap, the image
// vector the tap reads times the tap's weight, for six filters at a time.

// convFwdKernel runs the direct forward of one image for six filters, or
// four where the table has no two-row segments, the rows of w, over
// segments lo to hi-1 of t.fwdSegs, whole blocks (see convFwdAVX512), or
// is nil when the CPU has no such kernel.
var convFwdKernel func(t *wgradTable, filters, lo, hi int, x, w, scale, bias, add []float32, relu, capped bool, cap float32, out []float32, fs int)

// filterGroups splits filters (at least six) into the groups that the
// direct forward's kernels take: sixes groups of six, then fours groups
// of four, then with tail one more group of six that ends at the last
// filter, overlapping the one before it (its first filters are computed
// twice, to the same values). Four goes where six does not divide the
// filters and the table has no two-row segments: the overlap wasted an
// eighth of the work of 32 filters (MobileNet v2's first layers) and of
// 16: in groups of six and four, 16 and 32 filters of a 1x1 convolution
// of 32 channels of 112x112 took 0.92 of their time, MobileNet v2's 3x3
// stem 0.93.
func filterGroups(filters int, twoRow bool) (sixes, fours int, tail bool) {
	sixes = filters / 6
	switch r := filters % 6; {
	case r == 0:
	case r == 4 && !twoRow:
		fours = 1
	case r == 2 && !twoRow && sixes >= 1:
		sixes, fours = sixes-1, 2
	default:
		tail = true
	}
	return sixes, fours, tail
}

// filterGroup returns the first filter and the count of group q of
// filterGroups' split.
func filterGroup(filters, sixes, fours, q int) (first, n int) {
	switch {
	case q < sixes:
		return 6 * q, 6
	case q < sixes+fours:
		return 6*sixes + 4*(q-sixes), 4
	}
	return filters - 6, 6
}

// convFwdChunkElems bounds, roughly, the image elements that one chunk of
// an image's output positions reads: every group of six filters runs over
// a chunk before the next chunk starts, so that its part of the image is
// read from cache by all but the first group. (An image larger than the
// L2 cache was read from memory once per group: MobileNet v2's 1x1
// convolutions of 32 channels of 112x112 to 32, and of 144 of 56x56 to
// 24, took 0.68 and 0.70 of their time once chunked, and its forward at
// batch 1 0.89.)
const convFwdChunkElems = 1 << 16

// Convolutions of at most fewFiltersMax filters (MobileNet v2's
// reductions to 16, 24 and 32 channels) take their chunks whole instead:
// one worker runs every group of filters over a chunk of fewFiltersChunk
// elements, so that the chunk is read into one core's caches, not into
// both. On two threads their forward took 0.7 to 0.75 of its time, and
// MobileNet v2's 0.94; on one, the reductions of 112x112 images 0.8 to
// 0.87.
const (
	fewFiltersMax   = 48
	fewFiltersChunk = 1 << 14
)

// sharedOutputMax is the largest output, in elements, whose filters the
// direct forward cuts into one share per worker (each share's groups of
// filters over every chunk, in order), so that a next layer split by
// channels, a depthwise one, finds its input in the cache of the core
// that wrote it. (In two halves of its own cache: larger outputs go
// through the shared L3 cache whatever the split, and there the split
// by chunks, each chunk's image read once into a core's cache, was
// faster: MobileNet v2's expansion of 16 channels of 112x112 to 96 took
// 1.12 of its time in shares.) MobileNet v2's depthwise layers of
// 28x28 took 0.85 of their time on two threads after expansions in
// shares.
const sharedOutputMax = 1 << 18

// zeroBias and unitScale stand for a missing bias and scale in the direct
// forward.
var (
	zeroBias  [6]float32
	unitScale = [6]float32{1, 1, 1, 1, 1, 1}
)

// ConvDirectApplies reports whether ConvForwardDirect has a kernel for
// geometry g with this many filters in T. A stride of 2 along the width
// is taken on the image with its columns split into even and odd ones
// (as Im2colPacked splits them), where each tap reads consecutive
// columns for consecutive outputs.
func ConvDirectApplies[T Float](g ConvGeom, filters int) bool {
	var zero T
	if _, ok := any(zero).(float32); !ok || convFwdKernel == nil || wgradKernel == nil {
		return false
	}
	return (g.StrideW == 1 || g.StrideW == 2) && filters >= 6 && g.OutH() > 0 && g.OutW() > 0 && g.colRows() > 0
}

// ConvWeightGradDirectApplies reports whether ConvWeightGradDirect has a
// kernel for geometry g with this many filters in T: where the forward
// has one, at unit stride along the width.
func ConvWeightGradDirectApplies[T Float](g ConvGeom, filters int) bool {
	return g.StrideW == 1 && ConvDirectApplies[T](g, filters)
}

// ConvForwardDirect writes the convolution of a run of images into out:
// image n at img[n*imgStride:] gives out[n*outStride:], filters x
// OutH*OutW, computed as weight (filters x Channels*KernelH*KernelW)
// times its column matrix, finished by ep (nil for none) as a product's
// epilogue would be: RowScale and RowBias per filter, Add laid out as out
// is (image n's at Add[n*outStride:], rows OutH*OutW apart: AddStride
// must be OutH*OutW, and Add must not share memory with out), then Relu
// and Cap. It works without a column matrix, and reports false, doing
// nothing, where it has no kernel: other types than float32, a stride
// along the width other than 1 or 2, fewer than six filters, a ColBias
// or an Add of another row stride, or a CPU without AVX-512. An image's
// chunks of output positions and its groups of six filters are spread
// over the workers; with at most fewFiltersMax filters, whole chunks.
func ConvForwardDirect[T Float](g ConvGeom, filters, images int, img []T, imgStride int, weight []T, ep *Epilogue[T], out []T, outStride int) bool {
	if !ConvDirectApplies[T](g, filters) || images < 1 {
		return false
	}
	plane := g.OutH() * g.OutW()
	var e Epilogue[float32]
	if ep != nil {
		e = *any(ep).(*Epilogue[float32])
	}
	if e.ColBias != nil || e.Add != nil && e.AddStride != plane {
		return false
	}
	if e.Add != nil && len(e.Add) < (images-1)*outStride+filters*plane {
		panic("accel: ConvForwardDirect's Add is shorter than its output")
	}
	img32, w32, out32 := any(img).([]float32), any(weight).([]float32), any(out).([]float32)
	t := wgradTableFor(g)
	block := 4 // segments of 16 positions (64 positions)
	if t.twoRow {
		block = 3 // segments of two rows of at most 8 (48 positions)
	}
	elems := convFwdChunkElems
	if filters <= fewFiltersMax {
		elems = fewFiltersChunk
	}
	chunk := block * max(1, elems/(g.Channels*g.StrideH*16*block))
	// Chunks end at blocks; the blocks of three that may end a table of
	// blocks of four go with the last chunk. They are as near the same
	// size as blocks allow, and whole chunks come in a multiple of the
	// workers: MobileNet v2's first convolution (32 filters of 3x3x3
	// over 112x112 positions) made five chunks, and on two threads one
	// worker ran three of them; its expansions of 24 channels of 56x56
	// made chunks of 168 and 28 segments, and on two threads the worker
	// with the small one waited for the other (as equal chunks they took
	// 0.86 of their time).
	chunks := max(1, ceilDiv(t.fwdMain(), chunk))
	if w := Workers(); filters <= fewFiltersMax && chunks > 1 && chunks%w != 0 {
		chunks = roundUp(chunks, w)
	}
	if t.fwdMain() > 0 {
		chunk = roundUp(ceilDiv(t.fwdMain(), chunks), block)
		chunks = ceilDiv(t.fwdMain(), chunk)
	}
	l := convFwdLoop{t: t, filters: filters, plane: plane, w: w32[:filters*g.colRows()], scale: e.RowScale, bias: e.RowBias,
		relu: e.Relu, capped: e.Capped, cap: e.Cap, chunk: chunk, chunks: chunks}
	// The filters go in groups of six and four (filterGroups); where the
	// last six end at the last filter, their first ones computed twice,
	// to the same values, by the task of the group they overlap, right
	// after it (the tasks of that group are taken first, being twice as
	// long: a separate pass left one worker idle, on two threads, for a
	// 43rd of ResNet-18's 14x14 convolutions).
	sixes, fours, tail := filterGroups(filters, t.twoRow)
	l.sixes, l.fours = sixes, fours
	for n := range images {
		src, bp := im2colImage(g, img32[n*imgStride:])
		l.src, l.out = src, out32[n*outStride:][:filters*l.plane]
		if e.Add != nil {
			l.add = e.Add[n*outStride:][:filters*l.plane]
		}
		switch {
		case filters <= fewFiltersMax:
			l.groups, l.whole = sixes+fours, true
			if tail {
				l.groups++
			}
			ParallelRange(chunks, 1, l)
		default:
			l.groups, l.whole, l.tail = sixes+fours, false, tail
			l.shares = 1
			if w := Workers(); l.groups%w == 0 && filters*plane <= sharedOutputMax {
				l.shares = w
			}
			ParallelRange(chunks*l.groups, 1, l)
		}
		if bp != nil {
			putBuf(bp)
		}
	}
	return true
}

// convFwdLoop is ConvForwardDirect's loop over the chunks of an image's
// output positions and, in each, the groups of filters (filterGroup's,
// of sixes and fours): task i is
// group groups-1-i%groups over chunk chunks-1-i/groups, and with tail,
// after group groups-1, the last group (which overlaps it); or with
// whole, every group over chunk chunks-1-i, one after another. A chunk
// is chunk segments of the table, the last one up to the table's end:
// it may be the largest, and goes first, so that no worker is left to
// run it alone at the end (MobileNet v2's reduction of 192 channels of
// 28x28 to 32 made nine chunks of four segments and a last of thirteen).
type convFwdLoop struct {
	t                             *wgradTable
	src, w, scale, bias, add, out []float32
	filters, plane                int
	relu, capped                  bool
	cap                           float32
	chunk, chunks, groups         int
	sixes, fours                  int
	shares                        int // the groups are cut into this many shares of whole groups
	whole, tail                   bool
}

func (l *convFwdLoop) Range(lo, hi int) {
	for i := lo; i < hi; i++ {
		if !l.whole {
			per := l.groups / l.shares
			r := i % (l.chunks * per)
			c, q := l.chunks-1-r/per, i/(l.chunks*per)*per+per-1-r%per
			l.run(c, q)
			if l.tail && q == l.groups-1 {
				l.run(c, l.groups)
			}
			continue
		}
		for q := range l.groups {
			l.run(l.chunks-1-i, q)
		}
	}
}

// run runs group q of filters over chunk c.
func (l *convFwdLoop) run(c, q int) {
	taps := l.t.taps
	s0, s1 := c*l.chunk, (c+1)*l.chunk
	if s1 >= l.t.fwdMain() {
		s1 = len(l.t.fwdSegs) // the last chunk, with the blocks of three
	}
	f, n := filterGroup(l.filters, l.sixes, l.fours, q)
	b, s := zeroBias[:n], unitScale[:n]
	if l.bias != nil {
		b = l.bias[f:][:n]
	}
	if l.scale != nil {
		s = l.scale[f:][:n]
	}
	var add []float32
	if l.add != nil {
		add = l.add[f*l.plane:]
	}
	convFwdKernel(l.t, n, s0, s1, l.src, l.w[f*taps:][:n*taps], s, b, add, l.relu, l.capped, l.cap, l.out[f*l.plane:], l.plane)
}
