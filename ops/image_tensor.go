package ops

import "strconv"

// Gluon's image transforms as ops: _image_to_tensor (transforms.ToTensor)
// turns images (H, W, C) or (N, H, W, C) of values in [0, 255] into
// float32 (C, H, W) or (N, C, H, W) in [0, 1]; _image_normalize
// (transforms.Normalize) subtracts a per-channel mean and divides by a
// per-channel standard deviation.

// ImageNormalizeAttrs are the attributes of _image_normalize.
type ImageNormalizeAttrs struct {
	Mean string `attr:"mean" default:"(0, 0, 0, 0)" doc:"the per-channel means: one value, or one per channel"`
	Std  string `attr:"std" default:"(1, 1, 1, 1)" doc:"the per-channel standard deviations: one value, or one per channel"`
}

var opImageToTensor, opImageNormalize, opBackwardImageNormalize *Op

func init() {
	opImageToTensor = Register(Def[NoAttrs]{
		Name: "_image_to_tensor", Aliases: []string{"_npx__image_to_tensor"}, Kind: "shape",
		Doc: "Converts images (H, W, C) or (N, H, W, C), values in [0, 255] of any dtype, to float32 (C, H, W) or " +
			"(N, C, H, W) divided by 255. The gradient is the incoming one moved back and divided by 255.",
		Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s := in[0]
			switch len(s) {
			case 3:
				return []Shape{{s[2], s[0], s[1]}}, nil
			case 4:
				return []Shape{{s[0], s[3], s[1], s[2]}}, nil
			}
			return nil, Errorf("data %v must be (H, W, C) or (N, H, W, C)", s)
		},
		DType: func(_ *NoAttrs, in []DType) ([]DType, error) {
			if in[0] == Bool {
				return nil, Errorf("data is bool; Cast it first")
			}
			return []DType{Float32}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			s := in[0].Shape
			n, h, w, c := 1, s[0], s[1], s[2]
			if len(s) == 4 {
				n, h, w, c = s[0], s[1], s[2], s[3]
			}
			x := in[0].Float64s()
			y := make([]float64, len(x))
			for b := range n {
				for i := range h * w {
					for ch := range c {
						y[(b*c+ch)*h*w+i] = x[(b*h*w+i)*c+ch] / 255
					}
				}
			}
			CopyData(out[0].Data, FromFloat64s(Float32, y))
			return nil
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			axes := []int{1, 2, 0}
			if len(in[0].Shape()) == 4 {
				axes = []int{0, 2, 3, 1}
			}
			return []Tensor{f.Cast(f.DivScalar(f.Transpose(g[0], axes...), 255), in[0].DType())}
		},
		Samples: []Sample{
			// uint8 images take no gradient, and the float32 result cannot
			// resolve a float64 central difference: the gradient is
			// checked in the package's tests.
			{Inputs: []Shape{{3, 4, 3}}, DTypes: []DType{Uint8}, Ints: map[int]int{0: 256}, NoGradCheck: true},
			{Inputs: []Shape{{2, 2, 3, 1}}, Low: 0, High: 255, NoGradCheck: true},
		},
	})

	opImageNormalize = Register(Def[ImageNormalizeAttrs]{
		Name: "_image_normalize", Aliases: []string{"_npx__image_normalize"}, Kind: "norm",
		Doc: "(data - mean[c]) / std[c] for each channel c of data (C, H, W) or (N, C, H, W), C 1 or 3; mean and std " +
			"hold one value or one per channel.",
		Inputs: []string{"data"},
		Check:  func(a *ImageNormalizeAttrs) error { _, _, err := a.values(0); return err },
		Shape:  func(a *ImageNormalizeAttrs, in []Shape) ([]Shape, error) { return a.shape(in[0]) },
		DType:  func(_ *ImageNormalizeAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *ImageNormalizeAttrs, in, out []Value) error {
			return a.apply(in[0], out[0], true)
		},
		Grad: func(f F, a *ImageNormalizeAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardImageNormalize, a, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"mean": "(0.5, 0.4, 0.3)", "std": "(0.2, 0.3, 0.4)"}, Inputs: []Shape{{3, 2, 4}}},
			{Attrs: map[string]string{"mean": "(0.5,)", "std": "(2,)"}, Inputs: []Shape{{2, 1, 3, 3}}},
			{Attrs: map[string]string{"mean": "(0.1, 0.2, 0.3)", "std": "(1, 2, 4)"}, Inputs: []Shape{{2, 3, 2, 2}}},
		},
	})

	opBackwardImageNormalize = Register(Def[ImageNormalizeAttrs]{
		Name: "_backward_image_normalize", Kind: "norm",
		Doc:    "The gradient of _image_normalize: ograd[c] / std[c].",
		Inputs: []string{"ograd"},
		Check:  func(a *ImageNormalizeAttrs) error { _, _, err := a.values(0); return err },
		Shape:  func(a *ImageNormalizeAttrs, in []Shape) ([]Shape, error) { return a.shape(in[0]) },
		DType:  func(_ *ImageNormalizeAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *ImageNormalizeAttrs, in, out []Value) error {
			return a.apply(in[0], out[0], false)
		},
		Grad: func(f F, a *ImageNormalizeAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardImageNormalize, a, g[0])} // a scaling: its own adjoint
		},
		Samples: []Sample{
			{Attrs: map[string]string{"mean": "(0.5, 0.4, 0.3)", "std": "(0.2, 0.3, 0.4)"}, Inputs: []Shape{{3, 2, 4}}},
		},
	})
}

// imageChannels is the channel count of (C, H, W) or (N, C, H, W) data,
// which must be 1 or 3 (0 when unknown).
func imageChannels(s Shape) (int, error) {
	if len(s) != 3 && len(s) != 4 {
		return 0, Errorf("data %v must be (C, H, W) or (N, C, H, W)", s)
	}
	c := s[len(s)-3]
	if c != 0 && c != 1 && c != 3 {
		return 0, Errorf("data %v must have 1 or 3 channels", s)
	}
	return c, nil
}

// shape is the shape rule of _image_normalize and its gradient: data's
// shape, once mean and std are checked against its channels.
func (a *ImageNormalizeAttrs) shape(data Shape) ([]Shape, error) {
	c, err := imageChannels(data)
	if err != nil {
		return nil, err
	}
	if _, _, err := a.values(c); err != nil {
		return nil, err
	}
	return []Shape{data.Clone()}, nil
}

// values parses mean and std, checking them against c channels (0:
// unknown).
func (a *ImageNormalizeAttrs) values(c int) (mean, std []float64, err error) {
	if mean, err = parseFloatList("mean", a.Mean); err != nil {
		return
	}
	if std, err = parseFloatList("std", a.Std); err != nil {
		return
	}
	for _, v := range [][]float64{mean, std} {
		if len(v) == 0 || (c != 0 && len(v) != 1 && len(v) != c) {
			return nil, nil, Errorf("mean %v and std %v must hold 1 value or one per channel (%d)", a.Mean, a.Std, c)
		}
	}
	for _, s := range std {
		if s == 0 {
			return nil, nil, Errorf("std %v must not hold 0", a.Std)
		}
	}
	return mean, std, nil
}

// apply writes (x - mean[c]) / std[c] into y, or x / std[c] without the
// mean (the gradient).
func (a *ImageNormalizeAttrs) apply(x, y Value, subtract bool) error {
	s := x.Shape
	c := s[len(s)-3]
	mean, std, err := a.values(c)
	if err != nil {
		return err
	}
	plane := s[len(s)-2] * s[len(s)-1]
	xs := x.Float64s()
	out := make([]float64, len(xs))
	for i, v := range xs {
		ch := (i / plane) % c
		m, d := mean[min(ch, len(mean)-1)], std[min(ch, len(std)-1)]
		if !subtract {
			m = 0
		}
		out[i] = (v - m) / d
	}
	CopyData(y.Data, FromFloat64s(y.DType, out))
	return nil
}

// ImageToTensor converts images (H, W, C) or (N, H, W, C) in [0, 255] to
// float32 (C, H, W) or (N, C, H, W) in [0, 1] (_image_to_tensor).
func (f F) ImageToTensor(x Tensor) Tensor { return f.callA(opImageToTensor, &NoAttrs{}, x) }

// ImageNormalize returns (x - mean[c]) / std[c] per channel of x (C, H, W)
// or (N, C, H, W) (_image_normalize).
func (f F) ImageNormalize(x Tensor, mean, std []float64) Tensor {
	return f.callA(opImageNormalize, &ImageNormalizeAttrs{Mean: floatTuple(mean), Std: floatTuple(std)}, x)
}

// floatTuple writes numbers as MXNet writes a float tuple: "(0.5, 0.25)".
func floatTuple(v []float64) string {
	s := "("
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatFloat(x, 'g', -1, 64)
	}
	if len(v) == 1 {
		s += ","
	}
	return s + ")"
}
