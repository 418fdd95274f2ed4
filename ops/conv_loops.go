package ops

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/accel"
)

// The compute loops of Convolution, Deconvolution and
// _backward_Convolution_weight (conv.go): a convPlan describes the work
// per image and group, and the loops spread the images over accel's
// workers, lowering each to accel.Im2col or accel.Col2im and a matrix
// product (or the packed and direct paths for small images).

// convPlan is the per-image, per-group work of a (de)convolution. The image
// side (the data of a Convolution, the output of a Deconvolution) is what
// Im2col reads and Col2im writes; the maps side (the output of a
// Convolution, the data of a Deconvolution) holds maps feature maps per
// group of geom.OutH x geom.OutW. The weight is, per group, a maps x
// colRows matrix, the groups stacked: (groups*maps) x colRows.
type convPlan struct {
	batch, groups, maps int
	geom                accel.ConvGeom // Channels is per group
}

func (p convPlan) colRows() int   { return p.geom.Channels * p.geom.KernelH * p.geom.KernelW }
func (p convPlan) colCols() int   { return p.geom.OutH() * p.geom.OutW() }
func (p convPlan) imageSize() int { return p.geom.Channels * p.geom.InH * p.geom.InW } // per group
func (p convPlan) mapsSize() int  { return p.maps * p.colCols() }                      // per group

// direct reports whether the column matrix is the image itself (a 1x1
// kernel with unit stride and no padding), so Im2col can be skipped.
func (p convPlan) direct() bool {
	g := p.geom
	return g.KernelH == 1 && g.KernelW == 1 && g.StrideH == 1 && g.StrideW == 1 && g.PadH == 0 && g.PadW == 0
}

// newPlan builds the plan of a window over an image of channels x spatial
// (per image, all groups), 1-D windows becoming 2-D ones of height 1.
func newPlan(w convWindow, pad []int, batch, channels, groups, maps int, spatial []int) convPlan {
	g := accel.ConvGeom{Channels: channels / groups, InH: 1, KernelH: 1, StrideH: 1, DilateH: 1}
	last := len(w.kernel) - 1
	g.InW, g.KernelW, g.StrideW, g.PadW, g.DilateW = spatial[last], w.kernel[last], w.stride[last], pad[last], w.dilate[last]
	if last == 1 {
		g.InH, g.KernelH, g.StrideH, g.PadH, g.DilateH = spatial[0], w.kernel[0], w.stride[0], pad[0], w.dilate[0]
	}
	return convPlan{batch: batch, groups: groups, maps: maps / groups, geom: g}
}

// plan is the work of a Convolution of data (or its weight gradient).
func (a *ConvolutionAttrs) plan(data Shape) convPlan {
	w := a.win()
	return newPlan(w, w.pad, data[0], data[1], a.NumGroup, a.NumFilter, data[2:])
}

// plan is the work of a Deconvolution of data: the image is its output.
//
// It runs on every call, so it works out the output's spatial size (as
// deconvShape does) without allocating.
func (a *DeconvolutionAttrs) plan(data Shape) (convPlan, error) {
	if err := checkData("data", data, a.Kernel); err != nil {
		return convPlan{}, err
	}
	pad, adj, err := a.deconvPadAdj(data)
	if err != nil {
		return convPlan{}, err
	}
	w := a.win()
	var spatial [2]int
	for i := range w.kernel {
		o := w.stride[i]*(data[2+i]-1) + w.span(i) - 2*pad[i] + adj[i]
		if o <= 0 {
			return convPlan{}, Errorf("data %v with kernel %v, stride %v and pad %v gives no output (size %d in dim %d)",
				data, a.Kernel, Tuple(w.stride), Tuple(pad), o, i)
		}
		spatial[i] = o
	}
	out := spatial[:len(w.kernel)]
	p := newPlan(w, pad, data[0], a.NumFilter, a.NumGroup, data[1], out)
	if p.colCols() != data[2:].Size() {
		return convPlan{}, fmt.Errorf("internal: deconvolution of data %v to %s does not invert (%dx%d)", data, dims(out), p.geom.OutH(), p.geom.OutW())
	}
	return p, nil
}

// optionalFloats returns the elements of an optional float input (nil when absent).
func optionalFloats[T accel.Float](v Value) []T {
	if v.Data == nil {
		return nil
	}
	return v.Data.([]T)
}

// getScratch returns a buffer of n elements with unspecified contents from
// accel's size-classed pools (the column matrices of the (de)convolution
// kernels), so that steady-state calls do not allocate them; hand it back
// with putScratch.
func getScratch[T accel.Float](n int) *[]T { return accel.GetScratch[T](n) }

func putScratch[T accel.Float](bp *[]T) { accel.PutScratch(bp) }

// colScratch returns the column buffer of a plan, or nil when the plan
// needs none; release it with putCol.
func colScratch[T accel.Float](p convPlan) *[]T {
	if p.direct() {
		return nil
	}
	return getScratch[T](p.colRows() * p.colCols())
}

// colOf is the column buffer bp holds, or nil for none.
func colOf[T accel.Float](bp *[]T) []T {
	if bp == nil {
		return nil
	}
	return *bp
}

func putCol[T accel.Float](bp *[]T) {
	if bp != nil {
		putScratch(bp)
	}
}

// convKernel runs a convolution forward on float values (checked by the
// caller), with relu applied to the output when relu is set; with cache,
// the filters' transforms may be kept in the filter cache.
func convKernel(p convPlan, x, w, bias, y Value, relu, cache bool) {
	switch xd := x.Data.(type) {
	case []float32:
		convForward(p, xd, w.Data.([]float32), y.Data.([]float32), convPost[float32]{bias: optionalFloats[float32](bias), relu: relu, cache: cache})
	case []float64:
		convForward(p, xd, w.Data.([]float64), y.Data.([]float64), convPost[float64]{bias: optionalFloats[float64](bias), relu: relu, cache: cache})
	}
}

// convPost is what a convolution does to each output element after the
// product, for filter f (counted over all groups): multiply by scale[f],
// add bias[f], add the element of residual (laid out as the output) at
// the same place, then with relu replace a negative value by 0, and with
// capped a value above cap by cap (relu6). Nil slices are skipped. A
// plain convolution has a bias and relu at most; one with an inference
// BatchNorm folded in has the scale and shift of the normalisation (see
// convBNKernel).
type convPost[T accel.Float] struct {
	scale, bias, residual []T
	relu, capped          bool
	cap                   T
	// cache says that the call is outside training, so that the filters'
	// transforms may be taken from and kept in the filter cache.
	cache bool
}

// epilogue sets ep to post for image n and group g of plan p.
func (c *convPost[T]) epilogue(ep *accel.Epilogue[T], p convPlan, n, g int) {
	*ep = accel.Epilogue[T]{Relu: c.relu, Capped: c.capped, Cap: c.cap}
	if c.scale != nil {
		ep.RowScale = c.scale[g*p.maps:][:p.maps]
	}
	if c.bias != nil {
		ep.RowBias = c.bias[g*p.maps:][:p.maps]
	}
	if c.residual != nil {
		ep.Add = c.residual[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
		ep.AddStride = p.colCols()
	}
}

// packedConvMax is the largest column matrix, in elements, for which a
// convolution takes the kernels of small images: the direct forward where
// the CPU has it, and the packed transpose of the weight gradient. Larger
// forwards take the packed path without the direct kernel. (A variable so
// that tests can compare the paths.)
var packedConvMax = 1 << 18

// convAlgo is an algorithm of the convolution forward.
type convAlgo int

const (
	// algoBlocked is accel.Im2col and accel.Gemm per image and group (no
	// Im2col for a 1x1 kernel at unit stride): the reference the tests
	// compare the others with.
	algoBlocked convAlgo = iota
	// algoPacked writes the column matrix straight into Gemm's packed
	// layout and fuses bias and relu into the product (convPacked).
	algoPacked
	// algoDirect is accel.ConvForwardDirect: no column matrix at all.
	algoDirect
	// algoDepthwise is accel.Depthwise3x3: one 3x3 filter per channel.
	algoDepthwise
	// algoPointwise is a 1x1 kernel at unit stride without padding: the
	// filters times the image itself, bias and relu fused (convPointwise).
	algoPointwise
	// algoWinograd is accel.ConvWinograd, Winograd's F(4x4, 3x3), for a
	// 3x3 kernel at unit stride (convWinograd).
	algoWinograd
	// algoSideBySide multiplies the column matrices of several images
	// with small planes at once (convSideBySide).
	algoSideBySide
	// algoPlanes writes an image's column matrix as it lies for a product
	// that takes its 7x7 planes whole (convPointwise's loop, with the
	// column matrix).
	algoPlanes
)

// convAlgoFor chooses the forward algorithm of plan p in T: the one place
// where it is chosen. (Measured at MobileNet v2's and ResNet's shapes on
// an AVX-512 CPU; BenchmarkConvAlgo compares them.)
//
// A depthwise 3x3 convolution (MobileNet's) takes the direct depthwise
// kernel: each channel's product has a single row of filters, so the
// column matrix would be written for nine multiply-adds per element.
//
// A 1x1 convolution at unit stride without padding reads the image as it
// lies. The direct kernel, where the CPU has it, was the fastest for
// most such shapes measured, beyond packedConvMax too, up to
// pointwiseDirectMax, but not for images of up to 14x14
// (pointwiseProductPays) nor for 1x1 images (a classifier's
// convolution, a matrix-vector product that Gemm computes as dot
// products: a third of the direct kernel's time for MobileNet v2's
// 1000x1280); elsewhere the pointwise path, a Gemm on the image with the
// epilogue fused, saves the blocked path's separate bias pass.
//
// A 3x3 convolution at unit stride on a large enough image takes
// Winograd's algorithm (winogradPays).
//
// Outputs of whole 7x7 planes that the direct kernel does not take
// (planesPay) go to a product that multiplies the planes whole: ResNet-18's
// last stage at batch 1 took 0.7 of the packed path's time, its 3x3
// convolutions at stride 2 to 7x7 and 14x14 maps 0.8 and 0.9; its 3x3
// convolutions of 14x14 at unit stride took 1.25 of the direct kernel's.
//
// The rest is packed, and direct where the CPU has the kernel, the image
// has more than directColsMin output positions and directPays says so
// (small images, small column matrices, and the stems at a stride of 2).
// The packed path
// writes the column matrix once, in the micro-kernel's layout, where
// the blocked one writes it and then packs it again, and packs the
// filters once for all images where the blocked one packs them per
// image: at ResNet-18's shapes it took 0.6 of the blocked path's time at
// batch 16, and 0.8 at batch 1.
func convAlgoFor[T accel.Float](p convPlan) convAlgo {
	k, cols := p.colRows(), p.colCols()
	switch {
	case p.maps == 1 && p.geom.Channels == 1 && accel.Depthwise3x3Applies(p.geom):
		return algoDepthwise
	case p.direct() && k*cols <= pointwiseDirectMax && accel.ConvDirectApplies[T](p.geom, p.maps) && !pointwiseProductPays(p) && cols > 1:
		return algoDirect
	case p.direct():
		return algoPointwise
	case winogradPays[T](p):
		return algoWinograd
	case sideBySidePays[T](p):
		return algoSideBySide
	case accel.ConvDirectApplies[T](p.geom, p.maps) && cols > directColsMin && directPays[T](p):
		return algoDirect
	case planesPay[T](p):
		return algoPlanes
	}
	return algoPacked
}

// sideBySidePays reports whether plan p in T multiplies images side by
// side (algoSideBySide): a batch of images with small planes
// (sideBySidePlane). ResNet-18's 4x4 planes fill half of a product's
// panel of columns: its training step's convolutions of them, and their
// data gradients (deconvByConv), took 0.3 of the packed path's time side
// by side. Its 7x7 planes, 49 of 64 columns, took 0.6 of it on one
// thread and 0.8 on two (measured once Im2colAt gathered small planes;
// before, side by side took 0.7 and 1.25).
func sideBySidePays[T accel.Float](p convPlan) bool {
	return p.batch > 1 && !p.direct() && sideBySidePlane[T](p.colCols())
}

// planesPay reports whether plan p in T takes algoPlanes: an image's
// output maps are whole 7x7 planes that the product takes as they are
// (accel.TakesPlanes), where 32-wide panels would leave 15 of every 64
// columns empty.
func planesPay[T accel.Float](p convPlan) bool {
	return !p.direct() && accel.TakesPlanes[T](p.maps, p.colCols(), p.colRows())
}

// sideBySidePlane reports whether cols columns (an image's plane) are
// multiplied side by side with other images' in T: at least two such
// planes fit in sideBySideDepth, and the plane is at most 7x7 or fills
// less than 0.6 of the product's panels.
func sideBySidePlane[T accel.Float](cols int) bool {
	return 2*cols <= sideBySideDepth && (cols <= 7*7 || float64(cols) < 0.6*float64(roundUp(cols, accel.PanelWidth[T]())))
}

// roundUp is a rounded up to a multiple of b, for positive b.
func roundUp(a, b int) int { return ceilDiv(a, b) * b }

// convSideBySide is convForward with the column matrices of up to
// sideBySideDepth/cols images side by side in one matrix, multiplied by
// the filters in one product; each image's maps are then copied out of
// the product and post applied to them. With turned, weight holds the
// filters of the convolution whose data gradient p computes, and the
// product turns them as it packs them (accel.GemmTurnedA).
func convSideBySide[T accel.Float](p convPlan, image, weight []T, turned bool, maps []T, post convPost[T]) {
	runs := ceilDiv(p.batch, max(1, sideBySideDepth/p.colCols()))
	per := ceilDiv(p.batch, runs) // runs of equal width, as near as may be
	accel.ParallelRange(runs, 1, convSideBySideLoop[T]{p, image, weight, maps, post, per, turned})
}

// convSideBySideLoop is convSideBySide's loop over runs of per images.
type convSideBySideLoop[T accel.Float] struct {
	p                   convPlan
	image, weight, maps []T
	post                convPost[T]
	per                 int
	turned              bool
}

func (l *convSideBySideLoop[T]) Range(lo, hi int) {
	p := l.p
	k, cols := p.colRows(), p.colCols()
	colp := getScratch[T](k * l.per * cols)
	defer putScratch(colp)
	prodp := getScratch[T](p.maps * l.per * cols)
	defer putScratch(prodp)
	for r := lo; r < hi; r++ {
		a, b := r*l.per, min((r+1)*l.per, p.batch)
		width := (b - a) * cols
		colAll, prod := (*colp)[:k*width], (*prodp)[:p.maps*width]
		for g := range p.groups {
			// The images' column matrices are written, and their maps
			// copied out, by whichever workers are free: with one run
			// for all the images, on one worker they kept ResNet-18's
			// last stage in training to 0.7 of its time on two threads.
			step := sideBySideStep[T]{l: l, a: a, g: g, width: width, cols: colAll}
			accel.ParallelRange(b-a, 1, step)
			if l.turned { // one group (deconvAsConv)
				accel.GemmTurnedA(p.maps, width, k, p.geom.KernelH*p.geom.KernelW, l.weight, colAll, width, prod, width)
			} else {
				accel.Gemm(false, false, p.maps, width, k, 1, l.weight[g*p.maps*k:], k, colAll, width, 0, prod, width)
			}
			step.out, step.prod = true, prod
			accel.ParallelRange(b-a, 1, step)
		}
	}
}

// sideBySideStep is convSideBySideLoop's loop over the images of a run
// from image a, group g: writing their column matrices side by side into
// cols (width columns), or, with out, copying their maps out of prod and
// applying the post-product steps.
type sideBySideStep[T accel.Float] struct {
	l           *convSideBySideLoop[T]
	a, g, width int
	cols, prod  []T
	out         bool
}

func (s *sideBySideStep[T]) Range(lo, hi int) {
	p, cols := s.l.p, s.l.p.colCols()
	if !s.out {
		for i := lo; i < hi; i++ {
			n := s.a + i
			accel.Im2colAt(p.geom, s.l.image[(n*p.groups+s.g)*p.imageSize():][:p.imageSize()], s.cols[i*cols:], s.width)
		}
		return
	}
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: Apply hands it to the workers
	defer accel.Recycle(ep)
	for i := lo; i < hi; i++ {
		n := s.a + i
		out := s.l.maps[(n*p.groups+s.g)*p.mapsSize():][:p.mapsSize()]
		copyRows(out, cols, s.prod[i*cols:], s.width, p.maps, cols)
		s.l.post.epilogue(ep, p, n, s.g)
		ep.Apply(out, cols, p.maps, cols)
	}
}

// winogradPays reports whether plan p takes Winograd's F(4x4, 3x3): a 3x3
// kernel at unit stride without groups, in a type with the vector
// kernels, on images of at least winogradMinTiles 4x4 tiles. Measured at
// ResNet-18's shapes (AVX-512, one thread, a busy machine) against the
// packed path, at batch 1 with the transformed filters found in the
// filter cache: 0.40 of its time for 64 channels of 56x56, 0.46 for 128
// of 28x28; at batch 16 with the filters transformed in the call: 0.51
// and 0.55, 0.69 for 64 of 28x28. For 256 channels of 14x14 (16 tiles,
// which fill half of a product's panel) it took 1.25 of the direct
// kernel's time at batch 1 and 1.08 at batch 2 (Zen 5, the filters
// cached), but less as the batch grows: 0.96 at batch 4, 0.84 at 8, 0.77
// at 16; in ResNet-18's training step at 112x112 (128 channels of 14x14,
// batch 16) 0.85 of the forward's time and 0.92 of the data gradient's.
// Images of fewer tiles than a block go several to a block (see
// accel.ConvWinograd): at batch 16, 512 channels of 7x7 took 0.69 of the
// time of their images side by side with the filters cached, and in the
// training step at 112x112 (256 of 7x7) 0.6 to 0.8 of the forward's time
// and 0.75 to 0.8 of the data gradient's; at batch 1 three times as
// long. At 4x4 (one tile) it took 1.5 times as long.
func winogradPays[T accel.Float](p convPlan) bool {
	if p.groups != 1 || !accel.WinogradFast[T]() || !accel.WinogradApplies(p.geom) {
		return false
	}
	tiles := accel.WinogradTiles(p.geom)
	return tiles >= winogradMinTiles || tiles >= winogradMinTiles/8 && p.batch >= winogradMinBatch
}

// winogradMinTiles is the least number of 4x4 output tiles per image for
// which Winograd's algorithm is chosen (winogradPays) whatever the batch;
// an eighth as many (7x7 planes) take it in batches of winogradMinBatch
// images or more.
const (
	winogradMinTiles = 32
	winogradMinBatch = 8
)

// convWinograd transforms the filters (or, outside training, finds them
// transformed in the filter cache), computes the convolution with accel.ConvWinograd and
// then applies post to each image's maps. With turned, weight holds the
// filters of the convolution whose data gradient p computes (see
// deconvByConv), turned as they are transformed.
func convWinograd[T accel.Float](p convPlan, image, weight []T, turned bool, maps []T, post convPost[T]) {
	var u []T
	if post.cache && !turned {
		u = cachedWinogradFilters(p, weight)
	}
	if u == nil {
		up := getScratch[T](accel.WinogradFiltersLen[T](p.maps, p.geom.Channels))
		defer putScratch(up)
		u = *up
		accel.WinogradFilters(p.maps, p.geom.Channels, turned, weight, u)
	}
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: it escapes into the loops
	defer accel.Recycle(ep)
	post.epilogue(ep, p, 0, 0)
	if post.residual != nil {
		ep.Add = post.residual // the whole batch's
	}
	accel.ConvWinograd(p.geom, p.maps, p.batch, image, u, maps, ep)
}

// pointwiseProductPays reports whether 1x1 convolution p takes the
// pointwise product rather than the direct kernel: on an image of at most
// 14x14. Measured at MobileNet v2's shapes with Gemm keeping A's panels
// in L1: 0.48 to 0.80 of the direct kernel's time for all of its 7x7 ones
// (expansions, reductions and 320 to 1280). At 14x14 its expansions (96
// to 576, 64 to 384) took 0.73 to 0.87, its reductions (576 to 96, 384 to
// 96 and to 64) 0.72 to 0.93, on one thread and on two; ResNet-18's
// shortcut of 128 to 256, 0.55 to 0.85. Since the direct kernel reads
// pointwise images in runs that cross the rows, 28x28 ones go direct:
// MobileNet v2's expansions of 32 to 192 took 0.8 of the product's time
// on one thread and 0.7 on two, ResNet-18's shortcut of 64 to 128 0.9.
// Larger images were as fast or faster direct, on two threads up to
// twice as fast.
func pointwiseProductPays(p convPlan) bool {
	cols := p.colCols()
	return cols <= 14*14
}

// directPays reports whether plan p in T, with more than directColsMin
// output positions, takes the direct kernel rather than a product with
// its column matrix: at unit stride along the width, where it has at
// most directColsAnyDepth output positions or a column matrix of at most
// packedConvMax elements; at a stride of 2, where its depth is at most
// directStridedDepth.
func directPays[T accel.Float](p convPlan) bool {
	k, cols := p.colRows(), p.colCols()
	if p.geom.StrideW != 1 {
		return k <= directStridedDepth
	}
	return cols <= directColsAnyDepth || accel.PackedBLen[T](k, cols) <= packedConvMax
}

// directStridedDepth is the largest depth (channels times taps) for which
// a convolution at a stride of 2 along the width takes the direct kernel:
// a network's stem, whose product with the column matrix is too shallow
// for the packed kernels. MobileNet v2's 3x3 stem, of depth 27, took 0.65
// of the packed path's time on one thread and 0.7 on two; ResNet's 7x7
// stem, of depth 147, 0.8. At a depth of 576 (ResNet-18's 64->128
// convolution at stride 2) it took 0.93 of the product's time on one
// thread and 0.82 on two (Zen 5); at 1152 and 2304 it was 1.02 to 1.06
// times as long on one thread.
const directStridedDepth = 576

// directColsMin is the most output positions for which a small
// convolution takes the packed path rather than the direct kernel: at
// ResNet-18's 7x7 and 4x4 layers (its training step at 112x112, batch 16)
// the packed path took 0.6 of the direct kernel's time; at 14x14, 1.08.
const directColsMin = 49

// directColsAnyDepth is the most output positions for which a
// convolution takes the direct kernel whatever the size of its column
// matrix. At 14x14 (ResNet-18's third stage at 224x224, where Winograd's
// tiles are too few) the direct kernel took 0.81 to 0.95 of the packed
// path's time for 128 to 512 channels, at batch 1 and 16, on one thread
// and on two.
const directColsAnyDepth = 14 * 14

// pointwiseDirectMax is the largest image, in elements, whose 1x1
// convolution takes the direct kernel.
const pointwiseDirectMax = 1 << 20

// convForward computes, per image and group, maps = W * im2col(image),
// then applies post, with the algorithm convAlgoFor chooses.
func convForward[T accel.Float](p convPlan, image, weight, maps []T, post convPost[T]) {
	if q, ok := subsampledPlan(p); ok {
		sp := getScratch[T](p.batch * p.groups * q.imageSize())
		defer putScratch(sp)
		sub := (*sp)[:p.batch*p.groups*q.imageSize()]
		planes := p.batch * p.groups * p.geom.Channels
		accel.ParallelRange(planes, max(1, subsampleGrain/(q.geom.InH*q.geom.InW)), subsampleLoop[T]{p.geom, image, sub})
		convForwardWith(convAlgoFor[T](q), q, sub, weight, maps, post)
		return
	}
	convForwardWith(convAlgoFor[T](p), p, image, weight, maps, post)
}

// subsampledPlan returns, for a 1x1 convolution at a stride above 1
// without padding (a ResNet's downsampling shortcut), the plan of the
// same convolution at unit stride on the image's subsampled pixels, the
// only ones it reads: that one reads the image as it lies (direct or
// pointwise) where p would write a column matrix. ResNet-18's three
// shortcuts at batch 1, subsampled first, took 0.5 to 0.8 of their time
// on one thread and on two.
func subsampledPlan(p convPlan) (convPlan, bool) {
	g := p.geom
	if g.KernelH != 1 || g.KernelW != 1 || g.PadH != 0 || g.PadW != 0 || g.StrideH == 1 && g.StrideW == 1 {
		return convPlan{}, false
	}
	q := p
	q.geom.InH, q.geom.InW = g.OutH(), g.OutW()
	q.geom.StrideH, q.geom.StrideW = 1, 1
	return q, true
}

// subsampleGrain is the number of elements from which the subsampling of
// subsampledPlan spreads its planes over the workers.
const subsampleGrain = 1 << 15

// subsampleLoop copies the pixels that 1x1 geometry g reads from each
// plane of img into a plane of g.OutH() x g.OutW() in sub.
type subsampleLoop[T accel.Float] struct {
	g        accel.ConvGeom
	img, sub []T
}

func (l *subsampleLoop[T]) Range(lo, hi int) {
	g := l.g
	outH, outW := g.OutH(), g.OutW()
	for pl := lo; pl < hi; pl++ {
		src := l.img[pl*g.InH*g.InW:][:g.InH*g.InW]
		dst := l.sub[pl*outH*outW:][:outH*outW]
		for oh := range outH {
			accel.Subsample(dst[oh*outW:][:outW], src[oh*g.StrideH*g.InW:][:(outW-1)*g.StrideW+1], g.StrideW)
		}
	}
}

// convForwardWith is convForward with algorithm algo, which must apply to p.
// Each algorithm applies all of post: the packed, pointwise and blocked
// ones to each tile of the output (accel.Epilogue), the direct kernel as
// it stores its sums, the depthwise one as convDepthwise says.
func convForwardWith[T accel.Float](algo convAlgo, p convPlan, image, weight, maps []T, post convPost[T]) {
	switch algo {
	case algoPointwise, algoPlanes:
		convPointwise(p, image, weight, maps, post)
	case algoPacked:
		convPacked(p, image, weight, maps, post)
	case algoBlocked:
		convBlocked(p, image, weight, maps, post)
	case algoWinograd:
		convWinograd(p, image, weight, false, maps, post)
	case algoSideBySide:
		convSideBySide(p, image, weight, false, maps, post)
	case algoDirect:
		accel.ParallelRange(p.batch, 1, convDirectLoop[T]{p, image, weight, maps, post})
	case algoDepthwise:
		convDepthwise(p, image, weight, maps, post)
	}
}

// convDepthwise is convForward through accel.Depthwise3x3, which applies
// a scale (to the filters as it loads them), a bias and a clamp: a
// residual, with what follows it, is applied in a pass after.
func convDepthwise[T accel.Float](p convPlan, image, weight, maps []T, post convPost[T]) {
	// The kernel bounds its outputs: relu, and relu6's cap, unless a
	// residual comes first.
	lo, hi := T(math.Inf(-1)), T(math.Inf(1))
	after := post.residual != nil || post.capped // a pass after the kernel
	if post.relu && post.residual == nil {
		lo = 0
		if post.capped {
			hi = post.cap
		}
		after = false
	}
	accel.Depthwise3x3(p.geom, p.batch*p.groups, p.groups, image, weight, post.scale, post.bias, lo, hi, maps)
	if after {
		plane := p.colCols()
		ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: Apply hands it to the workers
		*ep = accel.Epilogue[T]{Add: post.residual, AddStride: plane, Relu: post.relu, Capped: post.capped, Cap: post.cap}
		ep.Apply(maps, plane, len(maps)/plane, plane)
		accel.Recycle(ep)
	}
}

// convPointwise is convForward for a 1x1 kernel at unit stride without
// padding: per image and group, the filters (maps x channels) times the
// image as it lies (channels x positions), with post applied to each tile
// of the output while it is in cache. It serves algoPlanes too, for
// outputs of whole 7x7 planes that accel.TakesPlanes: the product then
// multiplies the image's column matrix.
func convPointwise[T accel.Float](p convPlan, image, weight, maps []T, post convPost[T]) {
	accel.ParallelRange(p.batch, 1, convPointwiseLoop[T]{p, image, weight, maps, post})
}

// convPointwiseLoop is convPointwise's loop over images: the filters
// times each image, as it lies for a 1x1 kernel at unit stride without
// padding (algoPointwise), else its column matrix written as it lies by
// accel.Im2colAt (algoPlanes).
type convPointwiseLoop[T accel.Float] struct {
	p                   convPlan
	image, weight, maps []T
	post                convPost[T]
}

func (l *convPointwiseLoop[T]) Range(lo, hi int) {
	p := l.p
	k, cols := p.colRows(), p.colCols()
	var col []T
	if !p.direct() {
		bp := getScratch[T](k * cols)
		defer putScratch(bp)
		col = (*bp)[:k*cols]
	}
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: it escapes into the product
	defer accel.Recycle(ep)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			l.post.epilogue(ep, p, n, g)
			img := l.image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			if col != nil {
				accel.Im2colAt(p.geom, img, col, cols)
				img = col
			}
			out := l.maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			accel.GemmEpilogue(false, false, p.maps, cols, k, l.weight[g*p.maps*k:], k, img, cols, out, cols, ep)
		}
	}
}

// convDirectLoop is convForward's loop over images with the direct kernel
// (accel.ConvForwardDirect), which needs no column matrix and applies all
// of post itself.
type convDirectLoop[T accel.Float] struct {
	p                   convPlan
	image, weight, maps []T
	post                convPost[T]
}

func (l *convDirectLoop[T]) Range(lo, hi int) {
	p, k := l.p, l.p.colRows()
	ep := accel.GetRecycled[accel.Epilogue[T]]()
	defer accel.Recycle(ep)
	for g := range p.groups {
		l.post.epilogue(ep, p, lo, g)
		if ep.Add != nil {
			ep.Add = l.post.residual[(lo*p.groups+g)*p.mapsSize():]
		}
		accel.ConvForwardDirect(p.geom, p.maps, hi-lo, l.image[(lo*p.groups+g)*p.imageSize():], p.groups*p.imageSize(),
			l.weight[g*p.maps*k:][:p.maps*k], ep, l.maps[(lo*p.groups+g)*p.mapsSize():], p.groups*p.mapsSize())
	}
}

// convBlocked is convForward through accel.Im2col and accel.Gemm, whose
// packing works in cache-sized blocks: the reference of the others.
func convBlocked[T accel.Float](p convPlan, image, weight, maps []T, post convPost[T]) {
	accel.ParallelRange(p.batch, 1, convForwardLoop[T]{p, image, weight, maps, post})
}

// convForwardLoop is convBlocked's loop over images.
type convForwardLoop[T accel.Float] struct {
	p                   convPlan
	image, weight, maps []T
	post                convPost[T]
}

func (l *convForwardLoop[T]) Range(lo, hi int) {
	p, image, weight, maps := l.p, l.image, l.weight, l.maps
	k, cols := p.colRows(), p.colCols()
	bp := colScratch[T](p)
	defer putCol(bp)
	col := colOf(bp)
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: Apply hands it to the workers
	defer accel.Recycle(ep)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			src := img
			if col != nil {
				accel.Im2col(p.geom, img, col)
				src = col
			}
			out := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			accel.Gemm(false, false, p.maps, cols, k, 1, weight[g*p.maps*k:], k, src, cols, 0, out, cols)
			l.post.epilogue(ep, p, n, g)
			ep.Apply(out, cols, p.maps, cols)
		}
	}
}

// convPacked is convForward for small images: the column matrix is
// written directly in the packed panel layout of accel.GemmPackedB (one
// copy instead of im2col's plus Gemm's packing), and post is applied to
// each output tile while it is in cache.
func convPacked[T accel.Float](p convPlan, image, weight, maps []T, post convPost[T]) {
	k, cols := p.colRows(), p.colCols()
	w := accel.PanelWidth[T]()
	l := accel.GetRecycled[convPackedLoop[T]]()
	defer accel.Recycle(l)
	panels := ceilDiv(cols, w)
	chunk := max(1, packedChunkMax/(k*w))
	if p.maps*k > packedChunkMax {
		// The product reads all the filters for each piece: with large
		// filters, once is cheaper.
		chunk = panels
	}
	*l = convPackedLoop[T]{p: p, image: image, maps: maps, post: post, chunk: chunk}
	if accel.ReadsARows[T](p.maps, cols, k) {
		// The product reads the filters as they lie.
		l.weight = weight
	} else {
		// The filters are packed once for all images.
		ap, alen := packFilters(p, weight, false)
		defer putScratch(ap)
		l.filters, l.alen = *ap, alen
	}
	chunks := ceilDiv(panels, l.chunk)
	if p.batch*p.groups >= accel.Workers() || chunks == 1 {
		accel.ParallelLoop(p.batch, 1, l)
		return
	}
	// Too few images to go round: the chunks of each image are spread
	// over the workers.
	for n := range p.batch {
		for g := range p.groups {
			l.pk = accel.NewIm2colPanels(p.geom, image[(n*p.groups+g)*p.imageSize():][:p.imageSize()])
			l.n, l.g = n, g
			accel.ParallelLoop(chunks, 1, (*convChunkLoop[T])(l))
			l.pk.Release()
		}
	}
}

// ceilDiv is a/b rounded up, for positive b.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// packedChunkMax is the number of elements of the column matrix that the
// packed path writes and multiplies at a time (256 KiB in float32, a
// quarter of the L2 cache), so that the piece is multiplied while it is
// in cache: ResNet's 7x7 stem took 0.43 of the time of writing the whole
// matrix first (one thread, AVX-512). Since the epilogue runs along each
// strip of a piece, in one call per row, pieces of 256 KiB took 0.91 of
// the time of pieces of 64 KiB for that stem (0.95 on two threads), and
// 0.97 for MobileNet v2's 3x3 stem (0.88 on two). Filters larger than a
// piece are read once for the whole matrix instead.
const packedChunkMax = 1 << 16

// convPackedLoop is convPacked's loop over images: each image's column
// matrix is written and multiplied chunk panels at a time.
type convPackedLoop[T accel.Float] struct {
	p                    convPlan
	image, maps, filters []T // filters: packed, alen per group; nil to read weight
	weight               []T
	alen, chunk          int
	post                 convPost[T]
	// The image and group whose chunks convChunkLoop spreads.
	pk   *accel.Im2colPanels[T]
	n, g int
}

func (l *convPackedLoop[T]) Range(lo, hi int) {
	p := l.p
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			pk := accel.NewIm2colPanels(p.geom, l.image[(n*p.groups+g)*p.imageSize():][:p.imageSize()])
			l.chunks(pk, n, g, 0, ceilDiv(pk.Panels(), l.chunk))
			pk.Release()
		}
	}
}

// chunks writes and multiplies chunks lo to hi-1 of image n, group g.
func (l *convPackedLoop[T]) chunks(pk *accel.Im2colPanels[T], n, g, lo, hi int) {
	p := l.p
	k, cols := p.colRows(), p.colCols()
	w := accel.PanelWidth[T]()
	bp := getScratch[T](l.chunk * w * k)
	defer putScratch(bp)
	ep := accel.GetRecycled[accel.Epilogue[T]]() // recycled: it escapes into the product
	defer accel.Recycle(ep)
	out := l.maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
	for c := lo; c < hi; c++ {
		q0, q1 := c*l.chunk, min((c+1)*l.chunk, pk.Panels())
		j0 := q0 * w
		nc := min(q1*w, cols) - j0
		pk.Write(*bp, q0, q1)
		l.post.epilogue(ep, p, n, g)
		if ep.Add != nil {
			ep.Add = ep.Add[j0:]
		}
		if l.filters == nil {
			accel.GemmPackedB(false, p.maps, nc, k, l.weight[g*p.maps*k:], k, *bp, 0, out[j0:], cols, ep)
			continue
		}
		accel.GemmPacked(p.maps, nc, k, l.filters[g*l.alen:], *bp, 0, out[j0:], cols, ep)
	}
}

// convChunkLoop is convPacked's loop over the chunks of one image.
type convChunkLoop[T accel.Float] convPackedLoop[T]

func (l *convChunkLoop[T]) Range(lo, hi int) {
	(*convPackedLoop[T])(l).chunks(l.pk, l.n, l.g, lo, hi)
}

// packFilters packs each group's filters (maps x colRows, or its
// transpose) with accel.PackA into a scratch buffer, alen elements per
// group, for products with every image; hand it back with putScratch.
func packFilters[T accel.Float](p convPlan, weight []T, transposed bool) (ap *[]T, alen int) {
	k, m := p.colRows(), p.maps
	if transposed {
		k, m = m, k
	}
	alen = accel.PackedALen[T](m, k)
	ap = getScratch[T](p.groups * alen)
	for g := range p.groups {
		accel.PackA(transposed, m, k, weight[g*p.maps*p.colRows():], p.colRows(), (*ap)[g*alen:])
	}
	return ap, alen
}

// deconvForward computes, per image and group, image = col2im(W^T * maps),
// then adds the bias: a 3x3 deconvolution at unit stride (a
// convolution's data gradient) as the convolution it is, by Winograd's
// algorithm or with images side by side where that pays (deconvByConv),
// the others by deconvGemm.
func deconvForward[T accel.Float](p convPlan, maps, weight, bias, image []T) {
	if q, ok := deconvAsConv(p); ok {
		switch {
		case winogradPays[T](q):
			deconvByConv(algoWinograd, q, maps, weight, bias, image)
			return
		case sideBySidePays[T](q):
			deconvByConv(algoSideBySide, q, maps, weight, bias, image)
			return
		}
	}
	deconvGemm(p, maps, weight, bias, image)
}

// deconvByConv computes a deconvolution as convolution q (deconvAsConv)
// by algorithm algo, Winograd's or images side by side, the
// deconvolution's filters turned as they are read.
func deconvByConv[T accel.Float](algo convAlgo, q convPlan, maps, weight, bias, image []T) {
	post := convPost[T]{bias: bias}
	if algo == algoWinograd {
		convWinograd(q, maps, weight, true, image, post)
		return
	}
	convSideBySide(q, maps, weight, true, image, post)
}

// deconvAsConv returns the convolution of the maps that computes the 3x3
// deconvolution p at unit stride without groups: its filters are p's,
// transposed (maps and channels swapped) and turned by 180 degrees, and
// it pads by 2 what p takes away. Its algorithms turn p's filters as
// they read them (convWinograd and convSideBySide with turned): turned
// into an array of their own first, they were read from memory and
// written back, 4% of ResNet-18's training step on one thread.
func deconvAsConv(p convPlan) (convPlan, bool) {
	g := p.geom
	if p.groups != 1 || g.KernelH != 3 || g.KernelW != 3 || g.StrideH != 1 || g.StrideW != 1 ||
		g.DilateH != 1 || g.DilateW != 1 || g.PadH > 2 || g.PadW > 2 {
		return convPlan{}, false
	}
	q := accel.ConvGeom{Channels: p.maps, InH: g.OutH(), InW: g.OutW(), KernelH: 3, KernelW: 3,
		StrideH: 1, StrideW: 1, PadH: 2 - g.PadH, PadW: 2 - g.PadW, DilateH: 1, DilateW: 1}
	return convPlan{batch: p.batch, groups: 1, maps: g.Channels, geom: q}, true
}

// deconvGemm is deconvForward by products: the transposed filters are
// packed once for all images. Images whose maps fill at most half of a
// panel of the product's columns are multiplied side by side (at
// ResNet-18's 7x7 planes, 49 of 64 columns, side by side was no faster
// on one thread and slower on two).
func deconvGemm[T accel.Float](p convPlan, maps, weight, bias, image []T) {
	ap, alen := packFilters(p, weight, true)
	defer putScratch(ap)
	if p.batch > 1 && 2*p.colCols() <= accel.PanelWidth[T]() {
		deconvSideBySide(p, maps, *ap, alen, bias, image)
		return
	}
	accel.ParallelRange(p.batch, 1, deconvForwardLoop[T]{p, maps, *ap, bias, image, alen})
}

// deconvSideBySide is deconvGemm for images of small planes: the maps of
// up to sideBySideDepth/cols images side by side are multiplied by the
// filters in one product, whose columns each image then takes back into
// its own column matrix. One image's product of ResNet-18's 4x4 planes
// (its data gradients at stride 2 in training) filled half of each panel
// of columns; side by side took 0.68 of the time on one thread, 0.76 on
// two.
func deconvSideBySide[T accel.Float](p convPlan, maps, filters []T, alen int, bias, image []T) {
	k, cols := p.colRows(), p.colCols()
	per := min(p.batch, max(1, sideBySideDepth/cols))
	srcp := getScratch[T](p.maps * per * cols)
	defer putScratch(srcp)
	prodp := getScratch[T](k * per * cols)
	defer putScratch(prodp)
	for a := 0; a < p.batch; a += per {
		b := min(a+per, p.batch)
		width := (b - a) * cols
		step := deconvSideBySideStep[T]{p: p, maps: maps, bias: bias, image: image, a: a, width: width,
			src: (*srcp)[:p.maps*width], prod: (*prodp)[:k*width]}
		for g := range p.groups {
			step.g, step.out = g, false
			accel.ParallelRange(b-a, 1, step)
			accel.GemmPackedA(false, k, width, p.maps, filters[g*alen:], step.src, width, 0, step.prod, width)
			step.out = true
			accel.ParallelRange(b-a, 1, step)
		}
	}
}

// deconvSideBySideStep is deconvSideBySide's loop over the images of a
// run from image a, group g: laying their maps side by side into src
// (width columns), or, with out, taking each one's columns of prod back
// into its image (and adding the bias after the last group).
type deconvSideBySideStep[T accel.Float] struct {
	p                            convPlan
	maps, bias, image, src, prod []T
	a, g, width                  int
	out                          bool
}

func (s *deconvSideBySideStep[T]) Range(lo, hi int) {
	p := s.p
	k, cols := p.colRows(), p.colCols()
	if !s.out {
		for i := lo; i < hi; i++ {
			n := s.a + i
			copyRows(s.src[i*cols:], s.width, s.maps[(n*p.groups+s.g)*p.mapsSize():], cols, p.maps, cols)
		}
		return
	}
	bp := colScratch[T](p)
	defer putCol(bp)
	col := colOf(bp)
	for i := lo; i < hi; i++ {
		n := s.a + i
		img := s.image[(n*p.groups+s.g)*p.imageSize():][:p.imageSize()]
		if col == nil {
			copyRows(img, cols, s.prod[i*cols:], s.width, k, cols)
		} else {
			copyRows(col, cols, s.prod[i*cols:], s.width, k, cols)
			accel.Col2imSet(p.geom, col, img)
		}
		if s.bias != nil && s.g == p.groups-1 {
			addBias(s.image[n*p.groups*p.imageSize():][:p.groups*p.imageSize()], s.bias, p.geom.InH*p.geom.InW)
		}
	}
}

// deconvForwardLoop is deconvForward's loop over images.
type deconvForwardLoop[T accel.Float] struct {
	p                          convPlan
	maps, filters, bias, image []T // filters: packed, alen per group
	alen                       int
}

func (l *deconvForwardLoop[T]) Range(lo, hi int) {
	p, maps, bias, image := l.p, l.maps, l.bias, l.image
	k, cols := p.colRows(), p.colCols()
	bp := colScratch[T](p)
	defer putCol(bp)
	col := colOf(bp)
	for n := lo; n < hi; n++ {
		for g := range p.groups {
			src := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
			img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
			filters := l.filters[g*l.alen:]
			if col == nil {
				accel.GemmPackedA(false, k, cols, p.maps, filters, src, cols, 0, img, cols)
				continue
			}
			accel.GemmPackedA(false, k, cols, p.maps, filters, src, cols, 0, col, cols)
			accel.Col2imSet(p.geom, col, img)
		}
		if bias != nil {
			addBias(image[n*p.groups*p.imageSize():][:p.groups*p.imageSize()], bias, p.geom.InH*p.geom.InW)
		}
	}
}

// addBias adds bias[c] to each of the len(bias) planes of size plane in x.
func addBias[T accel.Float](x, bias []T, plane int) {
	for c, b := range bias {
		row := x[c*plane : (c+1)*plane]
		for i := range row {
			row[i] += b
		}
	}
}

// convWeightGrad computes, per group, dW = sum over images of
// maps * im2col(image)^T. Each worker sums a contiguous run of images into
// its own buffer; the buffers are then added in order, so the result does
// not depend on scheduling. Small column matrices are written transposed
// straight into Gemm's packed layout (accel.Im2colPackedT), which skips
// Gemm's own packing of them. Where it pays, Winograd's algorithm
// computes the whole gradient instead (wgradWinogradPays).
func convWeightGrad[T accel.Float](p convPlan, maps, image, dw []T) {
	if wgradWinogradPays[T](p) {
		accel.ConvWeightGradWinograd(p.geom, p.maps, p.batch, image, maps, dw)
		return
	}
	chunks := max(1, min(p.batch, accel.Workers(), maxWeightGradChunks))
	if wgradSideBySideWhole[T](p) {
		chunks = 1
	}
	l := accel.GetRecycled[convWeightGradLoop[T]]()
	*l = convWeightGradLoop[T]{p: p, maps: maps, image: image, chunks: chunks}
	l.partial[0] = dw
	for c := 1; c < chunks; c++ {
		l.scratch[c] = getScratch[T](len(dw))
		l.partial[c] = *l.scratch[c]
	}
	accel.ParallelLoop(chunks, 1, l)
	for c := 1; c < chunks; c++ {
		accel.Axpy(1, l.partial[c], dw)
		putScratch(l.scratch[c])
	}
	accel.Recycle(l)
}

// wgradWinogradPays reports whether the weight gradient of plan p in T
// takes Winograd's F(3x3, 4x4) (accel.ConvWeightGradWinograd): a 3x3
// kernel at unit stride without groups, where the CPU has its vector
// kernels, on output planes of at least 16 tiles and at least
// wgradWinogradMinTiles tiles in the batch, and for at most
// wgradWinogradMaxFilters filter-channel pairs (each worker keeps 36
// sums of each). In ResNet-18's training step at 112x112, batch 16 (Zen
// 5, one thread), it took 0.56 of the direct kernel's time at 64x28x28
// and 0.6 of the column matrix's and Gemm's at 128x14x14; at 256x7x7 1.5
// times as long, at 512x4x4 nearly four times (their 36 sums per
// filter-channel pair outweigh the few tiles).
func wgradWinogradPays[T accel.Float](p convPlan) bool {
	if p.groups != 1 || !accel.WinogradWeightGradFast[T]() || !accel.WinogradApplies(p.geom) {
		return false
	}
	tiles := accel.WinogradTiles(p.geom)
	return tiles >= winogradMinTiles/2 && p.batch*tiles >= wgradWinogradMinTiles && p.maps*p.geom.Channels <= wgradWinogradMaxFilters
}

// wgradWinogradMinTiles and wgradWinogradMaxFilters bound the weight
// gradients that take Winograd's algorithm (wgradWinogradPays).
const (
	wgradWinogradMinTiles   = 128
	wgradWinogradMaxFilters = 256 * 256
)

// directWeightGradPays reports whether accel.ConvWeightGradDirect is
// faster than the column matrix and Gemm for maps filters of geometry g.
// The direct kernel keeps 16 lane sums per filter and tap and reads and
// writes all of them once per image, which outweighs the image's
// multiply-adds where the output plane is small (a ResNet's last stages:
// 7x7 and 4x4 planes with 256 and 512 filters, five to eight times
// slower than Gemm), unless the lane sums fit in a core's cache; on
// larger planes too once the lane sums outgrow a few MB: at batch 16 and
// 14x14, 128 filters of 3x3x128 taps (9.7 MB of lane sums) took 0.56 to
// 0.75 of the direct kernel's time with Gemm, one and two threads, where
// 64 filters of 3x3x64 (2.4 MB) took 1.2 to 1.25 times as long. (At
// 28x28, ResNet-18's first stage in its training step at 112x112, the
// direct kernel took 0.89 of the time of Gemm on one thread, 0.94 to
// 0.97 on two.)
func directWeightGradPays(g accel.ConvGeom, maps int) bool {
	const minPlane = 14 * 14 // from timings: Gemm wins at 12x12 with 128 filters, the direct kernel at 14x14
	const cacheBytes = 1 << 20
	const planeBytes = 4 << 20
	taps := g.Channels * g.KernelH * g.KernelW
	laneSums := (maps + 5) / 6 * ((taps + 3) &^ 3) * 96 // as the kernel lays them out
	return laneSums*4 <= cacheBytes || g.OutH()*g.OutW() >= minPlane && laneSums*4 <= planeBytes
}

// sideBySideDepth is the most columns (in the forward, convSideBySide) or
// depth (in the weight gradient, sideBySide) that the images of small
// planes make side by side in one product.
const sideBySideDepth = 256

// copyRows copies rows rows of n elements from src, whose rows lie
// srcStride apart, to dst, whose rows lie dstStride apart: one image's
// maps out of, or into, a matrix of several images side by side.
func copyRows[T any](dst []T, dstStride int, src []T, srcStride, rows, n int) {
	for r := range rows {
		copy(dst[r*dstStride:][:n], src[r*srcStride:][:n])
	}
}

// sideBySide sums into dw (group g's filters x taps) the weight gradient
// of images n0 to n1, several at a time: each product multiplies the
// output gradients of sideBySideDepth/cols images, side by side, by their
// column matrices, side by side, so that dw is read and written once per
// product rather than once per image. At ResNet-18's 4x4 planes (batch
// 16, 512 filters of 4608 taps) each image's product was 16 deep and dw
// 9.4 MB: side by side took half of the time; at its 7x7 planes, 0.8 on
// one thread (sideBySidePlane).
func (l *convWeightGradLoop[T]) sideBySide(g, n0, n1 int, dw []T) {
	p := l.p
	k, cols := p.colRows(), p.colCols()
	per := min(sideBySideDepth/cols, n1-n0)
	gyp := getScratch[T](p.maps * per * cols)
	defer putScratch(gyp)
	colp := getScratch[T](k * per * cols)
	defer putScratch(colp)
	var beta T
	for a := n0; a < n1; a += per {
		b := min(a+per, n1)
		depth := (b - a) * cols
		gyAll, colAll := (*gyp)[:p.maps*depth], (*colp)[:k*depth]
		accel.ParallelRange(b-a, 1, wgradSideBySideStep[T]{l: l, a: a, g: g, depth: depth, gy: gyAll, cols: colAll})
		accel.Gemm(false, true, p.maps, k, depth, 1, gyAll, depth, colAll, depth, beta, dw, k)
		beta = 1
	}
}

// wgradSideBySideWhole reports whether the weight gradient of plan p in
// T is one product of all the images side by side per group, spread over
// the workers inside, rather than one sum per worker over its share of
// the images, added up after: where the images fit side by side in one
// product and the filters are large (wgradWholeMin elements), whose
// partial sums cost more to write and add up than the product saves.
// ResNet-18's 512 filters of 3x3x512 at 4x4 in its training step took
// 0.92 of their time on two threads so, its 512 of 3x3x256 at stride 2
// 0.84; one thread is unchanged.
func wgradSideBySideWhole[T accel.Float](p convPlan) bool {
	cols := p.colCols()
	return p.batch > 1 && !wgradDirect[T](p) && sideBySidePlane[T](cols) && p.batch*cols <= sideBySideDepth &&
		p.maps*p.colRows()*p.groups >= wgradWholeMin
}

// wgradDirect reports whether the weight gradient of plan p in T takes
// accel.ConvWeightGradDirect, without a column matrix: where the CPU has
// the kernel and it pays (directWeightGradPays), whatever the size of the
// matrix.
func wgradDirect[T accel.Float](p convPlan) bool {
	return accel.ConvWeightGradDirectApplies[T](p.geom, p.maps) && directWeightGradPays(p.geom, p.maps)
}

// wgradWholeMin is the fewest filter elements for which
// wgradSideBySideWhole takes one product of all the images.
const wgradWholeMin = 1 << 18

// wgradSideBySideStep is sideBySide's loop over the images of a run from
// image a, group g: their column matrices and output gradients laid side
// by side, depth columns in all, in cols and gy.
type wgradSideBySideStep[T accel.Float] struct {
	l        *convWeightGradLoop[T]
	a, g     int
	depth    int
	gy, cols []T
}

func (s *wgradSideBySideStep[T]) Range(lo, hi int) {
	p, cols := s.l.p, s.l.p.colCols()
	for i := lo; i < hi; i++ {
		n, at := s.a+i, i*cols
		accel.Im2colAt(p.geom, s.l.image[(n*p.groups+s.g)*p.imageSize():][:p.imageSize()], s.cols[at:], s.depth)
		gy := s.l.maps[(n*p.groups+s.g)*p.mapsSize():][:p.mapsSize()]
		copyRows(s.gy[at:], s.depth, gy, cols, p.maps, cols)
	}
}

// maxWeightGradChunks bounds the per-worker buffers of convWeightGrad.
const maxWeightGradChunks = 16

// convWeightGradLoop is convWeightGrad's loop over runs of images: run c
// sums into partial[c] (dw itself for c = 0, else a scratch buffer).
type convWeightGradLoop[T accel.Float] struct {
	p           convPlan
	maps, image []T
	chunks      int
	partial     [maxWeightGradChunks][]T
	scratch     [maxWeightGradChunks]*[]T
}

func (l *convWeightGradLoop[T]) Range(lo, hi int) {
	p, maps, image, chunks, partial := l.p, l.maps, l.image, l.chunks, l.partial[:]
	k, cols := p.colRows(), p.colCols()
	packed := accel.PackedBLen[T](cols, k) <= packedConvMax
	direct := wgradDirect[T](p)
	swapped := !direct && !packed && wgradSwapped[T](p)
	var dwT []T // with swapped, the transpose of a group's dw
	if swapped {
		tp := getScratch[T](k * p.maps)
		defer putScratch(tp)
		dwT = *tp
	}
	var bp *[]T
	switch {
	case direct:
	case packed:
		bp = getScratch[T](accel.PackedBLen[T](cols, k))
	default:
		bp = colScratch[T](p)
	}
	defer putCol(bp)
	col := colOf(bp)
	for c := lo; c < hi; c++ {
		acc := partial[c]
		n0, n1 := c*p.batch/chunks, (c+1)*p.batch/chunks
		if n0 == n1 { // no images in this chunk
			clear(acc)
			continue
		}
		for g := range p.groups {
			dw := acc[g*p.maps*k:][:p.maps*k]
			if direct {
				accel.ConvWeightGradDirect(p.geom, p.maps, n1-n0, image[(n0*p.groups+g)*p.imageSize():], p.groups*p.imageSize(),
					maps[(n0*p.groups+g)*p.mapsSize():], p.groups*p.mapsSize(), dw)
				continue
			}
			if n1-n0 > 1 && sideBySidePlane[T](cols) {
				l.sideBySide(g, n0, n1, dw)
				continue
			}
			var beta T
			for n := n0; n < n1; n++ {
				img := image[(n*p.groups+g)*p.imageSize():][:p.imageSize()]
				gy := maps[(n*p.groups+g)*p.mapsSize():][:p.mapsSize()]
				if packed {
					accel.Im2colPackedT(p.geom, img, col)
					accel.GemmPackedB(false, p.maps, k, cols, gy, cols, col, beta, dw, k, nil)
				} else {
					src := img
					if col != nil {
						accel.Im2col(p.geom, img, col)
						src = col
					}
					if swapped {
						accel.Gemm(false, true, k, p.maps, cols, 1, src, cols, gy, cols, beta, dwT, p.maps)
					} else {
						accel.Gemm(false, true, p.maps, k, cols, 1, gy, cols, src, cols, beta, dw, k)
					}
				}
				beta = 1
			}
			if swapped { // dw[f][t] is dwT[t][f]
				for t := range k {
					for f, v := range dwT[t*p.maps:][:p.maps] {
						dw[f*k+t] = v
					}
				}
			}
		}
	}
}

// wgradSwapped reports whether the weight gradient of plan p in T,
// where it multiplies each image's output gradient by its column
// matrix, computes the transpose of dW instead: the column matrix times
// the output gradient transposed, the column matrix read as it lies and
// the output gradient packed (Gemm reads a left operand of few columns
// without packing it), then dW turned back once. Where the filters are
// fewer than the taps, that packs the smaller operand: ResNet's stem in
// its training step at 112x112, batch 16 (64 filters of 3x7x7 taps over
// 56x56 positions), took 0.65 of the time on one thread.
func wgradSwapped[T accel.Float](p convPlan) bool {
	return p.maps < p.colRows() && accel.ReadsARows[T](p.colRows(), p.maps, p.colCols())
}
