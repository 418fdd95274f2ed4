package ops

// Reshape and its relatives change the shape and keep the elements in
// row-major order: Reshape, Flatten, expand_dims, squeeze and reshape_like;
// shape_array and size_array describe the shape as an array.

// ReshapeAttrs are the attributes of Reshape. Shape may hold MXNet's codes:
//
//	 0  copy this dim of the input
//	-1  infer this dim from the others
//	-2  copy all remaining input dims
//	-3  merge two consecutive input dims into one
//	-4  split one input dim into the next two values (one may be -1)
//
// With Reverse, the codes are matched from the right.
type ReshapeAttrs struct {
	Shape       Tuple `attr:"shape" default:"()" doc:"the new shape, with codes 0, -1, -2, -3, -4"`
	Reverse     bool  `attr:"reverse" default:"False" doc:"match the codes from the right"`
	TargetShape Tuple `attr:"target_shape" default:"()" doc:"deprecated: the new shape, without codes"`
	KeepHighest bool  `attr:"keep_highest" default:"False" doc:"deprecated: with target_shape, keep the first dim"`
}

// ExpandDimsAttrs are the attributes of expand_dims.
type ExpandDimsAttrs struct {
	Axis int `attr:"axis" doc:"where the new dim of size 1 goes; negative counts from the end"`
}

// SqueezeAttrs are the attributes of squeeze.
type SqueezeAttrs struct {
	Axis Tuple `attr:"axis" default:"None" doc:"the axes of size 1 to remove; None removes every dim of size 1"`
}

func (a *SqueezeAttrs) shape(data Shape) (Shape, error) {
	drop := make([]bool, len(data))
	if len(a.Axis) == 0 {
		for i, d := range data {
			drop[i] = d == 1
		}
	} else {
		for _, ax := range a.Axis {
			n, err := NormAxis(ax, len(data))
			if err != nil {
				return nil, Errorf("axis %v: %v (data %v)", a.Axis, err, data)
			}
			if d := data[n]; d != 1 && d != 0 {
				return nil, Errorf("cannot squeeze axis %d of data %v: its size is %d, not 1", ax, data, d)
			}
			drop[n] = true
		}
	}
	out := Shape{}
	for i, d := range data {
		if !drop[i] {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = Shape{1} // as MXNet: at least one dim stays
	}
	return out, nil
}

// ReshapeLikeAttrs are the attributes of reshape_like.
type ReshapeLikeAttrs struct {
	LhsBegin OptInt `attr:"lhs_begin" default:"None" doc:"first dim of lhs to replace; None: 0"`
	LhsEnd   OptInt `attr:"lhs_end" default:"None" doc:"dim of lhs past the last to replace; None: the end"`
	RhsBegin OptInt `attr:"rhs_begin" default:"None" doc:"first dim of rhs to use; None: 0"`
	RhsEnd   OptInt `attr:"rhs_end" default:"None" doc:"dim of rhs past the last to use; None: the end"`
}

func dimRange(b, e OptInt, s Shape, name string) (int, int, error) {
	nd := len(s)
	lo, hi := b.index(0, nd), e.index(nd, nd)
	if lo < 0 || hi > nd || lo > hi {
		return 0, 0, Errorf("%s_begin=%v, %s_end=%v do not select dims of %s %v", name, b, name, e, name, s)
	}
	return lo, hi, nil
}

func (a *ReshapeLikeAttrs) shape(lhs, rhs Shape) (Shape, error) {
	lb, le, err := dimRange(a.LhsBegin, a.LhsEnd, lhs, "lhs")
	if err != nil {
		return nil, err
	}
	rb, re, err := dimRange(a.RhsBegin, a.RhsEnd, rhs, "rhs")
	if err != nil {
		return nil, err
	}
	out := append(append(lhs[:lb].Clone(), rhs[rb:re]...), lhs[le:]...)
	if lhs.Known() && out.Known() && out.Size() != lhs.Size() {
		return nil, Errorf("cannot reshape lhs %v (%d elements) like rhs %v: the result %v has %d elements", lhs, lhs.Size(), rhs, out, out.Size())
	}
	return out, nil
}

var opReshape, opFlatten, opExpandDims, opSqueeze, opReshapeLike, opShapeArray, opSizeArray *Op

func init() {
	opReshape = Register(Def[ReshapeAttrs]{
		Name: "Reshape", Kind: "shape", Aliases: []string{"reshape"},
		Doc:    "Gives the input a new shape with the same number of elements. The shape may use MXNet's codes: 0 copies a dim, -1 infers one, -2 copies the rest, -3 merges two dims, -4 splits one.",
		Inputs: []string{"data"},
		Shape: func(a *ReshapeAttrs, in []Shape) ([]Shape, error) {
			out, err := reshapeShape(in[0], a)
			return []Shape{out}, err
		},
		DType: nil,
		Kernel: func(_ *Env, _ *ReshapeAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad: func(f F, _ *ReshapeAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Reshape(g[0], in[0].Shape()...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"shape": "(0, -1)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"shape": "(-1,)"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"shape": "(-2, 1)"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"shape": "(-3, 4)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"shape": "(-4, 1, -1, 0, 0)"}, Inputs: []Shape{{6, 3, 4}}},
			{Attrs: map[string]string{"shape": "(-1, 0)", "reverse": "True"}, Inputs: []Shape{{2, 3, 4}}},
		},
	})

	opFlatten = Register(Def[NoAttrs]{
		Name: "Flatten", Kind: "shape", Aliases: []string{"flatten"}, Doc: "Collapses every dim after the first: (N, a, b, …) becomes (N, a*b*…).",
		Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s := in[0]
			if len(s) == 0 {
				return nil, Errorf("cannot flatten a scalar")
			}
			rest := 1
			for _, d := range s[1:] {
				rest *= d
			}
			return []Shape{{s[0], rest}}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Reshape(g[0], in[0].Shape()...)}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3, 4}}}, {Inputs: []Shape{{5}}}},
	})

	opExpandDims = Register(Def[ExpandDimsAttrs]{
		Name: "expand_dims", Kind: "shape", Doc: "Inserts a dim of size 1 at axis.",
		Inputs: []string{"data"},
		Shape: func(a *ExpandDimsAttrs, in []Shape) ([]Shape, error) {
			ax, err := NormAxis(a.Axis, len(in[0])+1)
			if err != nil {
				return nil, err
			}
			out := append(append(in[0][:ax:ax].Clone(), 1), in[0][ax:]...)
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, _ *ExpandDimsAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad: func(f F, _ *ExpandDimsAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Reshape(g[0], in[0].Shape()...)}
		},
		Samples: []Sample{{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"axis": "-1"}, Inputs: []Shape{{2, 3}}}},
	})
	opSqueeze = Register(Def[SqueezeAttrs]{
		Name: "squeeze", Kind: "shape", Doc: "Removes dims of size 1: the given axes, or all of them. At least one dim stays: squeezing (1, 1) gives (1,).",
		Inputs: []string{"data"},
		Shape: func(a *SqueezeAttrs, in []Shape) ([]Shape, error) {
			s, err := a.shape(in[0])
			return []Shape{s}, err
		},
		Kernel: func(_ *Env, _ *SqueezeAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad: func(f F, _ *SqueezeAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Reshape(g[0], in[0].Shape()...)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 1, 3, 1}}},
			{Attrs: map[string]string{"axis": "1"}, Inputs: []Shape{{2, 1, 3, 1}}},
			{Attrs: map[string]string{"axis": "(1, -1)"}, Inputs: []Shape{{2, 1, 3, 1}}},
			{Inputs: []Shape{{1, 1}}},
		},
	})
	opReshapeLike = Register(Def[ReshapeLikeAttrs]{
		Name: "reshape_like", Kind: "shape", Doc: "Gives lhs the shape of rhs (or replaces lhs's dims lhs_begin:lhs_end with rhs's dims rhs_begin:rhs_end).",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(a *ReshapeLikeAttrs, in []Shape) ([]Shape, error) {
			s, err := a.shape(in[0], in[1])
			return []Shape{s}, err
		},
		DType: func(_ *ReshapeLikeAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, _ *ReshapeLikeAttrs, in, out []Value) error {
			CopyData(out[0].Data, in[0].Data)
			return nil
		},
		Grad: func(f F, _ *ReshapeLikeAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Reshape(g[0], in[0].Shape()...), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {3, 2}}},
			{Inputs: []Shape{{6}, {2, 1, 3}}},
			{Attrs: map[string]string{"lhs_begin": "1", "lhs_end": "None", "rhs_begin": "-2", "rhs_end": "None"}, Inputs: []Shape{{2, 6}, {5, 2, 3}}},
		},
	})
	opShapeArray = Register(Def[NoAttrs]{
		Name: "shape_array", Kind: "shape", Doc: "The shape of the input as a 1-D int64 array.",
		Inputs: []string{"data"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if len(in[0]) == 0 {
				return nil, Errorf("data is a scalar: its shape has no dims (empty arrays are not supported)")
			}
			return []Shape{{len(in[0])}}, nil
		},
		DType: func(_ *NoAttrs, _ []DType) ([]DType, error) { return []DType{Int64}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			o := out[0].Data.([]int64)
			for i, d := range in[0].Shape {
				o[i] = int64(d)
			}
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3, 4}}}, {Inputs: []Shape{{5}}}},
	})
	opSizeArray = Register(Def[NoAttrs]{
		Name: "size_array", Kind: "shape", Doc: "The number of elements of the input as an int64 array of shape (1,).",
		Inputs: []string{"data"},
		Shape:  func(_ *NoAttrs, _ []Shape) ([]Shape, error) { return []Shape{{1}}, nil },
		DType:  func(_ *NoAttrs, _ []DType) ([]DType, error) { return []DType{Int64}, nil },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			out[0].Data.([]int64)[0] = int64(in[0].Shape.Size())
			return nil
		},
		NoGrad:  true,
		Samples: []Sample{{Inputs: []Shape{{2, 3, 4}}}},
	})
}

// reshapeShape applies Reshape's codes to the input shape. Unknown input
// dims (0) give unknown output dims where they are needed.
func reshapeShape(in Shape, a *ReshapeAttrs) (Shape, error) {
	spec := a.Shape
	if len(spec) == 0 && len(a.TargetShape) > 0 {
		spec = a.TargetShape
		if a.KeepHighest {
			spec = append(Tuple{0}, spec[1:]...)
		}
	}
	src := in.Clone()
	codes := append(Tuple{}, spec...)
	if a.Reverse {
		reverseInts(src)
		reverseInts(codes)
		// A -4 split keeps its two following values in order: after reversal
		// they precede it as "b, a, -4": make it "-4, b, a", whose output
		// dims come out as "a, b" once the result is reversed back.
		for i := 0; i < len(codes); i++ {
			if codes[i] == -4 && i >= 2 {
				codes[i-2], codes[i-1], codes[i] = -4, codes[i-2], codes[i-1]
			}
		}
	}
	var out Shape
	infer := -1
	j := 0 // position in src
	for i := 0; i < len(codes); i++ {
		c := codes[i]
		switch {
		case c > 0:
			out = append(out, c)
			j++
		case c == 0:
			if j >= len(src) {
				return nil, Errorf("shape %v: code 0 at position %d has no input dim to copy (input %v)", spec, i, in)
			}
			out = append(out, src[j])
			j++
		case c == -1:
			if infer >= 0 {
				return nil, Errorf("shape %v has more than one -1", spec)
			}
			infer = len(out)
			out = append(out, 1)
			j++
		case c == -2:
			for ; j < len(src); j++ {
				out = append(out, src[j])
			}
		case c == -3:
			if j+1 >= len(src) {
				return nil, Errorf("shape %v: code -3 at position %d needs two input dims (input %v)", spec, i, in)
			}
			out = append(out, src[j]*src[j+1])
			j += 2
		case c == -4:
			if j >= len(src) || i+2 >= len(codes) {
				return nil, Errorf("shape %v: code -4 at position %d needs an input dim and two values after it (input %v)", spec, i, in)
			}
			d, d1, d2 := src[j], codes[i+1], codes[i+2]
			switch {
			case d1 == -1 && d2 == -1:
				return nil, Errorf("shape %v: code -4 at position %d splits a dim into two -1s; at most one may be inferred", spec, i)
			case d1 == -1 && d2 > 0 && d > 0:
				d1 = d / d2
			case d2 == -1 && d1 > 0 && d > 0:
				d2 = d / d1
			case d1 == -1 || d2 == -1:
				d1, d2 = max(d1, 0), max(d2, 0)
			}
			if d > 0 && d1 > 0 && d2 > 0 && d1*d2 != d {
				return nil, Errorf("shape %v: code -4 splits dim %d of size %d into %d x %d", spec, j, d, d1, d2)
			}
			out = append(out, d1, d2)
			i += 2
			j++
		default:
			return nil, Errorf("shape %v: %d is not a dim or a code (0, -1, -2, -3, -4)", spec, c)
		}
	}
	if infer >= 0 {
		known := 1
		for k, d := range out {
			if k != infer {
				known *= d
			}
		}
		total := in.Size()
		switch {
		case !in.Known() || known == 0:
			out[infer] = 0
		case total%known != 0:
			return nil, Errorf("cannot reshape %v (%d elements) to %v: -1 does not divide evenly", in, total, spec)
		default:
			out[infer] = total / known
		}
	}
	if a.Reverse {
		reverseInts(out)
	}
	if in.Known() && out.Known() && out.Size() != in.Size() {
		return nil, Errorf("cannot reshape %v (%d elements) to %v (%d elements)", in, in.Size(), out, out.Size())
	}
	return out, nil
}

func reverseInts[T ~[]int](s T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Reshape gives x a new shape; the codes 0, -1, -2, -3, -4 work as in MXNet.
func (f F) Reshape(x Tensor, shape ...int) Tensor {
	return f.callA(opReshape, &ReshapeAttrs{Shape: shape}, x)
}

// ReshapeReverse is Reshape with the codes matched from the right.
func (f F) ReshapeReverse(x Tensor, shape ...int) Tensor {
	return f.callA(opReshape, &ReshapeAttrs{Shape: shape, Reverse: true}, x)
}

// Flatten collapses every dim after the first.
func (f F) Flatten(x Tensor) Tensor { return f.callA(opFlatten, &NoAttrs{}, x) }

// ExpandDims inserts a dim of size 1 at axis.
func (f F) ExpandDims(x Tensor, axis int) Tensor {
	return f.callA(opExpandDims, &ExpandDimsAttrs{Axis: axis}, x)
}

// Squeeze removes dims of size 1: every one, or those of an ops.Axis(...) Attr.
func (f F) Squeeze(x Tensor, attrs ...Attr) Tensor { return f.call1(opSqueeze, attrs, x) }

// ReshapeLike gives x the shape of like; Attrs lhs_begin, lhs_end,
// rhs_begin and rhs_end replace only part of x's shape.
func (f F) ReshapeLike(x, like Tensor, attrs ...Attr) Tensor {
	return f.call1(opReshapeLike, attrs, x, like)
}

// ShapeArray returns the shape of x as a 1-D int64 array.
func (f F) ShapeArray(x Tensor) Tensor { return f.callA(opShapeArray, &NoAttrs{}, x) }

// SizeArray returns the number of elements of x as an int64 array of shape (1,).
func (f F) SizeArray(x Tensor) Tensor { return f.callA(opSizeArray, &NoAttrs{}, x) }
