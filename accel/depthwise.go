package accel

// The direct depthwise convolution: one 3x3 filter per plane, as in the
// depthwise layers of MobileNet. With AVX-512, at MobileNet's padding of
// 1 and strides of 1 and 2, each plane is read as it lies, sixteen
// outputs at a time, masks standing for the padding (at stride 2, the
// input's even and odd columns split apart by permutes). Elsewhere each
// plane is copied once into a zero-bordered buffer (for a stride of 2
// along the width, split into its even and odd columns), so that every
// tap of an output row reads a contiguous, in-bounds run; an output row
// is then the bias plus nine scaled runs, summed in registers and stored
// once.

// dw3x3RowKernel computes out[i] = bias + Σ_t w[t]·src[offs[t]+i],
// bounded to [lo, hi], for i in [0, len(out)), or is nil when the CPU has
// no vector kernel for it.
var dw3x3RowKernel func(out, src []float32, offs *[9]int, w *[9]float32, bias, lo, hi float32)

// dw3x3PlanesKernel computes planes whole planes of geometry g
// (dwPlanesApply), one after another in src and dst, reading src as it
// lies: plane i of dst = bias[i] (0 for a nil bias) + the 3x3 filter
// w9[9i:] over plane i of src, bounded to [lo, hi]. At stride 2 masks
// holds the masks of its loads and stores (dwS2Masks). The filters are
// scaled by scale[i] (1 for a nil scale). nil where the CPU has no such
// kernel.
var dw3x3PlanesKernel func(g ConvGeom, src, dst, w9, scale, bias []float32, planes int, masks *[dwMasksLen]uint16, lo, hi float32)

// dwPlanesApply reports whether dw3x3PlanesKernel takes geometry g: a
// padding of 1 and a stride of 1 or 2, the same in both directions, and
// at stride 2 no more than dwS2MaxSegs segments of sixteen outputs a row.
func dwPlanesApply(g ConvGeom) bool {
	s := g.StrideH
	return g.PadH == 1 && g.PadW == 1 && g.StrideW == s && (s == 1 || s == 2 && ceilDiv(g.OutW(), 16) <= dwS2MaxSegs)
}

// dwS2MaxSegs is the most segments of sixteen outputs a row of
// dw3x3PlanesKernel has at stride 2, and dwMasksLen the length of their
// masks.
const (
	dwS2MaxSegs = 8
	dwMasksLen  = 5 * dwS2MaxSegs
)

// dwS2Masks returns the masks of the loads and stores of each segment of
// sixteen outputs of a row of ow at stride 2 from w input columns: lane
// k of the loads of the segment from output j0 reads input column
// 2*j0-1+k, 2*j0+15+k, 2*j0+1+k and 2*j0+17+k, set where that lies in
// the row; lane k of its store writes output j0+k, set where that lies
// in the row.
func dwS2Masks(w, ow int) (m [dwMasksLen]uint16) {
	lanes := func(c0, n int) (bits uint16) {
		for k := range 16 {
			if c := c0 + k; c >= 0 && c < n {
				bits |= 1 << k
			}
		}
		return bits
	}
	for s := range min(ceilDiv(ow, 16), dwS2MaxSegs) {
		j0 := 16 * s
		m[5*s] = lanes(2*j0-1, w)
		m[5*s+1] = lanes(2*j0+15, w)
		m[5*s+2] = lanes(2*j0+1, w)
		m[5*s+3] = lanes(2*j0+17, w)
		m[5*s+4] = lanes(j0, ow)
	}
	return m
}

// subsample2Kernel is Subsample at a stride of 2 on float32, or nil
// when the CPU has no such kernel.
var subsample2Kernel func(dst, src []float32)

// deinterleaveKernel writes even[j] = src[2j] and odd[j] = src[2j+1] for
// j in [0, len(even)), or is nil when the CPU has no vector kernel for it.
var deinterleaveKernel func(even, odd, src []float32)

// Depthwise3x3Applies reports whether Depthwise3x3 computes the
// convolution of geometry g (one channel's): a 3x3 kernel without
// dilation and a stride of 1 or 2 along the width.
func Depthwise3x3Applies(g ConvGeom) bool {
	return g.Channels == 1 && g.KernelH == 3 && g.KernelW == 3 && g.DilateH == 1 && g.DilateW == 1 &&
		(g.StrideW == 1 || g.StrideW == 2) && g.StrideH >= 1 && g.PadH >= 0 && g.PadW >= 0 &&
		g.OutH() > 0 && g.OutW() > 0
}

// Depthwise3x3 computes a depthwise convolution of planes planes of
// InH x InW (geometry g, one channel's, where Depthwise3x3Applies): plane
// p of img, convolved with the 3x3 filter weight[(p%channels)*9:] times
// scale[p%channels] (nil for none: an inference BatchNorm's scale) and
// added to bias[p%channels] (nil for none) and bounded to [lo, hi] (NaN
// stays NaN; -Inf and +Inf bound nothing, 0 and +Inf is relu), gives
// plane p of out (OutH x OutW). The planes are spread over the workers.
func Depthwise3x3[T Float](g ConvGeom, planes, channels int, img, weight, scale, bias []T, lo, hi T, out []T) {
	if !Depthwise3x3Applies(g) {
		panic("accel: Depthwise3x3 of a geometry it does not handle")
	}
	if planes <= 0 {
		return
	}
	plane := g.OutH() * g.OutW()
	img = img[:planes*g.InH*g.InW]
	out = out[:planes*plane]
	weight = weight[:channels*9]
	if bias != nil {
		bias = bias[:channels]
	}
	if scale != nil {
		scale = scale[:channels]
	}
	grain := max(1, im2colGrain/(9*plane))
	// offs[kh*3+kw] is tap (kh, kw)'s offset from the start of the
	// bordered row of the output row's first tap row.
	l := depthwiseLoop[T]{g: g, channels: channels, img: img, weight: weight, scale: scale, bias: bias, out: out, lo: lo, hi: hi}
	if g.StrideH == 2 && g.StrideW == 2 {
		l.s2Masks = dwS2Masks(g.InW, g.OutW())
	}
	_, width, evenW := g.bordered()
	for kh := range 3 {
		for kw := range 3 {
			o := kh*width + kw
			if g.StrideW == 2 { // column 2j+kw: even j (+1 for kw 2), or odd j
				o = kh*width + kw/2 + (kw%2)*evenW
			}
			l.offs[kh*3+kw] = o
		}
	}
	ParallelRange(planes, grain, l)
}

// depthwiseLoop is Depthwise3x3's loop over planes.
type depthwiseLoop[T Float] struct {
	g                             ConvGeom
	channels                      int
	img, weight, scale, bias, out []T
	lo, hi                        T                  // the bounds of the outputs
	offs                          [9]int             // the taps' offsets in the bordered rows
	s2Masks                       [dwMasksLen]uint16 // see dwS2Masks
}

// depthwiseRowMin is the narrowest output row that Depthwise3x3 computes
// a row at a time at unit stride: MobileNet v2's 14x14 and 7x7 layers
// (576 and 960 channels) took about half the time as one run a plane.
const depthwiseRowMin = 16

// bordered returns the sizes of the bordered copy of a plane: rows of
// width (two halves for a stride of 2: even columns, then odd ones, of
// evenW columns each).
func (g ConvGeom) bordered() (rows, width, evenW int) {
	rows, width = g.InH+2*g.PadH, g.InW+2*g.PadW
	if g.StrideW == 2 {
		evenW = (width + 1) / 2
		width = 2 * evenW
	}
	return rows, width, evenW
}

func (l *depthwiseLoop[T]) Range(lo, hi int) {
	if l.wholePlanes(lo, hi) {
		return
	}
	g := l.g
	rows, width, evenW := g.bordered()
	// The scratch holds the bordered plane and, after it, the plane's
	// filter: the kernels take both by pointer, so neither may live on
	// the stack.
	outH, outW := g.OutH(), g.OutW()
	// Small planes at unit stride are computed in one run over the
	// bordered rows (two extra outputs a row, dropped after), where a run
	// a row pays a call and a masked tail for a few outputs.
	whole := g.StrideH == 1 && g.StrideW == 1 && outW < depthwiseRowMin
	runLen := 0
	if whole {
		runLen = (outH-1)*width + outW
	}
	bp := GetScratch[T](rows*width + 9 + runLen)
	defer PutScratch(bp)
	buf := (*bp)[:rows*width]
	w := (*[9]T)((*bp)[rows*width:][:9])
	run := (*bp)[rows*width+9:][:runLen]
	clear(buf)
	for p := lo; p < hi; p++ {
		src := l.img[p*g.InH*g.InW:][:g.InH*g.InW]
		for ih := range g.InH {
			row := src[ih*g.InW:][:g.InW]
			dst := buf[(ih+g.PadH)*width:][:width]
			if g.StrideW == 1 {
				copy(dst[g.PadW:], row)
				continue
			}
			deinterleave(dst[:evenW], dst[evenW:], row, g.PadW)
		}
		c := p % l.channels
		copy(w[:], l.weight[c*9:][:9])
		if l.scale != nil {
			for t := range w {
				w[t] *= l.scale[c]
			}
		}
		var b T
		if l.bias != nil {
			b = l.bias[c]
		}
		out := l.out[p*outH*outW:][:outH*outW]
		if whole {
			depthwiseRow(run, buf, &l.offs, w, b, l.lo, l.hi)
			for oh := range outH {
				copy(out[oh*outW:][:outW], run[oh*width:][:outW])
			}
			continue
		}
		for oh := range outH {
			depthwiseRow(out[oh*outW:][:outW], buf[oh*g.StrideH*width:], &l.offs, w, b, l.lo, l.hi)
		}
	}
}

// wholePlanes computes planes lo to hi-1 with dw3x3PlanesKernel, each read
// as it lies, a run of planes of consecutive channels a call, and reports
// true; or reports false, doing nothing, where the kernel does not apply:
// other types than float32, or a geometry that dwPlanesApply refuses.
// MobileNet v2's depthwise layers took 0.2 to 0.55 of the time that the
// bordered copies and row runs took (0.14 to 0.37 at stride 2), and its
// forward 0.75; a run a call, against a plane a call, took 0.63 of the
// time at 576x14x14 and 0.83 at 960x7x7.
func (l *depthwiseLoop[T]) wholePlanes(lo, hi int) bool {
	g := l.g
	l32, ok := any(l).(*depthwiseLoop[float32])
	if !ok || dw3x3PlanesKernel == nil || !dwPlanesApply(g) {
		return false
	}
	n, on := g.InH*g.InW, g.OutH()*g.OutW()
	for p := lo; p < hi; {
		c := p % l.channels
		run := min(hi-p, l.channels-c)
		var scale, bias []float32
		if l32.scale != nil {
			scale = l32.scale[c:][:run]
		}
		if l32.bias != nil {
			bias = l32.bias[c:][:run]
		}
		dw3x3PlanesKernel(g, l32.img[p*n:][:run*n], l32.out[p*on:][:run*on], l32.weight[c*9:][:run*9], scale, bias, run, &l32.s2Masks, l32.lo, l32.hi)
		p += run
	}
	return true
}

// depthwiseRow computes out[i] = b + Σ_t w[t]·src[offs[t]+i], bounded to
// [lo, hi] (NaN stays NaN).
func depthwiseRow[T Float](out, src []T, offs *[9]int, w *[9]T, b, lo, hi T) {
	if k := dw3x3RowKernel; k != nil {
		if o32, ok := any(out).([]float32); ok {
			k(o32, any(src).([]float32), offs, any(w).(*[9]float32), any(b).(float32), any(lo).(float32), any(hi).(float32))
			return
		}
	}
	n := len(out)
	s0, s1, s2 := src[offs[0]:][:n], src[offs[1]:][:n], src[offs[2]:][:n]
	s3, s4, s5 := src[offs[3]:][:n], src[offs[4]:][:n], src[offs[5]:][:n]
	s6, s7, s8 := src[offs[6]:][:n], src[offs[7]:][:n], src[offs[8]:][:n]
	for i := range out {
		v := b + w[0]*s0[i] + w[1]*s1[i] + w[2]*s2[i] +
			w[3]*s3[i] + w[4]*s4[i] + w[5]*s5[i] +
			w[6]*s6[i] + w[7]*s7[i] + w[8]*s8[i]
		if v < lo {
			v = lo
		}
		if v > hi {
			v = hi
		}
		out[i] = v
	}
}

// Subsample sets dst[j] = src[j*stride] for every j of dst: a row of an
// image taken at a stride (src holds at least (len(dst)-1)*stride+1
// elements). At a stride of 2 it goes through the vector kernel that
// splits even and odd elements, where there is one.
func Subsample[T Float](dst, src []T, stride int) {
	if len(dst) == 0 {
		return
	}
	_ = src[(len(dst)-1)*stride]
	if k, ok := any(subsample2Kernel).(func(dst, src []T)); ok && k != nil && stride == 2 {
		k(dst, src)
		return
	}
	if stride == 2 {
		// The odd elements go to the second half of what is left of
		// dst, which the next pieces overwrite: no scratch.
		for len(dst) >= 16 {
			n := len(dst) / 2
			deinterleave(dst[:n], dst[n:2*n], src[:2*n], 0)
			dst, src = dst[n:], src[2*n:]
		}
	}
	for j := range dst {
		dst[j] = src[j*stride]
	}
}

// deinterleave writes element iw of row, at column c = iw+pad of the
// bordered row, to even[c/2] when c is even and to odd[c/2] when odd.
func deinterleave[T Float](even, odd, row []T, pad int) {
	i := 0
	if pad%2 == 1 && len(row) > 0 { // the first element falls on an odd column
		odd[pad/2] = row[0]
		i = 1
	}
	c0 := (i + pad) / 2 // the column pair of row[i], row[i+1]
	n := (len(row) - i) / 2
	e, o, r := even[c0:][:n], odd[c0:][:n], row[i:][:2*n]
	if k, ok := any(deinterleaveKernel).(func(even, odd, src []T)); ok && k != nil {
		k(e, o, r)
	} else {
		for j := range n {
			e[j] = r[2*j]
			o[j] = r[2*j+1]
		}
	}
	if i+2*n < len(row) { // a last element on an even column
		even[c0+n] = row[i+2*n]
	}
}
