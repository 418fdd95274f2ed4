package accel

// The direct convolution forward computes out[f][p] = Σ_t w[f][t] ·
// col[t][p] without the column matrix: each output vector (a segment, as
// the direct weight gradient lays them out) sums, tap by tap, the image
// vector the tap reads times the tap's weight, for six filters at a time.

// convFwdKernel runs the direct forward of one image for six filters (see
// convFwd6), or is nil when the CPU has no such kernel.
var convFwdKernel func(t *wgradTable, x, w, bias []float32, relu bool, out []float32, fs int)

// zeroBias stands for a missing bias in the direct forward.
var zeroBias [6]float32

// ConvDirectApplies reports whether ConvForwardDirect and
// ConvWeightGradDirect have a kernel for geometry g with this many
// filters in T.
func ConvDirectApplies[T Float](g ConvGeom, filters int) bool {
	var zero T
	if _, ok := any(zero).(float32); !ok || convFwdKernel == nil || wgradKernel == nil {
		return false
	}
	return g.StrideW == 1 && filters >= 6 && g.OutH() > 0 && g.OutW() > 0 && g.colRows() > 0
}

// ConvForwardDirect writes the convolution of a run of images into out:
// image n at img[n*imgStride:] gives out[n*outStride:], filters x
// OutH*OutW, computed as weight (filters x Channels*KernelH*KernelW) times
// its column matrix, plus bias (one per filter; nil for none), then relu
// when asked. It works without a column matrix, and reports false, doing
// nothing, where it has no kernel: other types than float32, a stride
// along the width other than 1, fewer than six filters, or a CPU without
// AVX-512.
func ConvForwardDirect[T Float](g ConvGeom, filters, images int, img []T, imgStride int, weight, bias []T, relu bool, out []T, outStride int) bool {
	if !ConvDirectApplies[T](g, filters) || images < 1 {
		return false
	}
	img32, w32, out32 := any(img).([]float32), any(weight).([]float32), any(out).([]float32)
	b32, _ := any(bias).([]float32)
	outH, outW, taps := g.OutH(), g.OutW(), g.colRows()
	t := wgradTableFor(g)
	plane := outH * outW
	groups := ceilDiv(filters, 6)
	// The weights of each group of six filters, packed tap-major; the
	// last group is shifted back to end at the last filter (its first
	// filters are computed twice, to the same values).
	wp := GetScratch[float32](groups * taps * 6)
	defer PutScratch(wp)
	packed := (*wp)[:groups*taps*6]
	f0 := func(q int) int { return min(q*6, filters-6) }
	w32 = w32[:filters*taps]
	for q := range groups {
		for j := range 6 {
			row := w32[(f0(q)+j)*taps:][:taps]
			for tap, v := range row {
				packed[(q*taps+tap)*6+j] = v
			}
		}
	}
	for n := range images {
		src, bp := borderedImage(g, img32[n*imgStride:])
		o := out32[n*outStride:][:filters*plane]
		for q := range groups {
			b := zeroBias[:]
			if b32 != nil {
				b = b32[f0(q):][:6]
			}
			convFwdKernel(t, src, packed[q*taps*6:][:taps*6], b, relu, o[f0(q)*plane:], plane)
		}
		if bp != nil {
			putBuf(bp)
		}
	}
	return true
}
