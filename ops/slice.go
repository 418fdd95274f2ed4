package ops

import "math"

// Slicing: slice (begin, end and step on each axis), its gradient
// _backward_slice, slice_axis (one axis) and slice_like (to the shape of
// another array).

// None stands for Python's None in the int slices of F.Slice and
// F.SliceAxis: F.Slice(x, []int{ops.None, 1}, []int{ops.None, 3}).
const None = math.MinInt

// optTupleOf turns ints, where None marks a missing entry, into an OptTuple.
func optTupleOf(xs []int) OptTuple {
	t := make(OptTuple, len(xs))
	for i, x := range xs {
		if x != None {
			t[i] = Some(x)
		}
	}
	return t
}

// SliceStep sets slice's "step"; None entries mean 1.
func SliceStep(step ...int) Attr { return Attr{"step", optTupleOf(step)} }

// SliceAttrs are the attributes of slice (and of its gradient, _backward_slice).
type SliceAttrs struct {
	Begin OptTuple `attr:"begin" doc:"first index on each sliced axis; None: the start (the end for a negative step)"`
	End   OptTuple `attr:"end" doc:"index past the last on each sliced axis; None: the end (the start for a negative step)"`
	Step  OptTuple `attr:"step" default:"()" doc:"step on each sliced axis; None or missing: 1"`
}

// sliceWindow is a resolved slice: the first index and step on every dim of
// the data, and the result's shape.
type sliceWindow struct {
	begin, step []int
	out         Shape
}

// window resolves begin, end and step against the data's shape, as MXNet
// does: negative indices count from the end; indices out of range and empty
// results are errors. Unknown dims (0) give unknown result dims unless the
// bounds are both given and not negative.
func (a *SliceAttrs) window(data Shape) (sliceWindow, error) {
	nd := len(data)
	w := sliceWindow{begin: make([]int, nd), step: make([]int, nd), out: data.Clone()}
	for i := range w.step {
		w.step[i] = 1
	}
	if len(a.End) != len(a.Begin) {
		return w, Errorf("begin %v and end %v have different lengths", a.Begin, a.End)
	}
	if len(a.Step) != 0 && len(a.Step) != len(a.Begin) {
		return w, Errorf("step %v and begin %v have different lengths", a.Step, a.Begin)
	}
	if len(a.Begin) > nd {
		return w, Errorf("begin %v has %d entries but data %v has only %d dims", a.Begin, len(a.Begin), data, nd)
	}
	for i := range a.Begin {
		s := 1
		if i < len(a.Step) && a.Step[i].Valid {
			s = a.Step[i].Value
		}
		if s == 0 {
			return w, Errorf("step %v: step[%d] is 0", a.Step, i)
		}
		n := data[i]
		bo, eo := a.Begin[i], a.End[i]
		w.step[i] = s
		if n == 0 { // unknown dim
			w.out[i] = 0
			if s > 0 && bo.Valid && eo.Valid && bo.Value >= 0 && eo.Value > bo.Value {
				w.out[i] = (eo.Value - bo.Value + s - 1) / s
			}
			continue
		}
		b, e := bo.index(0, n), eo.index(n, n)
		if s < 0 {
			b, e = bo.index(n-1, n), eo.index(-1, n)
		}
		if b < 0 || b >= n {
			return w, Errorf("begin[%d]=%v is out of range for axis %d of data %v (size %d)", i, bo, i, data, n)
		}
		if e < -1 || e > n || (s > 0 && e < 0) {
			return w, Errorf("end[%d]=%v is out of range for axis %d of data %v (size %d)", i, eo, i, data, n)
		}
		var size int
		if s > 0 {
			size = (e - b + s - 1) / s
		} else {
			size = (b - e - s - 1) / -s
		}
		if size <= 0 {
			return w, Errorf("begin[%d]=%v, end[%d]=%v, step %d select nothing on axis %d of data %v", i, bo, i, eo, s, i, data)
		}
		w.begin[i] = b
		w.out[i] = size
	}
	return w, nil
}

// offsets lists, for each element of the window, its offset in data.
func (w sliceWindow) offsets(data Shape) []int {
	st := data.Strides()
	base := 0
	strides := make([]int, len(data))
	for i := range data {
		base += w.begin[i] * st[i]
		strides[i] = st[i] * w.step[i]
	}
	return stridedOffsets(w.out, base, strides)
}

// gather fills out with the slice of in.
func (a *SliceAttrs) gather(in, out Value) error {
	w, err := a.window(in.Shape)
	if err != nil {
		return err
	}
	return moveElems(out.Data, in.Data, w.offsets(in.Shape), false)
}

// SliceAxisAttrs are the attributes of slice_axis.
type SliceAxisAttrs struct {
	Axis  int    `attr:"axis" doc:"the axis to slice; negative counts from the end"`
	Begin int    `attr:"begin" doc:"first index; negative counts from the end"`
	End   OptInt `attr:"end" doc:"index past the last; negative counts from the end; None: the end"`
}

// asSlice rewrites slice_axis as slice for data of the given shape.
func (a *SliceAxisAttrs) asSlice(data Shape) (*SliceAttrs, error) {
	ax, err := NormAxis(a.Axis, len(data))
	if err != nil {
		return nil, Errorf("axis=%d is out of range for data %v", a.Axis, data)
	}
	n := data[ax]
	b, e := a.Begin, n
	if a.End.Valid {
		e = a.End.Value
	}
	if n > 0 {
		if b < 0 {
			b += n
		}
		if e < 0 {
			e += n
		}
		if b < 0 || e > n || b >= e {
			return nil, Errorf("begin=%d, end=%v select nothing or go out of range on axis %d of data %v (size %d)", a.Begin, a.End, a.Axis, data, n)
		}
	}
	s := &SliceAttrs{Begin: make(OptTuple, ax+1), End: make(OptTuple, ax+1)}
	s.Begin[ax] = Some(b)
	if a.End.Valid || n > 0 {
		s.End[ax] = Some(e)
	}
	return s, nil
}

// SliceLikeAttrs are the attributes of slice_like.
type SliceLikeAttrs struct {
	Axes Tuple `attr:"axes" default:"()" doc:"the axes to slice to shape_like's size; (): all"`
}

// asSlice rewrites slice_like as slice from index 0.
func (a *SliceLikeAttrs) asSlice(data, like Shape) (*SliceAttrs, error) {
	nd := len(data)
	axes := []int(a.Axes)
	if len(axes) == 0 {
		if len(like) != nd {
			return nil, Errorf("data %v and shape_like %v have different numbers of dims; give axes", data, like)
		}
		for i := range nd {
			axes = append(axes, i)
		}
	}
	s := &SliceAttrs{Begin: make(OptTuple, nd), End: make(OptTuple, nd)}
	for _, ax := range axes {
		n, err := NormAxis(ax, nd)
		if err != nil || n >= len(like) {
			return nil, Errorf("axes %v: axis %d is out of range for data %v or shape_like %v", a.Axes, ax, data, like)
		}
		if like[n] == 0 {
			return nil, Errorf("shape_like %v has an unknown dim %d", like, n)
		}
		if data[n] != 0 && like[n] > data[n] {
			return nil, Errorf("shape_like %v is larger than data %v on axis %d", like, data, n)
		}
		s.Begin[n], s.End[n] = Some(0), Some(like[n])
	}
	return s, nil
}

var opSlice, opBackwardSlice, opSliceAxis, opSliceLike *Op

func init() {
	opSlice = Register(Def[SliceAttrs]{
		Name: "slice", Kind: "shape", Aliases: []string{"crop", "_sparse_slice", "_npx_slice", "_npi_slice"},
		Doc:    "Takes a region of the array: on each of the first len(begin) axes, from begin to end (exclusive) by step; None entries take the whole axis. Negative indices count from the end.",
		Inputs: []string{"data"},
		Shape: func(a *SliceAttrs, in []Shape) ([]Shape, error) {
			w, err := a.window(in[0])
			return []Shape{w.out}, err
		},
		Kernel: func(_ *Env, a *SliceAttrs, in, out []Value) error { return a.gather(in[0], out[0]) },
		Grad: func(f F, a *SliceAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.backwardSlice(g[0], in[0], a)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"begin": "(0, 1)", "end": "(2, 4)"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"begin": "(None, 0)", "end": "(None, 3)", "step": "(-1, 2)"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"begin": "(1,)", "end": "(None,)"}, Inputs: []Shape{{3, 2, 2}}},
			{Attrs: map[string]string{"begin": "(-2, None, 1)", "end": "(-1, None, None)", "step": "(1, -1, 2)"}, Inputs: []Shape{{3, 2, 4}}},
		},
	})
	opBackwardSlice = Register(Def[SliceAttrs]{
		Name: "_backward_slice", Kind: "shape", Doc: "The gradient of slice: ograd placed at the sliced region of an array of zeros shaped like data.",
		Inputs: []string{"ograd", "data"},
		Shape: func(a *SliceAttrs, in []Shape) ([]Shape, error) {
			w, err := a.window(in[1])
			if err != nil {
				return nil, err
			}
			if len(in[0]) != len(w.out) {
				return nil, Errorf("ograd %v does not have the shape %v of the slice of data %v", in[0], w.out, in[1])
			}
			for i := range w.out {
				if _, ok := mergeDim(in[0][i], w.out[i]); !ok {
					return nil, Errorf("ograd %v does not have the shape %v of the slice of data %v", in[0], w.out, in[1])
				}
			}
			return []Shape{in[1].Clone()}, nil
		},
		DType: func(_ *SliceAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *SliceAttrs, in, out []Value) error {
			w, err := a.window(in[1].Shape)
			if err != nil {
				return err
			}
			fillData(out[0].Data, 0)
			return moveElems(out[0].Data, in[0].Data, w.offsets(in[1].Shape), true)
		},
		Grad: func(f F, a *SliceAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opSlice, a, g[0]), nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"begin": "(0, 1)", "end": "(2, 4)"}, Inputs: []Shape{{2, 3}, {3, 4}}},
			{Attrs: map[string]string{"begin": "(None, 0)", "end": "(None, 3)", "step": "(-1, 2)"}, Inputs: []Shape{{3, 2}, {3, 4}}},
		},
	})
	opSliceAxis = Register(Def[SliceAxisAttrs]{
		Name: "slice_axis", Kind: "shape", Doc: "Takes indices begin to end (exclusive) along one axis; negative indices count from the end, end None means the end.",
		Inputs: []string{"data"},
		Shape: func(a *SliceAxisAttrs, in []Shape) ([]Shape, error) {
			s, err := a.asSlice(in[0])
			if err != nil {
				return nil, err
			}
			w, err := s.window(in[0])
			return []Shape{w.out}, err
		},
		Kernel: func(_ *Env, a *SliceAxisAttrs, in, out []Value) error {
			s, err := a.asSlice(in[0].Shape)
			if err != nil {
				return err
			}
			return s.gather(in[0], out[0])
		},
		Grad: func(f F, a *SliceAxisAttrs, in, _, g []Tensor) []Tensor {
			s, err := a.asSlice(in[0].Shape())
			if err != nil {
				panic(err)
			}
			return []Tensor{f.backwardSlice(g[0], in[0], s)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"axis": "0", "begin": "1", "end": "3"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"axis": "1", "begin": "-3", "end": "-1"}, Inputs: []Shape{{3, 4}}},
			{Attrs: map[string]string{"axis": "-1", "begin": "2", "end": "None"}, Inputs: []Shape{{2, 3, 4}}},
		},
	})
	opSliceLike = Register(Def[SliceLikeAttrs]{
		Name: "slice_like", Kind: "shape", Doc: "Slices data from index 0 to the size of shape_like on the given axes (all by default).",
		Inputs: []string{"data", "shape_like"},
		Shape: func(a *SliceLikeAttrs, in []Shape) ([]Shape, error) {
			s, err := a.asSlice(in[0], in[1])
			if err != nil {
				return nil, err
			}
			w, err := s.window(in[0])
			return []Shape{w.out}, err
		},
		DType: func(_ *SliceLikeAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *SliceLikeAttrs, in, out []Value) error {
			s, err := a.asSlice(in[0].Shape, in[1].Shape)
			if err != nil {
				return err
			}
			return s.gather(in[0], out[0])
		},
		Grad: func(f F, a *SliceLikeAttrs, in, _, g []Tensor) []Tensor {
			s, err := a.asSlice(in[0].Shape(), in[1].Shape())
			if err != nil {
				panic(err)
			}
			return []Tensor{f.backwardSlice(g[0], in[0], s), nil}
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 4}, {2, 3}}},
			{Attrs: map[string]string{"axes": "(0,)"}, Inputs: []Shape{{3, 4}, {2, 3}}},
			{Attrs: map[string]string{"axes": "(0, -1)"}, Inputs: []Shape{{3, 2, 4}, {1, 5, 3}}},
		},
	})
}

// Slice takes x[begin:end] on the first len(begin) axes: F.Slice(x,
// []int{0, 1}, []int{2, 3}). An entry of ops.None takes the whole axis;
// negative indices count from the end; ops.SliceStep(...) gives steps.
func (f F) Slice(x Tensor, begin, end []int, attrs ...Attr) Tensor {
	all := append([]Attr{{"begin", optTupleOf(begin)}, {"end", optTupleOf(end)}}, attrs...)
	return f.call1(opSlice, all, x)
}

// SliceAxis takes indices begin to end (exclusive) along axis; end may be
// ops.None for "to the end", and negative indices count from the end.
func (f F) SliceAxis(x Tensor, axis, begin, end int) Tensor {
	e := Some(end)
	if end == None {
		e = OptInt{}
	}
	return f.callA(opSliceAxis, &SliceAxisAttrs{Axis: axis, Begin: begin, End: e}, x)
}

// SliceLike slices x from index 0 to the size of like on the given axes
// (all axes when none are given).
func (f F) SliceLike(x, like Tensor, axes ...int) Tensor {
	return f.callA(opSliceLike, &SliceLikeAttrs{Axes: axes}, x, like)
}

// backwardSlice places g at the region of an array shaped like data that
// the slice a selects; zeros elsewhere.
func (f F) backwardSlice(g, data Tensor, a *SliceAttrs) Tensor {
	return f.callA(opBackwardSlice, a, g, data)
}
