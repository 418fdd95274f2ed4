package ops

import "math"

// The spatial transformer family (Jaderberg et al.): GridGenerator makes a
// sampling grid, from an affine transform of the output's coordinates or
// from an optical flow; BilinearSampler reads data at a grid's points by
// bilinear interpolation (0 outside the data); SpatialTransformer is the
// two in one, an affine grid sampled bilinearly. Grid coordinates are
// normalised: -1 is the first row or column, 1 the last. MXNet's hidden
// outputs (the grids it keeps for its backward) are not outputs here: the
// gradients recompute what they need.

// GridGeneratorAttrs are the attributes of GridGenerator.
type GridGeneratorAttrs struct {
	TransformType string `attr:"transform_type" enum:"affine,warp" doc:"affine: data (N, 6) holds the 2x3 matrices; warp: data (N, 2, H, W) holds an optical flow in pixels"`
	TargetShape   Tuple  `attr:"target_shape" default:"(0, 0)" doc:"the grid's (H, W) for affine; ignored for warp"`
}

// BilinearSamplerAttrs are the attributes of BilinearSampler.
type BilinearSamplerAttrs struct {
	CudnnOff string `attr:"cudnn_off" default:"None" doc:"ignored: there is no cuDNN"`
}

// SpatialTransformerAttrs are the attributes of SpatialTransformer.
type SpatialTransformerAttrs struct {
	TargetShape   Tuple  `attr:"target_shape" default:"(0, 0)" doc:"the output's (H, W)"`
	TransformType string `attr:"transform_type" enum:"affine" doc:"the transform: affine, loc (N, 6) holding the 2x3 matrices"`
	SamplerType   string `attr:"sampler_type" enum:"bilinear" doc:"the sampling: bilinear"`
	CudnnOff      string `attr:"cudnn_off" default:"None" doc:"ignored: there is no cuDNN"`
}

var opGridGenerator, opBackwardGridGenerator, opBilinearSampler, opBackwardBilinearSampler, opSpatialTransformer *Op

func init() {
	opGridGenerator = Register(Def[GridGeneratorAttrs]{
		Name: "GridGenerator", Kind: "other",
		Doc: "Makes a sampling grid (N, 2, H, W) of normalised (x, y) coordinates for BilinearSampler. affine: data " +
			"(N, 6), each row a 2x3 matrix applied to the target grid's coordinates (x, y, 1), x and y running from " +
			"-1 to 1 over target_shape's (H, W). warp: data (N, 2, H, W) an optical flow in pixels, added to each " +
			"pixel's position and normalised.",
		Inputs: []string{"data"},
		Check:  func(a *GridGeneratorAttrs) error { return a.check() },
		Shape: func(a *GridGeneratorAttrs, in []Shape) ([]Shape, error) {
			s, err := a.outShape(in[0])
			return []Shape{s}, err
		},
		DType: func(_ *GridGeneratorAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *GridGeneratorAttrs, in, out []Value) error {
			x := in[0].Float64s()
			y := make([]float64, out[0].Shape.Size())
			a.forward(out[0].Shape, x, y)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *GridGeneratorAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardGridGenerator, a, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"transform_type": "affine", "target_shape": "(3, 4)"}, Inputs: []Shape{{2, 6}}},
			{Attrs: map[string]string{"transform_type": "warp"}, Inputs: []Shape{{2, 2, 3, 4}}},
		},
	})

	opBackwardGridGenerator = Register(Def[GridGeneratorAttrs]{
		Name: "_backward_GridGenerator", Kind: "other",
		Doc:    "The gradient of GridGenerator with respect to its data, from ograd (N, 2, H, W).",
		Inputs: []string{"ograd"},
		Check:  func(a *GridGeneratorAttrs) error { return a.check() },
		Shape: func(a *GridGeneratorAttrs, in []Shape) ([]Shape, error) {
			g := in[0]
			if len(g) != 4 || (g[1] != 0 && g[1] != 2) {
				return nil, Errorf("ograd %v must be (N, 2, H, W)", g)
			}
			if a.TransformType == "affine" {
				if (g[2] != 0 && g[2] != a.TargetShape[0]) || (g[3] != 0 && g[3] != a.TargetShape[1]) {
					return nil, Errorf("ograd %v does not match target_shape %v", g, a.TargetShape)
				}
				return []Shape{{g[0], 6}}, nil
			}
			return []Shape{g.Clone()}, nil
		},
		DType: func(_ *GridGeneratorAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *GridGeneratorAttrs, in, out []Value) error {
			g := in[0].Float64s()
			dx := make([]float64, out[0].Shape.Size())
			a.backward(in[0].Shape, g, dx)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		Grad: func(f F, a *GridGeneratorAttrs, _, _, g []Tensor) []Tensor {
			if a.TransformType == "affine" { // the adjoint of the adjoint
				return []Tensor{f.callA(opGridGenerator, a, g[0])}
			}
			return []Tensor{f.callA(opBackwardGridGenerator, a, g[0])} // a scaling, its own adjoint
		},
		Samples: []Sample{
			{Attrs: map[string]string{"transform_type": "affine", "target_shape": "(3, 4)"}, Inputs: []Shape{{2, 2, 3, 4}}},
			{Attrs: map[string]string{"transform_type": "warp"}, Inputs: []Shape{{1, 2, 3, 2}}},
		},
	})

	opBilinearSampler = Register(Def[BilinearSamplerAttrs]{
		Name: "BilinearSampler", Kind: "other",
		Doc: "Samples data (N, C, H, W) at the points of grid (N, 2, Ho, Wo), normalised (x, y) coordinates with -1 " +
			"the first pixel and 1 the last, by bilinear interpolation; a neighbour outside the data counts as 0. " +
			"The result is (N, C, Ho, Wo). Both data and grid get gradients.",
		Inputs: []string{"data", "grid"},
		Shape: func(_ *BilinearSamplerAttrs, in []Shape) ([]Shape, error) {
			s, err := samplerShape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *BilinearSamplerAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, _ *BilinearSamplerAttrs, in, out []Value) error {
			y := make([]float64, out[0].Shape.Size())
			bilinearSample(in[0].Shape, in[0].Float64s(), out[0].Shape, in[1].Float64s(), y, nil, nil, nil)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *BilinearSamplerAttrs, in, _, g []Tensor) []Tensor {
			return f.Invoke(opBackwardBilinearSampler, a, g[0], in[0], in[1])
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 4, 5}, {2, 2, 3, 2}}, Low: -1.2, High: 1.2},
			{Inputs: []Shape{{1, 1, 3, 3}, {1, 2, 4, 4}}},
		},
	})

	opBackwardBilinearSampler = Register(Def[BilinearSamplerAttrs]{
		Name: "_backward_BilinearSampler", Kind: "other",
		Doc:    "The gradients of BilinearSampler with respect to data and grid, from ograd (N, C, Ho, Wo).",
		Inputs: []string{"ograd", "data", "grid"}, Outputs: 2,
		Shape: func(_ *BilinearSamplerAttrs, in []Shape) ([]Shape, error) {
			want, err := samplerShape(in[1], in[2])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "BilinearSampler's result"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone(), in[2].Clone()}, nil
		},
		DType: func(_ *BilinearSamplerAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0]}, nil
		},
		Kernel: func(_ *Env, _ *BilinearSamplerAttrs, in, out []Value) error {
			dx := make([]float64, out[0].Shape.Size())
			dg := make([]float64, out[1].Shape.Size())
			bilinearSample(in[1].Shape, in[1].Float64s(), in[0].Shape, in[2].Float64s(), nil, in[0].Float64s(), dx, dg)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, dg))
			return nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3, 3, 2}, {2, 3, 4, 5}, {2, 2, 3, 2}}},
		},
	})

	opSpatialTransformer = Register(Def[SpatialTransformerAttrs]{
		Name: "SpatialTransformer", Kind: "other",
		Doc: "Warps data (N, C, H, W) by the affine transforms loc (N, 6): the output (N, C, target H, target W) " +
			"samples data bilinearly at GridGenerator's affine grid, as BilinearSampler does. Both data and loc get " +
			"gradients.",
		Inputs: []string{"data", "loc"},
		Check:  func(a *SpatialTransformerAttrs) error { return a.grid().check() },
		Shape: func(a *SpatialTransformerAttrs, in []Shape) ([]Shape, error) {
			gs, err := a.grid().outShape(in[1])
			if err != nil {
				return nil, err
			}
			s, err := samplerShape(in[0], gs)
			if err != nil {
				return nil, err
			}
			if s[0] != 0 {
				in[1][0] = s[0]
			}
			return []Shape{s}, nil
		},
		DType: func(_ *SpatialTransformerAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *SpatialTransformerAttrs, in, out []Value) error {
			ga := a.grid()
			gs, err := ga.outShape(in[1].Shape)
			if err != nil {
				return err
			}
			grid := make([]float64, gs.Size())
			ga.forward(gs, in[1].Float64s(), grid)
			y := make([]float64, out[0].Shape.Size())
			bilinearSample(in[0].Shape, in[0].Float64s(), out[0].Shape, grid, y, nil, nil, nil)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *SpatialTransformerAttrs, in, _, g []Tensor) []Tensor {
			ga := a.grid()
			grid := f.callA(opGridGenerator, ga, in[1])
			d := f.Invoke(opBackwardBilinearSampler, &BilinearSamplerAttrs{CudnnOff: "None"}, g[0], in[0], grid)
			return []Tensor{d[0], f.callA(opBackwardGridGenerator, ga, d[1])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"target_shape": "(3, 4)", "transform_type": "affine", "sampler_type": "bilinear"}, Inputs: []Shape{{2, 2, 5, 5}, {2, 6}}},
		},
	})
}

// check validates GridGenerator's attributes.
func (a *GridGeneratorAttrs) check() error {
	if a.TransformType == "affine" && (len(a.TargetShape) != 2 || a.TargetShape[0] < 2 || a.TargetShape[1] < 2) {
		return Errorf("target_shape %v must be an (H, W) of at least 2 each for the affine transform", a.TargetShape)
	}
	return nil
}

// outShape is GridGenerator's output shape for data d.
func (a *GridGeneratorAttrs) outShape(d Shape) (Shape, error) {
	if a.TransformType == "affine" {
		if len(d) != 2 || (d[1] != 0 && d[1] != 6) {
			return nil, Errorf("data %v must be (N, 6): a 2x3 affine matrix per sample", d)
		}
		return Shape{d[0], 2, a.TargetShape[0], a.TargetShape[1]}, nil
	}
	if len(d) != 4 || (d[1] != 0 && d[1] != 2) {
		return nil, Errorf("data %v must be (N, 2, H, W): a flow per sample", d)
	}
	return d.Clone(), nil
}

// forward fills y (shape s, (N, 2, H, W)) with the grid of data x.
func (a *GridGeneratorAttrs) forward(s Shape, x, y []float64) {
	n, h, w := s[0], s[2], s[3]
	hw := h * w
	for b := range n {
		for i := range h {
			for j := range w {
				p := i*w + j
				if a.TransformType == "affine" {
					xt, yt := -1+float64(j)*2/float64(w-1), -1+float64(i)*2/float64(h-1)
					th := x[b*6 : b*6+6]
					y[(b*2)*hw+p] = th[0]*xt + th[1]*yt + th[2]
					y[(b*2+1)*hw+p] = th[3]*xt + th[4]*yt + th[5]
				} else {
					y[(b*2)*hw+p] = (x[(b*2)*hw+p]+float64(j))/(float64(w-1)/2) - 1
					y[(b*2+1)*hw+p] = (x[(b*2+1)*hw+p]+float64(i))/(float64(h-1)/2) - 1
				}
			}
		}
	}
}

// backward fills dx with the gradient of the grid's data from g (shape s).
func (a *GridGeneratorAttrs) backward(s Shape, g, dx []float64) {
	n, h, w := s[0], s[2], s[3]
	hw := h * w
	for b := range n {
		for i := range h {
			for j := range w {
				p := i*w + j
				gx, gy := g[(b*2)*hw+p], g[(b*2+1)*hw+p]
				if a.TransformType == "affine" {
					xt, yt := -1+float64(j)*2/float64(w-1), -1+float64(i)*2/float64(h-1)
					d := dx[b*6 : b*6+6]
					d[0] += gx * xt
					d[1] += gx * yt
					d[2] += gx
					d[3] += gy * xt
					d[4] += gy * yt
					d[5] += gy
				} else {
					dx[(b*2)*hw+p] = gx / (float64(w-1) / 2)
					dx[(b*2+1)*hw+p] = gy / (float64(h-1) / 2)
				}
			}
		}
	}
}

// grid is the GridGenerator that SpatialTransformer's transform makes.
func (a *SpatialTransformerAttrs) grid() *GridGeneratorAttrs {
	return &GridGeneratorAttrs{TransformType: "affine", TargetShape: a.TargetShape}
}

// samplerShape is BilinearSampler's output shape for data and grid.
func samplerShape(d, g Shape) (Shape, error) {
	if len(d) != 4 {
		return nil, Errorf("data %v must be (N, C, H, W)", d)
	}
	if len(g) != 4 || (g[1] != 0 && g[1] != 2) {
		return nil, Errorf("grid %v must be (N, 2, H, W)", g)
	}
	if d[0] != 0 && g[0] != 0 && d[0] != g[0] {
		return nil, Errorf("data %v and grid %v differ in batch size", d, g)
	}
	return Shape{max(d[0], g[0]), d[1], g[2], g[3]}, nil
}

// bilinearSample samples data x (shape xs) at grid (N, 2, Ho, Wo), out
// having shape os (N, C, Ho, Wo). With y it writes the samples; with g,
// the output's gradient, it adds the gradients of x and of the grid into
// dx and dg.
func bilinearSample(xs Shape, x []float64, os Shape, grid, y, g, dx, dg []float64) {
	n, c, h, w := xs[0], xs[1], xs[2], xs[3]
	oh, ow := os[2], os[3]
	ohw := oh * ow
	in := func(i, j int) bool { return i >= 0 && i < h && j >= 0 && j < w }
	for b := range n {
		for p := range ohw {
			gx, gy := grid[(b*2)*ohw+p], grid[(b*2+1)*ohw+p]
			xr, yr := (gx+1)*float64(w-1)/2, (gy+1)*float64(h-1)/2
			x0, y0 := int(math.Floor(xr)), int(math.Floor(yr))
			wx, wy := 1-(xr-float64(x0)), 1-(yr-float64(y0)) // the top-left corner's weights
			var dwx, dwy float64
			for ch := range c {
				plane := x[(b*c+ch)*h*w : (b*c+ch+1)*h*w]
				var v [4]float64 // top left, top right, bottom left, bottom right
				corners := [4][2]int{{y0, x0}, {y0, x0 + 1}, {y0 + 1, x0}, {y0 + 1, x0 + 1}}
				weights := [4]float64{wy * wx, wy * (1 - wx), (1 - wy) * wx, (1 - wy) * (1 - wx)}
				for k, cr := range corners {
					if in(cr[0], cr[1]) {
						v[k] = plane[cr[0]*w+cr[1]]
					}
				}
				o := (b*c+ch)*ohw + p
				if y != nil {
					y[o] = v[0]*weights[0] + v[1]*weights[1] + v[2]*weights[2] + v[3]*weights[3]
					continue
				}
				gv := g[o]
				for k, cr := range corners {
					if in(cr[0], cr[1]) {
						dx[(b*c+ch)*h*w+cr[0]*w+cr[1]] += gv * weights[k]
					}
				}
				// d out / d wx and d wy, the top-left weights.
				dwx += gv * (wy*(v[0]-v[1]) + (1-wy)*(v[2]-v[3]))
				dwy += gv * (wx*(v[0]-v[2]) + (1-wx)*(v[1]-v[3]))
			}
			if y == nil {
				// wx = 1 - (xr - x0), so d wx / d gx = -(w-1)/2.
				dg[(b*2)*ohw+p] -= dwx * float64(w-1) / 2
				dg[(b*2+1)*ohw+p] -= dwy * float64(h-1) / 2
			}
		}
	}
}

// GridGenerator returns the sampling grid (N, 2, H, W) of data: affine
// matrices (N, 6) with target_shape in attrs, or a flow (N, 2, H, W) for
// transformType "warp".
func (f F) GridGenerator(data Tensor, transformType string, attrs ...Attr) Tensor {
	return f.call1(opGridGenerator, append([]Attr{{"transform_type", transformType}}, attrs...), data)
}

// BilinearSampler samples data (N, C, H, W) bilinearly at the normalised
// points of grid (N, 2, Ho, Wo).
func (f F) BilinearSampler(data, grid Tensor) Tensor {
	return f.callA(opBilinearSampler, &BilinearSamplerAttrs{CudnnOff: "None"}, data, grid)
}

// SpatialTransformer warps data (N, C, H, W) by the affine matrices loc
// (N, 6) into an output of targetH x targetW, sampled bilinearly.
func (f F) SpatialTransformer(data, loc Tensor, targetH, targetW int) Tensor {
	return f.call1(opSpatialTransformer, []Attr{{"target_shape", []int{targetH, targetW}},
		{"transform_type", "affine"}, {"sampler_type", "bilinear"}}, data, loc)
}
