package ops

// _contrib_AdaptiveAvgPooling2D: average pooling of (N, C, H, W) data to a
// given output size (OH, OW), whatever the input size. Output cell (i, j)
// averages rows floor(i*H/OH) to ceil((i+1)*H/OH) (exclusive) and the
// columns found in the same way, so windows may overlap by one.

// AdaptiveAvgPoolingAttrs are the attributes of _contrib_AdaptiveAvgPooling2D.
type AdaptiveAvgPoolingAttrs struct {
	OutputSize Tuple `attr:"output_size" default:"()" doc:"(height, width) of the output, or one size for both; () means (1, 1)"`
}

// size is the output's (height, width), as MXNet reads output_size.
func (a *AdaptiveAvgPoolingAttrs) size() (int, int) {
	switch len(a.OutputSize) {
	case 1:
		return a.OutputSize[0], a.OutputSize[0]
	case 2:
		return a.OutputSize[0], a.OutputSize[1]
	}
	return 1, 1
}

var opAdaptiveAvgPool, opAdaptiveAvgPoolBackward *Op

func init() {
	opAdaptiveAvgPool = Register(Def[AdaptiveAvgPoolingAttrs]{
		Name: "_contrib_AdaptiveAvgPooling2D", Kind: "pool",
		Doc: "Average pooling of data (N, C, H, W) to (N, C, OH, OW) given by output_size: output cell (i, j) is the mean " +
			"of rows floor(i*H/OH) up to ceil((i+1)*H/OH) and of the columns found likewise.",
		Inputs: []string{"data"},
		Check: func(a *AdaptiveAvgPoolingAttrs) error {
			if h, w := a.size(); h < 1 || w < 1 {
				return Errorf("output_size %v must be positive", a.OutputSize)
			}
			return nil
		},
		Shape: func(a *AdaptiveAvgPoolingAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			h, w := a.size()
			return []Shape{{d[0], d[1], h, w}}, nil
		},
		DType: func(_ *AdaptiveAvgPoolingAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *AdaptiveAvgPoolingAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			x := in[0].Float64s()
			y := make([]float64, out[0].Shape.Size())
			adaptiveAvgPool(in[0].Shape, out[0].Shape, func(i, o int, scale float64) { y[o] += x[i] * scale })
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *AdaptiveAvgPoolingAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.adaptiveAvgPoolBackward(a, g[0], in[0])}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4, 5}}},
			{Attrs: map[string]string{"output_size": "3"}, Inputs: []Shape{{1, 2, 7, 5}}},
			{Attrs: map[string]string{"output_size": "(2, 4)"}, Inputs: []Shape{{2, 2, 5, 4}}},
		},
	})

	opAdaptiveAvgPoolBackward = Register(Def[AdaptiveAvgPoolingAttrs]{
		Name: "_backward_contrib_AdaptiveAvgPooling2D", Kind: "pool",
		Doc: "The gradient of _contrib_AdaptiveAvgPooling2D with respect to its data: each output gradient " +
			"(N, C, OH, OW) spread evenly over its window of data (N, C, H, W), whose values are not read.",
		Inputs: []string{"ograd", "data"},
		Shape: func(a *AdaptiveAvgPoolingAttrs, in []Shape) ([]Shape, error) {
			d := in[1]
			if len(d) != 4 {
				return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
			}
			h, w := a.size()
			want := Shape{d[0], d[1], h, w}
			if len(in[0]) == 0 { // the output gradient's shape is not known yet
				in[0] = want
			}
			g, ok := mergeShapes(in[0], want)
			if !ok {
				return nil, Errorf("ograd %v does not match the output %v of data %v", in[0], want, d)
			}
			copy(in[0], g)
			return []Shape{d.Clone()}, nil
		},
		DType: func(_ *AdaptiveAvgPoolingAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *AdaptiveAvgPoolingAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			g := in[0].Float64s()
			dx := make([]float64, out[0].Shape.Size())
			adaptiveAvgPool(out[0].Shape, in[0].Shape, func(i, o int, scale float64) { dx[i] += g[o] * scale })
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		// Linear in ograd: its gradient is the forward pooling.
		Grad: func(f F, a *AdaptiveAvgPoolingAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opAdaptiveAvgPool, a, g[0]), nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"output_size": "(2, 3)"}, Inputs: []Shape{{2, 2, 2, 3}, {2, 2, 5, 4}}},
		},
	})
}

// adaptiveAvgPool calls visit(i, o, 1/window) for every input element i
// (of in, (N, C, H, W)) in the window of every output element o (of out,
// (N, C, OH, OW)).
func adaptiveAvgPool(in, out Shape, visit func(i, o int, scale float64)) {
	h, w, oh, ow := in[2], in[3], out[2], out[3]
	for p := 0; p < in[0]*in[1]; p++ {
		for r := 0; r < oh; r++ {
			r0, r1 := r*h/oh, ((r+1)*h+oh-1)/oh
			for c := 0; c < ow; c++ {
				c0, c1 := c*w/ow, ((c+1)*w+ow-1)/ow
				o := (p*oh+r)*ow + c
				scale := 1 / float64((r1-r0)*(c1-c0))
				for i := r0; i < r1; i++ {
					for j := c0; j < c1; j++ {
						visit((p*h+i)*w+j, o, scale)
					}
				}
			}
		}
	}
}

// AdaptiveAvgPooling2D averages x (N, C, H, W) down to (N, C, h, w),
// whatever H and W are. MXNet's name is _contrib_AdaptiveAvgPooling2D.
func (f F) AdaptiveAvgPooling2D(x Tensor, h, w int) Tensor {
	return f.callA(opAdaptiveAvgPool, &AdaptiveAvgPoolingAttrs{OutputSize: Tuple{h, w}}, x)
}

func (f F) adaptiveAvgPoolBackward(a *AdaptiveAvgPoolingAttrs, g, x Tensor) Tensor {
	return f.callA(opAdaptiveAvgPoolBackward, a, g, x)
}
