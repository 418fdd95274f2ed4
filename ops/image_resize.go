package ops

import "math"

// Bilinear resizing: _contrib_BilinearResize2D and its gradient. Each
// output pixel is a weighted sum of (at most) four input pixels; the
// weights depend on the sizes only, so the kernel and the gradient share
// one table of (offset, weight) pairs per plane.

// BilinearResize2DAttrs are the attributes of _contrib_BilinearResize2D.
type BilinearResize2DAttrs struct {
	Height       int      `attr:"height" default:"1" doc:"the output height (mode size, without scale_height)"`
	Width        int      `attr:"width" default:"1" doc:"the output width (mode size, without scale_width)"`
	ScaleHeight  OptFloat `attr:"scale_height" default:"None" doc:"the factor the height is multiplied by (modes size and odd_scale)"`
	ScaleWidth   OptFloat `attr:"scale_width" default:"None" doc:"the factor the width is multiplied by (modes size and odd_scale)"`
	Mode         string   `attr:"mode" default:"size" enum:"size,odd_scale,like,to_even_down,to_even_up,to_odd_down,to_odd_up" doc:"how the output size is chosen: given (size), scaled keeping odd sizes' corners (odd_scale), that of the second input (like), or the nearest even or odd size"`
	AlignCorners bool     `attr:"align_corners" default:"True" doc:"map the corner pixels' centres onto each other; False maps the images' edges"`
}

var opBilinearResize2D, opBackwardBilinearResize2D *Op

func init() {
	inputs := func(a *BilinearResize2DAttrs) []string {
		if a.Mode == "like" {
			return []string{"data", "like"}
		}
		return []string{"data"}
	}
	opBilinearResize2D = Register(Def[BilinearResize2DAttrs]{
		Name: "_contrib_BilinearResize2D", Kind: "shape",
		Doc: "Resizes the height and width of 4-D data (N, C, H, W) by bilinear interpolation, to a size chosen by mode " +
			"(as PyTorch's interpolate with mode bilinear and the same align_corners).",
		InputNames: inputs,
		Shape: func(a *BilinearResize2DAttrs, in []Shape) ([]Shape, error) {
			out, err := a.outShape(in)
			return []Shape{out}, err
		},
		DType: func(_ *BilinearResize2DAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *BilinearResize2DAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			d, o := in[0].Shape, out[0].Shape
			taps := bilinearTaps(d[2], d[3], o[2], o[3], a.AlignCorners)
			x := in[0].Float64s()
			y := make([]float64, o.Size())
			ip, op := d[2]*d[3], o[2]*o[3]
			for p := range d[0] * d[1] {
				xs, ys := x[p*ip:(p+1)*ip], y[p*op:(p+1)*op]
				for i := range ys {
					s := 0.0
					for _, t := range taps[i] {
						s += t.w * xs[t.off]
					}
					ys[i] = s
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, y))
			return nil
		},
		Grad: func(f F, a *BilinearResize2DAttrs, in, _, g []Tensor) []Tensor {
			grads := make([]Tensor, len(in))
			grads[0] = f.callA(opBackwardBilinearResize2D, a, append([]Tensor{g[0]}, in...)...)
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"height": "5", "width": "7"}, Inputs: []Shape{{1, 2, 3, 4}}},
			{Attrs: map[string]string{"height": "2", "width": "3", "align_corners": "False"}, Inputs: []Shape{{2, 1, 4, 5}}},
			{Attrs: map[string]string{"scale_height": "2", "scale_width": "1.5", "align_corners": "False"}, Inputs: []Shape{{1, 1, 3, 4}}},
			{Attrs: map[string]string{"mode": "like"}, Inputs: []Shape{{1, 2, 3, 3}, {1, 1, 4, 6}}},
			{Attrs: map[string]string{"mode": "odd_scale", "scale_height": "2", "scale_width": "2"}, Inputs: []Shape{{1, 1, 3, 4}}},
			{Attrs: map[string]string{"mode": "to_even_up"}, Inputs: []Shape{{1, 1, 3, 4}}},
		},
	})

	opBackwardBilinearResize2D = Register(Def[BilinearResize2DAttrs]{
		Name: "_backward_contrib_BilinearResize2D", Kind: "shape",
		Doc: "The gradient of _contrib_BilinearResize2D with respect to its data: each output pixel's gradient spread over " +
			"the input pixels it was interpolated from, by the same weights.",
		InputNames: func(a *BilinearResize2DAttrs) []string { return append([]string{"ograd"}, inputs(a)...) },
		Shape: func(a *BilinearResize2DAttrs, in []Shape) ([]Shape, error) {
			want, err := a.outShape(in[1:])
			if err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], want, "the resized data"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *BilinearResize2DAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *BilinearResize2DAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			o, d := in[0].Shape, in[1].Shape
			taps := bilinearTaps(d[2], d[3], o[2], o[3], a.AlignCorners)
			g := in[0].Float64s()
			dx := make([]float64, d.Size())
			ip, op := d[2]*d[3], o[2]*o[3]
			for p := range d[0] * d[1] {
				gs, xs := g[p*op:(p+1)*op], dx[p*ip:(p+1)*ip]
				for i, v := range gs {
					for _, t := range taps[i] {
						xs[t.off] += t.w * v
					}
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		Samples: []Sample{
			{Attrs: map[string]string{"height": "5", "width": "7"}, Inputs: []Shape{{1, 2, 5, 7}, {1, 2, 3, 4}}},
		},
	})
}

// outShape is the data's shape with the height and width mode chooses.
func (a *BilinearResize2DAttrs) outShape(in []Shape) (Shape, error) {
	d := in[0]
	if len(d) != 4 {
		return nil, Errorf("data %v must be 4-D (N, C, H, W)", d)
	}
	h, w := d[2], d[3]
	var oh, ow int
	switch a.Mode {
	case "size":
		oh, ow = a.Height, a.Width
		if a.ScaleHeight.Valid != a.ScaleWidth.Valid {
			return nil, Errorf("give both scale_height and scale_width, or neither")
		}
		if a.ScaleHeight.Valid {
			oh, ow = int(a.ScaleHeight.Value*float64(h)), int(a.ScaleWidth.Value*float64(w))
		}
	case "odd_scale":
		if !a.ScaleHeight.Valid || !a.ScaleWidth.Valid {
			return nil, Errorf("mode odd_scale needs scale_height and scale_width")
		}
		scale := func(n int, s float64) int {
			if n%2 == 0 {
				return int(float64(n) * s)
			}
			return int(float64(n-1)*s) + 1
		}
		oh, ow = scale(h, a.ScaleHeight.Value), scale(w, a.ScaleWidth.Value)
	case "like":
		like := in[1]
		if len(like) != 4 {
			return nil, Errorf("like %v must be 4-D (N, C, H, W)", like)
		}
		oh, ow = like[2], like[3]
	default:
		even := a.Mode == "to_even_down" || a.Mode == "to_even_up"
		step := 1
		if a.Mode == "to_even_down" || a.Mode == "to_odd_down" {
			step = -1
		}
		to := func(n int) int {
			if (n%2 == 0) != even {
				return n + step
			}
			return n
		}
		oh, ow = to(h), to(w)
	}
	if h == 0 || w == 0 {
		return Shape{d[0], d[1], 0, 0}, nil
	}
	if oh < 1 || ow < 1 {
		return nil, Errorf("the output size %dx%d (mode %s) of data %v must be at least 1x1", oh, ow, a.Mode, d)
	}
	return Shape{d[0], d[1], oh, ow}, nil
}

// bilinearTap is one input pixel of an output pixel and its weight.
type bilinearTap struct {
	off int
	w   float64
}

// bilinearTaps lists, for each pixel of an oh×ow plane, the pixels of an
// h×w plane it interpolates and their weights, as MXNet (and PyTorch)
// compute them.
func bilinearTaps(h, w, oh, ow int, alignCorners bool) [][]bilinearTap {
	axis := func(in, out int) (lo, hi []int, lam []float64) {
		lo, hi, lam = make([]int, out), make([]int, out), make([]float64, out)
		scale := 0.0
		if out > 1 {
			if alignCorners {
				scale = float64(in-1) / float64(out-1)
			} else {
				scale = float64(in) / float64(out)
			}
		}
		if in == out {
			scale = 1
		}
		for i := range out {
			src := scale * float64(i)
			if !alignCorners && in != out {
				src = math.Max(scale*(float64(i)+0.5)-0.5, 0)
			}
			j := int(src)
			lo[i], lam[i] = j, src-float64(j)
			hi[i] = j
			if j < in-1 {
				hi[i] = j + 1
			}
		}
		return lo, hi, lam
	}
	y0, y1, ly := axis(h, oh)
	x0, x1, lx := axis(w, ow)
	taps := make([][]bilinearTap, oh*ow)
	for i := range oh {
		for j := range ow {
			taps[i*ow+j] = []bilinearTap{
				{y0[i]*w + x0[j], (1 - ly[i]) * (1 - lx[j])},
				{y0[i]*w + x1[j], (1 - ly[i]) * lx[j]},
				{y1[i]*w + x0[j], ly[i] * (1 - lx[j])},
				{y1[i]*w + x1[j], ly[i] * lx[j]},
			}
		}
	}
	return taps
}

// BilinearResize2D resizes the height and width of 4-D x to h×w by
// bilinear interpolation (align_corners True; ops.Attr{"align_corners",
// false} changes it).
func (f F) BilinearResize2D(x Tensor, h, w int, attrs ...Attr) Tensor {
	return f.call1(opBilinearResize2D, append([]Attr{{"height", h}, {"width", w}}, attrs...), x)
}
