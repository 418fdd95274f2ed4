package ops

// Image borders and sizes: Pad, Crop and UpSampling (nearest), index-map
// ops (gather_map.go); UpSampling's bilinear mode is a Deconvolution.

// PadAttrs are the attributes of Pad.
type PadAttrs struct {
	Mode          string  `attr:"mode" enum:"constant,edge,reflect" doc:"constant: pad with constant_value; edge: repeat the edge; reflect: mirror the data about its edge"`
	PadWidth      Tuple   `attr:"pad_width" doc:"(before, after) of each axis, flattened: 2 entries per dim of data"`
	ConstantValue float64 `attr:"constant_value" default:"0.0" doc:"the value of the padding in constant mode"`
}

// CropAttrs are the attributes of Crop.
type CropAttrs struct {
	NumArgs    int   `attr:"num_args" doc:"1: crop to h_w; 2: crop to the height and width of the second input, crop_like"`
	Offset     Tuple `attr:"offset" default:"(0, 0)" doc:"the (y, x) of the crop's top-left corner"`
	HW         Tuple `attr:"h_w" default:"(0, 0)" doc:"the (height, width) of the crop (num_args=1)"`
	CenterCrop bool  `attr:"center_crop" default:"False" doc:"crop the centre rather than at offset"`
}

// UpSamplingAttrs are the attributes of UpSampling.
type UpSamplingAttrs struct {
	Scale          int    `attr:"scale" doc:"the factor the height and width grow by"`
	NumFilter      int    `attr:"num_filter" default:"0" doc:"the channels (bilinear only)"`
	SampleType     string `attr:"sample_type" enum:"nearest,bilinear" doc:"the upsampling method: nearest repeats pixels; bilinear is a depthwise Deconvolution by the weight input"`
	MultiInputMode string `attr:"multi_input_mode" default:"concat" enum:"concat,sum" doc:"how several inputs combine (num_args > 1)"`
	NumArgs        int    `attr:"num_args" doc:"the number of inputs; only 1 is supported with nearest (bilinear takes data and weight)"`
	Workspace      int    `attr:"workspace" default:"512" doc:"scratch space in MB (ignored)"`
}

var opPad, opCrop, opUpSampling *Op

func init() {
	opPad = registerGather(gatherDef[PadAttrs]{
		Name: "Pad", Aliases: []string{"pad"}, Kind: "shape",
		Doc: "Pads each axis of the data by pad_width's (before, after) pair: with constant_value (mode constant), " +
			"the edge's value (edge) or the data mirrored about its edge (reflect). MXNet pads the last axes of 4-D and 5-D data; any data is accepted here.",
		Inputs: []string{"data"},
		Shape: func(a *PadAttrs, in []Shape) (Shape, error) {
			return a.shape(in[0])
		},
		Index: func(a *PadAttrs, in []Value) ([]int, error) {
			data := in[0].Shape
			out, err := a.shape(data)
			if err != nil {
				return nil, err
			}
			return coordMap(out, data, func(oc, ic []int) bool {
				for d, c := range oc {
					n, j := data[d], c-a.PadWidth[2*d]
					switch {
					case j >= 0 && j < n:
					case a.Mode == "constant":
						return false
					case a.Mode == "edge":
						j = min(max(j, 0), n-1)
					default: // reflect
						if j < 0 {
							j = -j
						} else {
							j = 2*(n-1) - j
						}
					}
					ic[d] = j
				}
				return true
			}), nil
		},
		Fill: func(a *PadAttrs) float64 { return a.ConstantValue },
		Samples: []Sample{
			{Attrs: map[string]string{"mode": "constant", "pad_width": "(0, 0, 0, 0, 1, 2, 2, 1)", "constant_value": "0.5"}, Inputs: []Shape{{1, 2, 3, 3}}},
			{Attrs: map[string]string{"mode": "edge", "pad_width": "(0, 0, 0, 0, 2, 1, 1, 3)"}, Inputs: []Shape{{1, 2, 3, 2}}},
			{Attrs: map[string]string{"mode": "reflect", "pad_width": "(0, 0, 0, 0, 2, 1, 1, 2)"}, Inputs: []Shape{{2, 1, 3, 3}}},
			{Attrs: map[string]string{"mode": "reflect", "pad_width": "(0, 0, 0, 0, 1, 1, 1, 0, 0, 1)"}, Inputs: []Shape{{1, 1, 2, 2, 3}}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"mode": "edge", "pad_width": "(0, 0, 0, 0, 1, 1, 1, 1)"}, Inputs: []Shape{{1, 1, 4, 5}, {1, 1, 2, 3}}},
		},
	})

	opCrop = registerGather(gatherDef[CropAttrs]{
		Name: "Crop", Kind: "shape",
		Doc: "Crops the height and width (axes 2 and 3) of 4-D data to h_w, or to those of a second input, crop_like " +
			"(num_args=2), at offset or in the centre.",
		InputNames: func(a *CropAttrs) []string {
			if a.NumArgs == 2 {
				return []string{"data", "crop_like"}
			}
			return []string{"data"}
		},
		Check: func(a *CropAttrs) error {
			if a.NumArgs != 1 && a.NumArgs != 2 {
				return Errorf("num_args=%d: Crop takes 1 or 2 inputs", a.NumArgs)
			}
			if len(a.Offset) != 2 || len(a.HW) != 2 {
				return Errorf("offset %v and h_w %v must have 2 entries (y, x)", a.Offset, a.HW)
			}
			return nil
		},
		Shape: func(a *CropAttrs, in []Shape) (Shape, error) {
			out, _, _, err := a.window(in)
			return out, err
		},
		Index: func(a *CropAttrs, in []Value) ([]int, error) {
			shapes := make([]Shape, len(in))
			for i, v := range in {
				shapes[i] = v.Shape
			}
			out, y0, x0, err := a.window(shapes)
			if err != nil {
				return nil, err
			}
			return coordMap(out, shapes[0], func(oc, ic []int) bool {
				copy(ic, oc)
				ic[2] += y0
				ic[3] += x0
				return true
			}), nil
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "1", "h_w": "(2, 3)", "offset": "(1, 1)"}, Inputs: []Shape{{1, 2, 4, 5}}},
			{Attrs: map[string]string{"num_args": "1", "h_w": "(2, 2)", "center_crop": "True"}, Inputs: []Shape{{2, 1, 5, 4}}},
			{Attrs: map[string]string{"num_args": "2"}, Inputs: []Shape{{1, 2, 4, 4}, {1, 3, 2, 3}}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"num_args": "1", "h_w": "(2, 3)", "offset": "(1, 2)"}, Inputs: []Shape{{1, 1, 2, 3}, {1, 1, 4, 5}}},
		},
	})

	// Nearest is an index map; bilinear is MXNet's Deconvolution by the
	// weight input, with its gradient.
	nearest, registerNearestBackward := gatherOp(gatherDef[UpSamplingAttrs]{
		Name: "UpSampling", Kind: "shape",
		Doc: "Upsamples 4-D data (N, C, H, W) by an integer scale: nearest repeats each pixel scale×scale times " +
			"(one input, num_args=1, is supported); bilinear, with inputs data and weight (C, 1, k, k), k = 2·scale - scale%2, " +
			"is the Deconvolution of each channel by its own k×k weight (stride scale, pad ceil((scale-1)/2)), " +
			"num_filter being C, as in MXNet, where the weight is a parameter initialized to bilinear interpolation.",
		InputNames: func(a *UpSamplingAttrs) []string {
			names := make([]string, max(a.NumArgs, 1))
			for i := range names {
				names[i] = "arg" + itoa(i)
			}
			return names
		},
		Check: func(a *UpSamplingAttrs) error {
			if a.SampleType == "bilinear" {
				if a.NumFilter < 1 {
					return Errorf("sample_type=bilinear needs num_filter, the number of channels")
				}
			} else if a.NumArgs != 1 {
				return Errorf("num_args=%d is not supported yet: only one input", a.NumArgs)
			}
			if a.Scale < 1 {
				return Errorf("scale=%d must be at least 1", a.Scale)
			}
			return nil
		},
		Shape: func(a *UpSamplingAttrs, in []Shape) (Shape, error) {
			d := in[0]
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			return Shape{d[0], d[1], d[2] * a.Scale, d[3] * a.Scale}, nil
		},
		Index: func(a *UpSamplingAttrs, in []Value) ([]int, error) {
			d := in[0].Shape
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			out := Shape{d[0], d[1], d[2] * a.Scale, d[3] * a.Scale}
			return coordMap(out, d, func(oc, ic []int) bool {
				ic[0], ic[1], ic[2], ic[3] = oc[0], oc[1], oc[2]/a.Scale, oc[3]/a.Scale
				return true
			}), nil
		},
		Samples: []Sample{
			{Attrs: map[string]string{"scale": "2", "sample_type": "nearest", "num_args": "1"}, Inputs: []Shape{{1, 2, 2, 3}}},
			{Attrs: map[string]string{"scale": "3", "sample_type": "nearest", "num_args": "1"}, Inputs: []Shape{{2, 1, 2, 2}}},
		},
		BackSamples: []Sample{
			{Attrs: map[string]string{"scale": "2", "sample_type": "nearest", "num_args": "1"}, Inputs: []Shape{{1, 1, 4, 6}, {1, 1, 2, 3}}},
		},
	})
	up := nearest
	up.InputNames = func(a *UpSamplingAttrs) []string {
		if a.SampleType == "bilinear" {
			return []string{"data", "weight"}
		}
		return nearest.InputNames(a)
	}
	up.Shape = func(a *UpSamplingAttrs, in []Shape) ([]Shape, error) {
		if a.SampleType != "bilinear" {
			return nearest.Shape(a, in)
		}
		d := in[0]
		if len(d) != 4 {
			return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
		}
		if d[1] != 0 && d[1] != a.NumFilter {
			return nil, Errorf("data %v has %d channels but num_filter is %d", d, d[1], a.NumFilter)
		}
		k := a.bilinearKernel()
		w, ok := mergeShapes(in[1], Shape{a.NumFilter, 1, k, k})
		if !ok {
			return nil, Errorf("weight %v must be (num_filter, 1, %d, %d)", in[1], k, k)
		}
		copy(in[1], w)
		return []Shape{{d[0], d[1], d[2] * a.Scale, d[3] * a.Scale}}, nil
	}
	up.DType = nil // one dtype for data and weight
	up.Kernel = func(env *Env, a *UpSamplingAttrs, in, out []Value) error {
		if a.SampleType == "bilinear" {
			return opDeconvolution.Forward(env, a.deconvolution(), in, out)
		}
		return nearest.Kernel(env, a, in, out)
	}
	up.Grad = func(f F, a *UpSamplingAttrs, in, out, g []Tensor) []Tensor {
		if a.SampleType == "bilinear" {
			grads, err := opDeconvolution.Gradient(f, a.deconvolution(), in, out, g)
			if err != nil {
				panic(err)
			}
			return grads
		}
		return nearest.Grad(f, a, in, out, g)
	}
	up.Samples = append(up.Samples,
		Sample{Attrs: map[string]string{"scale": "2", "sample_type": "bilinear", "num_filter": "2", "num_args": "2"}, Inputs: []Shape{{1, 2, 3, 3}, {2, 1, 4, 4}}},
		Sample{Attrs: map[string]string{"scale": "3", "sample_type": "bilinear", "num_filter": "1", "num_args": "2"}, Inputs: []Shape{{2, 1, 2, 2}, {1, 1, 5, 5}}})
	opUpSampling = Register(up)
	registerNearestBackward()
}

// bilinearKernel is the size of UpSampling's bilinear weight.
func (a *UpSamplingAttrs) bilinearKernel() int { return 2*a.Scale - a.Scale%2 }

// deconvolution is the Deconvolution that bilinear UpSampling is.
func (a *UpSamplingAttrs) deconvolution() *DeconvolutionAttrs {
	k, p := a.bilinearKernel(), a.Scale/2 // p = ceil((scale-1)/2)
	d := opDeconvolution.DefaultAttrs().(*DeconvolutionAttrs)
	d.Kernel, d.Stride, d.Dilate, d.Pad = Tuple{k, k}, Tuple{a.Scale, a.Scale}, Tuple{1, 1}, Tuple{p, p}
	d.NumFilter, d.NumGroup, d.NoBias = a.NumFilter, a.NumFilter, true
	return d
}

// shape returns the padded shape.
func (a *PadAttrs) shape(data Shape) (Shape, error) {
	if len(a.PadWidth) != 2*len(data) {
		return nil, Errorf("pad_width %v must have 2 entries per dim of data %v (%d)", a.PadWidth, data, 2*len(data))
	}
	out := data.Clone()
	for d, n := range data {
		before, after := a.PadWidth[2*d], a.PadWidth[2*d+1]
		if before < 0 || after < 0 {
			return nil, Errorf("pad_width %v: widths must not be negative", a.PadWidth)
		}
		if a.Mode == "reflect" && n != 0 && (before >= n || after >= n) {
			return nil, Errorf("pad_width %v: reflect padding of axis %d must be smaller than its size %d (data %v)", a.PadWidth, d, n, data)
		}
		if n != 0 {
			out[d] = n + before + after
		}
	}
	return out, nil
}

// window returns the crop's shape and its top-left corner.
func (a *CropAttrs) window(in []Shape) (Shape, int, int, error) {
	d := in[0]
	if len(d) != 4 {
		return nil, 0, 0, Errorf("data %v must be 4-D (N, C, H, W)", d)
	}
	h, w := a.HW[0], a.HW[1]
	if a.NumArgs == 2 {
		like := in[1]
		if len(like) != 4 {
			return nil, 0, 0, Errorf("crop_like %v must be 4-D (N, C, H, W)", like)
		}
		h, w = like[2], like[3]
	} else if h < 1 || w < 1 {
		return nil, 0, 0, Errorf("h_w %v: the crop's height and width must be at least 1", a.HW)
	}
	out := Shape{d[0], d[1], h, w}
	if d[2] == 0 || d[3] == 0 || h == 0 || w == 0 {
		return out, 0, 0, nil
	}
	if h > d[2] || w > d[3] {
		return nil, 0, 0, Errorf("the crop %dx%d is larger than the data's %dx%d (data %v)", h, w, d[2], d[3], d)
	}
	y0, x0 := a.Offset[0], a.Offset[1]
	if a.CenterCrop {
		y0, x0 = (d[2]-h)/2, (d[3]-w)/2
	}
	if y0 < 0 || x0 < 0 || y0+h > d[2] || x0+w > d[3] {
		return nil, 0, 0, Errorf("offset %v: the crop %dx%d does not fit in the data's %dx%d", a.Offset, h, w, d[2], d[3])
	}
	return out, y0, x0, nil
}

// itoa formats a small non-negative int.
func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Pad pads each axis of x by the (before, after) pairs of padWidth, in
// mode "constant" (with ops.Attr{"constant_value", v}), "edge" or "reflect".
func (f F) Pad(x Tensor, mode string, padWidth []int, attrs ...Attr) Tensor {
	return f.call1(opPad, append([]Attr{{"mode", mode}, {"pad_width", Tuple(padWidth)}}, attrs...), x)
}

// Crop crops the height and width of 4-D x to h×w at (y, x) = offset;
// ops.Attr{"center_crop", true} crops the centre.
func (f F) Crop(x Tensor, h, w int, attrs ...Attr) Tensor {
	return f.call1(opCrop, append([]Attr{{"num_args", 1}, {"h_w", Tuple{h, w}}}, attrs...), x)
}

// UpSampling upsamples 4-D x by scale, repeating each pixel (nearest).
func (f F) UpSampling(x Tensor, scale int) Tensor {
	return f.call1(opUpSampling, []Attr{{"scale", scale}, {"sample_type", "nearest"}, {"num_args", 1}}, x)
}
