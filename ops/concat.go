package ops

import "strconv"

// Joining and splitting: Concat joins inputs along an existing axis, stack
// along a new one, and SliceChannel (split) cuts an array into equal parts.

// SqueezeAxis sets SliceChannel's "squeeze_axis" to true.
func SqueezeAxis() Attr { return Attr{"squeeze_axis", true} }

// ConcatAttrs are the attributes of Concat.
type ConcatAttrs struct {
	NumArgs int `attr:"num_args" doc:"the number of inputs"`
	Dim     int `attr:"dim" default:"1" doc:"the dim to join along; negative counts from the end"`
}

// StackAttrs are the attributes of stack.
type StackAttrs struct {
	Axis    int `attr:"axis" default:"0" doc:"where the new axis goes in the result"`
	NumArgs int `attr:"num_args" doc:"the number of inputs"`
}

func argNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "arg" + strconv.Itoa(i)
	}
	return names
}

func checkNumArgs(n int) error {
	if n < 1 {
		return Errorf("num_args=%d: at least one input is needed", n)
	}
	return nil
}

// concatShape merges the inputs' dims other than dim (filling unknown ones
// in place) and sums dim.
func concatShape(in []Shape, dim int) (Shape, int, error) {
	nd := len(in[0])
	ax, err := NormAxis(dim, nd)
	if err != nil {
		return nil, 0, Errorf("dim=%d is out of range for arg0 %v", dim, in[0])
	}
	out := in[0].Clone()
	for i, s := range in[1:] {
		if len(s) != nd {
			return nil, 0, Errorf("arg%d %v has %d dims but arg0 %v has %d", i+1, s, len(s), in[0], nd)
		}
		for d := range s {
			if d == ax {
				continue
			}
			m, ok := mergeDim(out[d], s[d])
			if !ok {
				return nil, 0, Errorf("arg0 %v and arg%d %v differ in dim %d (%d vs %d); only dim %d (dim=%d) may differ",
					in[0], i+1, s, d, out[d], s[d], ax, dim)
			}
			out[d] = m
		}
	}
	total := 0
	for _, s := range in {
		if s[ax] == 0 {
			total = -1
		} else if total >= 0 {
			total += s[ax]
		}
		for d := range s {
			if d != ax {
				s[d] = out[d]
			}
		}
	}
	out[ax] = max(total, 0)
	return out, ax, nil
}

// concatInto scatters each input into out at its place along axis ax.
func concatInto(in []Value, out Value, ax int) error {
	ostr := out.Shape.Strides()
	off := 0
	for _, v := range in {
		idx := stridedOffsets(v.Shape, off*ostr[ax], ostr)
		if err := moveElems(out.Data, v.Data, idx, true); err != nil {
			return err
		}
		off += v.Shape[ax]
	}
	return nil
}

// SliceChannelAttrs are the attributes of SliceChannel (split).
type SliceChannelAttrs struct {
	NumOutputs  int  `attr:"num_outputs" doc:"the number of equal parts"`
	Axis        int  `attr:"axis" default:"1" doc:"the axis to split along"`
	SqueezeAxis bool `attr:"squeeze_axis" default:"False" doc:"drop the split axis (each part must have size 1 on it)"`
}

var opConcat, opStack, opSliceChannel *Op

func init() {
	opConcat = Register(Def[ConcatAttrs]{
		Name: "Concat", Kind: "shape", Aliases: []string{"concat"},
		Doc:        "Joins the inputs along dim; their other dims must agree.",
		InputNames: func(a *ConcatAttrs) []string { return argNames(a.NumArgs) },
		Check:      func(a *ConcatAttrs) error { return checkNumArgs(a.NumArgs) },
		Shape: func(a *ConcatAttrs, in []Shape) ([]Shape, error) {
			out, _, err := concatShape(in, a.Dim)
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *ConcatAttrs, in, out []Value) error {
			ax, err := NormAxis(a.Dim, len(out[0].Shape))
			if err != nil {
				return err
			}
			return concatInto(in, out[0], ax)
		},
		Grad: func(f F, a *ConcatAttrs, in, _, g []Tensor) []Tensor {
			nd := len(in[0].Shape())
			ax, _ := NormAxis(a.Dim, nd)
			grads := make([]Tensor, len(in))
			off := 0
			for i, x := range in {
				n := x.Shape()[ax]
				grads[i] = f.SliceAxis(g[0], ax, off, off+n)
				off += n
			}
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "2"}, Inputs: []Shape{{2, 3}, {2, 4}}},
			{Attrs: map[string]string{"num_args": "3", "dim": "0"}, Inputs: []Shape{{1, 3}, {2, 3}, {3, 3}}},
			{Attrs: map[string]string{"num_args": "2", "dim": "-1"}, Inputs: []Shape{{2, 2, 1}, {2, 2, 3}}},
			{Attrs: map[string]string{"num_args": "1", "dim": "0"}, Inputs: []Shape{{4}}},
		},
	})
	opStack = Register(Def[StackAttrs]{
		Name: "stack", Kind: "shape", Doc: "Joins inputs of one shape along a new axis.",
		InputNames: func(a *StackAttrs) []string { return argNames(a.NumArgs) },
		Check:      func(a *StackAttrs) error { return checkNumArgs(a.NumArgs) },
		Shape: func(a *StackAttrs, in []Shape) ([]Shape, error) {
			common := in[0].Clone()
			for i, s := range in[1:] {
				m, err := sameShape(common, s.Clone())
				if err != nil {
					return nil, Errorf("arg%d %v and arg0 %v differ: stack needs inputs of one shape", i+1, s, in[0])
				}
				common = m
			}
			for _, s := range in {
				copy(s, common)
			}
			ax, err := NormAxis(a.Axis, len(common)+1)
			if err != nil {
				return nil, Errorf("axis=%d is out of range for stacking inputs of shape %v", a.Axis, common)
			}
			out := append(append(common[:ax].Clone(), a.NumArgs), common[ax:]...)
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *StackAttrs, in, out []Value) error {
			ax, err := NormAxis(a.Axis, len(out[0].Shape))
			if err != nil {
				return err
			}
			views := make([]Value, len(in))
			for i, v := range in {
				s := append(append(out[0].Shape[:ax].Clone(), 1), out[0].Shape[ax+1:]...)
				views[i] = Value{Shape: s, DType: v.DType, Data: v.Data}
			}
			return concatInto(views, out[0], ax)
		},
		Grad: func(f F, a *StackAttrs, in, _, g []Tensor) []Tensor {
			return f.Split(g[0], a.NumArgs, a.Axis, SqueezeAxis())
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "2"}, Inputs: []Shape{{2, 3}, {2, 3}}},
			{Attrs: map[string]string{"num_args": "3", "axis": "1"}, Inputs: []Shape{{2, 3}, {2, 3}, {2, 3}}},
			{Attrs: map[string]string{"num_args": "2", "axis": "-1"}, Inputs: []Shape{{4}, {4}}},
		},
	})
	opSliceChannel = Register(Def[SliceChannelAttrs]{
		Name: "SliceChannel", Kind: "shape", Aliases: []string{"split"},
		Doc:        "Splits the input into num_outputs equal parts along axis; with squeeze_axis the parts lose that axis (it must then have size num_outputs).",
		Inputs:     []string{"data"},
		NumOutputs: func(a *SliceChannelAttrs) int { return max(a.NumOutputs, 1) },
		Check: func(a *SliceChannelAttrs) error {
			if a.NumOutputs < 1 {
				return Errorf("num_outputs=%d must be at least 1", a.NumOutputs)
			}
			return nil
		},
		Shape: func(a *SliceChannelAttrs, in []Shape) ([]Shape, error) {
			ax, err := NormAxis(a.Axis, len(in[0]))
			if err != nil {
				return nil, Errorf("axis=%d is out of range for data %v", a.Axis, in[0])
			}
			n := in[0][ax]
			if n%a.NumOutputs != 0 {
				return nil, Errorf("axis %d of data %v has size %d, which num_outputs=%d does not divide", a.Axis, in[0], n, a.NumOutputs)
			}
			part := in[0].Clone()
			part[ax] = n / a.NumOutputs
			if a.SqueezeAxis {
				if n != 0 && n != a.NumOutputs {
					return nil, Errorf("squeeze_axis needs axis %d of data %v to have size num_outputs=%d, not %d", a.Axis, in[0], a.NumOutputs, n)
				}
				part = append(part[:ax], part[ax+1:]...)
			}
			outs := make([]Shape, a.NumOutputs)
			for i := range outs {
				outs[i] = part.Clone()
			}
			return outs, nil
		},
		Kernel: func(_ *Env, a *SliceChannelAttrs, in, out []Value) error {
			ax, err := NormAxis(a.Axis, len(in[0].Shape))
			if err != nil {
				return err
			}
			st := in[0].Shape.Strides()
			part := in[0].Shape.Clone()
			part[ax] /= a.NumOutputs
			for i, o := range out {
				if err := gatherStrided(in[0], o, part, i*part[ax]*st[ax], st); err != nil {
					return err
				}
			}
			return nil
		},
		Grad: func(f F, a *SliceChannelAttrs, in, _, g []Tensor) []Tensor {
			ax, _ := NormAxis(a.Axis, len(in[0].Shape()))
			parts := g
			if a.SqueezeAxis {
				parts = make([]Tensor, len(g))
				for i, t := range g {
					parts[i] = f.ExpandDims(t, ax)
				}
			}
			return []Tensor{f.Concat(ax, parts...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_outputs": "2"}, Inputs: []Shape{{2, 4}}},
			{Attrs: map[string]string{"num_outputs": "3", "axis": "0"}, Inputs: []Shape{{3, 2}}},
			{Attrs: map[string]string{"num_outputs": "3", "axis": "-1", "squeeze_axis": "True"}, Inputs: []Shape{{2, 2, 3}}},
		},
	})
}

// Concat joins xs along dim (MXNet's default dim is 1).
func (f F) Concat(dim int, xs ...Tensor) Tensor {
	return f.callA(opConcat, &ConcatAttrs{NumArgs: len(xs), Dim: dim}, xs...)
}

// Stack joins xs, which share one shape, along a new axis.
func (f F) Stack(axis int, xs ...Tensor) Tensor {
	return f.callA(opStack, &StackAttrs{Axis: axis, NumArgs: len(xs)}, xs...)
}

// Split cuts x into numOutputs equal parts along axis (SliceChannel); add
// ops.SqueezeAxis() to drop the axis from parts of size 1.
func (f F) Split(x Tensor, numOutputs, axis int, attrs ...Attr) []Tensor {
	all := append([]Attr{{"num_outputs", numOutputs}, {"axis", axis}}, attrs...)
	return f.Invoke(opSliceChannel, mustAttrs(opSliceChannel, all), x)
}
