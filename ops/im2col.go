package ops

import "github.com/hybridgo/hybridgo/accel"

// im2col and col2im: the sliding blocks of a convolution as columns, and
// the columns summed back into an image. Each is the other's gradient
// (col2im is im2col's adjoint), so neither needs a backward op of its own.

// Im2colAttrs are the attributes of im2col.
type Im2colAttrs struct {
	Kernel Tuple `attr:"kernel" doc:"sliding block size: (w,) or (h, w)"`
	Stride Tuple `attr:"stride" default:"()" doc:"step between blocks; () means 1 in every dim"`
	Dilate Tuple `attr:"dilate" default:"()" doc:"spacing between a block's taps; () means 1 in every dim"`
	Pad    Tuple `attr:"pad" default:"()" doc:"zeros added on both sides of each spatial dim; () means 0"`
}

// Col2imAttrs are the attributes of col2im.
type Col2imAttrs struct {
	OutputSize Tuple `attr:"output_size" doc:"the spatial size of the image: (w,) or (h, w)"`
	Kernel     Tuple `attr:"kernel" doc:"sliding block size: (w,) or (h, w)"`
	Stride     Tuple `attr:"stride" default:"()" doc:"step between blocks; () means 1 in every dim"`
	Dilate     Tuple `attr:"dilate" default:"()" doc:"spacing between a block's taps; () means 1 in every dim"`
	Pad        Tuple `attr:"pad" default:"()" doc:"zeros added on both sides of each spatial dim; () means 0"`
}

var opIm2col, opCol2im *Op

func init() {
	opIm2col = Register(Def[Im2colAttrs]{
		Name: "im2col", Kind: "shape",
		Doc: "Extracts the sliding blocks of data (N, C, W) or (N, C, H, W), as a convolution with kernel, stride, " +
			"dilate and pad sees them, into columns: the result is (N, C·prod(kernel), L), L the number of blocks " +
			"(the convolution's output size), row (c·kh + i)·kw + j holding tap (i, j) of channel c (0 in the padding).",
		Inputs: []string{"data"},
		Check:  func(a *Im2colAttrs) error { _, err := slidingCheck(a.Kernel, a.Stride, a.Dilate, a.Pad); return err },
		Shape: func(a *Im2colAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			k := len(a.Kernel)
			if len(d) != k+2 {
				return nil, Errorf("data %v must have %d dims (N, C and the kernel's %d)", d, k+2, k)
			}
			g, err := a.geom(d)
			if err != nil {
				return nil, err
			}
			if !d.Known() {
				return []Shape{{d[0], d[1] * prodDims(Shape(a.Kernel)), 0}}, nil
			}
			return []Shape{{d[0], d[1] * prodDims(Shape(a.Kernel)), g.OutH() * g.OutW()}}, nil
		},
		DType: func(_ *Im2colAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *Im2colAttrs, in, out []Value) error {
			g, err := a.geom(in[0].Shape)
			if err != nil {
				return err
			}
			n := in[0].Shape[0]
			switch x := in[0].Data.(type) {
			case []float32:
				im2colBatch(g, n, x, out[0].Data.([]float32))
			case []float64:
				im2colBatch(g, n, x, out[0].Data.([]float64))
			}
			return nil
		},
		Grad: func(f F, a *Im2colAttrs, in, _, g []Tensor) []Tensor {
			s := in[0].Shape()
			return []Tensor{f.callA(opCol2im, &Col2imAttrs{OutputSize: Tuple(s[2:]).clone(), Kernel: a.Kernel, Stride: a.Stride, Dilate: a.Dilate, Pad: a.Pad}, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"kernel": "(2, 2)"}, Inputs: []Shape{{2, 3, 4, 4}}},
			{Attrs: map[string]string{"kernel": "(3, 2)", "stride": "(2, 1)", "dilate": "(1, 2)", "pad": "(1, 1)"}, Inputs: []Shape{{1, 2, 5, 6}}},
			{Attrs: map[string]string{"kernel": "(3,)", "stride": "(2,)", "pad": "(1,)"}, Inputs: []Shape{{2, 2, 7}}},
		},
	})

	opCol2im = Register(Def[Col2imAttrs]{
		Name: "col2im", Kind: "shape",
		Doc: "Sums columns (N, C·prod(kernel), L), laid out as im2col makes them, back into an image (N, C, output_size...): " +
			"each element is added to the pixel it was taken from, overlapping blocks adding up and padding dropped. " +
			"It is im2col's gradient, and im2col is its.",
		Inputs: []string{"data"},
		Check: func(a *Col2imAttrs) error {
			if _, err := slidingCheck(a.Kernel, a.Stride, a.Dilate, a.Pad); err != nil {
				return err
			}
			if len(a.OutputSize) != len(a.Kernel) {
				return Errorf("output_size %v must have %d values like kernel %v", a.OutputSize, len(a.Kernel), a.Kernel)
			}
			for _, v := range a.OutputSize {
				if v < 1 {
					return Errorf("output_size %v must be positive", a.OutputSize)
				}
			}
			return nil
		},
		Shape: func(a *Col2imAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) != 3 {
				return nil, Errorf("data %v must be 3-D (N, C·prod(kernel), L)", d)
			}
			g, err := a.geom(0)
			if err != nil {
				return nil, err
			}
			k := prodDims(Shape(a.Kernel))
			if d[1] != 0 && d[1]%k != 0 {
				return nil, Errorf("data %v: dim 1 must divide by the kernel's %d taps", d, k)
			}
			if l := g.OutH() * g.OutW(); d[2] != 0 && d[2] != l {
				return nil, Errorf("data %v: dim 2 must be the %d blocks of output_size %v", d, l, a.OutputSize)
			}
			return []Shape{append(Shape{d[0], d[1] / k}, a.OutputSize...)}, nil
		},
		DType: func(_ *Col2imAttrs, in []DType) ([]DType, error) { return floatData(in[0]) },
		Kernel: func(_ *Env, a *Col2imAttrs, in, out []Value) error {
			g, err := a.geom(in[0].Shape[1] / prodDims(Shape(a.Kernel)))
			if err != nil {
				return err
			}
			n := in[0].Shape[0]
			switch x := in[0].Data.(type) {
			case []float32:
				col2imBatch(g, n, x, out[0].Data.([]float32))
			case []float64:
				col2imBatch(g, n, x, out[0].Data.([]float64))
			}
			return nil
		},
		Grad: func(f F, a *Col2imAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opIm2col, &Im2colAttrs{Kernel: a.Kernel, Stride: a.Stride, Dilate: a.Dilate, Pad: a.Pad}, g[0])}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"output_size": "(4, 4)", "kernel": "(2, 2)"}, Inputs: []Shape{{2, 12, 9}}},
			{Attrs: map[string]string{"output_size": "(5, 6)", "kernel": "(3, 2)", "stride": "(2, 1)", "dilate": "(1, 2)", "pad": "(1, 1)"}, Inputs: []Shape{{1, 12, 18}}},
			{Attrs: map[string]string{"output_size": "(7,)", "kernel": "(3,)", "stride": "(2,)", "pad": "(1,)"}, Inputs: []Shape{{2, 6, 4}}},
		},
	})
}

// clone returns a copy of t.
func (t Tuple) clone() Tuple { return append(Tuple(nil), t...) }

// slidingCheck validates a sliding window's attributes and returns them
// with () filled in: stride and dilate 1, pad 0.
func slidingCheck(kernel, stride, dilate, pad Tuple) ([4]Tuple, error) {
	k := len(kernel)
	if k != 1 && k != 2 {
		return [4]Tuple{}, Errorf("kernel %v: 1-D (w,) and 2-D (h, w) blocks are supported", kernel)
	}
	out := [4]Tuple{kernel, stride, dilate, pad}
	names := []string{"kernel", "stride", "dilate", "pad"}
	for i := 1; i < 4; i++ {
		if len(out[i]) == 0 {
			out[i] = make(Tuple, k)
			for j := range out[i] {
				out[i][j] = 1
				if i == 3 {
					out[i][j] = 0
				}
			}
		}
		if len(out[i]) != k {
			return out, Errorf("%s %v must have %d values like kernel %v, or be ()", names[i], out[i], k, kernel)
		}
	}
	for i := range 3 {
		for _, v := range out[i] {
			if v < 1 {
				return out, Errorf("%s %v must be positive", names[i], out[i])
			}
		}
	}
	for _, v := range out[3] {
		if v < 0 {
			return out, Errorf("pad %v must not be negative", out[3])
		}
	}
	return out, nil
}

// slidingGeom is the geometry of a sliding window over a c-channel image
// of spatial size size (one or two dims, a 1-D window as a 2-D one of
// height 1). A dim the window does not fit in is an error.
func slidingGeom(c int, size, kernel, stride, dilate, pad Tuple) (accel.ConvGeom, error) {
	w, err := slidingCheck(kernel, stride, dilate, pad)
	if err != nil {
		return accel.ConvGeom{}, err
	}
	at := func(t Tuple, i, one int) int {
		if len(kernel) == 1 {
			if i == 0 {
				return one
			}
			return t[0]
		}
		return t[i]
	}
	g := accel.ConvGeom{Channels: c,
		InH: at(size, 0, 1), InW: at(size, 1, 1),
		KernelH: at(w[0], 0, 1), KernelW: at(w[0], 1, 1),
		StrideH: at(w[1], 0, 1), StrideW: at(w[1], 1, 1),
		DilateH: at(w[2], 0, 1), DilateW: at(w[2], 1, 1),
		PadH: at(w[3], 0, 0), PadW: at(w[3], 1, 0)}
	for i, s := range size {
		if s != 0 && (s+2*w[3][i]-w[2][i]*(w[0][i]-1)-1) < 0 {
			return g, Errorf("the kernel %v (dilate %v) exceeds the padded size %v (pad %v)", kernel, w[2], size, w[3])
		}
	}
	return g, nil
}

// geom is im2col's window over data (N, C, spatial...).
func (a *Im2colAttrs) geom(d Shape) (accel.ConvGeom, error) {
	return slidingGeom(d[1], Tuple(d[2:]), a.Kernel, a.Stride, a.Dilate, a.Pad)
}

// geom is col2im's window over a c-channel image of output_size.
func (a *Col2imAttrs) geom(c int) (accel.ConvGeom, error) {
	return slidingGeom(c, a.OutputSize, a.Kernel, a.Stride, a.Dilate, a.Pad)
}

// im2colBatch writes the columns of each of n images.
func im2colBatch[T accel.Float](g accel.ConvGeom, n int, x, col []T) {
	img, cols := g.Channels*g.InH*g.InW, g.Channels*g.KernelH*g.KernelW*g.OutH()*g.OutW()
	for i := range n {
		accel.Im2col(g, x[i*img:(i+1)*img], col[i*cols:(i+1)*cols])
	}
}

// col2imBatch sums the columns of each of n images into y.
func col2imBatch[T accel.Float](g accel.ConvGeom, n int, col, y []T) {
	clear(y)
	img, cols := g.Channels*g.InH*g.InW, g.Channels*g.KernelH*g.KernelW*g.OutH()*g.OutW()
	for i := range n {
		accel.Col2im(g, col[i*cols:(i+1)*cols], y[i*img:(i+1)*img])
	}
}

// Im2col returns the sliding blocks of x (N, C, W) or (N, C, H, W) as
// columns (N, C·prod(kernel), L); attrs may set stride, dilate and pad.
func (f F) Im2col(x Tensor, kernel []int, attrs ...Attr) Tensor {
	return f.call1(opIm2col, append([]Attr{{"kernel", Tuple(kernel)}}, attrs...), x)
}

// Col2im sums columns (N, C·prod(kernel), L) back into images (N, C,
// outputSize...); attrs may set stride, dilate and pad.
func (f F) Col2im(x Tensor, outputSize, kernel []int, attrs ...Attr) Tensor {
	return f.call1(opCol2im, append([]Attr{{"output_size", Tuple(outputSize)}, {"kernel", Tuple(kernel)}}, attrs...), x)
}
