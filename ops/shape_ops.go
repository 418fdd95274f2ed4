package ops

import (
	"fmt"
	"math"
	"strconv"
)

// Shape ops: they move elements without changing them (transpose, squeeze,
// Concat, stack, SliceChannel, slice, slice_axis, slice_like, tile, repeat,
// reverse, reshape_like) or describe the shape (shape_array, size_array).
// Their kernels work on every dtype: each computes, for every output
// element, the offset of its source element, then moves the elements with
// one generic loop (moveElems). That index map is the seam for faster
// kernels later.

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

// SqueezeAxis sets SliceChannel's "squeeze_axis" to true.
func SqueezeAxis() Attr { return Attr{"squeeze_axis", true} }

// stridedOffsets lists, for each element of a row-major array of shape out,
// the offset base + Σ i_d*strides[d] of the element it corresponds to.
func stridedOffsets(out Shape, base int, strides []int) []int {
	n := out.Size()
	idx := make([]int, n)
	nd := len(out)
	pos := make([]int, nd)
	off := base
	for i := 0; i < n; i++ {
		idx[i] = off
		for d := nd - 1; d >= 0; d-- {
			pos[d]++
			off += strides[d]
			if pos[d] < out[d] {
				break
			}
			off -= strides[d] * pos[d]
			pos[d] = 0
		}
	}
	return idx
}

// moveElems copies elements between two data slices of one dtype (any
// dtype, bool included): dst[i] = src[idx[i]] when gathering, dst[idx[i]] =
// src[i] when scattering.
func moveElems(dst, src any, idx []int, scatter bool) error {
	switch d := dst.(type) {
	case []float32:
		return moveLoop(d, src, idx, scatter)
	case []float64:
		return moveLoop(d, src, idx, scatter)
	case []uint8:
		return moveLoop(d, src, idx, scatter)
	case []int8:
		return moveLoop(d, src, idx, scatter)
	case []int32:
		return moveLoop(d, src, idx, scatter)
	case []int64:
		return moveLoop(d, src, idx, scatter)
	case []bool:
		return moveLoop(d, src, idx, scatter)
	}
	return fmt.Errorf("no kernel for data of type %T", dst)
}

func moveLoop[T any](d []T, src any, idx []int, scatter bool) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("input is %T but output is %T", src, d)
	}
	if scatter {
		for i, j := range idx {
			d[j] = s[i]
		}
		return nil
	}
	for i, j := range idx {
		d[i] = s[j]
	}
	return nil
}

// scatterAddElems adds src[i] into dst[idx[i]] (numeric dtypes): the
// adjoint of a gather, used by the gradients of slice, take and pick.
func scatterAddElems(dst, src any, idx []int) error {
	switch d := dst.(type) {
	case []float32:
		return scatterAddLoop(d, src, idx)
	case []float64:
		return scatterAddLoop(d, src, idx)
	case []uint8:
		return scatterAddLoop(d, src, idx)
	case []int8:
		return scatterAddLoop(d, src, idx)
	case []int32:
		return scatterAddLoop(d, src, idx)
	case []int64:
		return scatterAddLoop(d, src, idx)
	}
	return fmt.Errorf("no kernel for data of type %T (a numeric dtype is needed)", dst)
}

func scatterAddLoop[T Number](d []T, src any, idx []int) error {
	s, ok := src.([]T)
	if !ok {
		return fmt.Errorf("input is %T but output is %T", src, d)
	}
	for i, j := range idx {
		d[j] += s[i]
	}
	return nil
}

// gatherStrided fills out from in, reading out's element at index (i_0, …)
// from offset base + Σ i_d*strides[d] of in.
func gatherStrided(in, out Value, shape Shape, base int, strides []int) error {
	return moveElems(out.Data, in.Data, stridedOffsets(shape, base, strides), false)
}

// ----------------------------------------------------------------------------
// transpose

// TransposeAttrs are the attributes of transpose.
type TransposeAttrs struct {
	Axes Tuple `attr:"axes" default:"()" doc:"the new order of the axes; () reverses them"`
}

// perm returns the permutation for ndim dims, normalising negative axes.
func (a *TransposeAttrs) perm(data Shape) ([]int, error) {
	nd := len(data)
	p := make([]int, nd)
	if len(a.Axes) == 0 {
		for i := range p {
			p[i] = nd - 1 - i
		}
		return p, nil
	}
	if len(a.Axes) != nd {
		return nil, Errorf("axes %v has %d entries but data %v has %d dims", a.Axes, len(a.Axes), data, nd)
	}
	seen := make([]bool, nd)
	for i, ax := range a.Axes {
		n, err := NormAxis(ax, nd)
		if err != nil || seen[n] {
			return nil, Errorf("axes %v is not a permutation of the %d dims of data %v", a.Axes, nd, data)
		}
		seen[n] = true
		p[i] = n
	}
	return p, nil
}

// ----------------------------------------------------------------------------
// squeeze

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

// ----------------------------------------------------------------------------
// Concat and stack

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

// ----------------------------------------------------------------------------
// SliceChannel

// SliceChannelAttrs are the attributes of SliceChannel (split).
type SliceChannelAttrs struct {
	NumOutputs  int  `attr:"num_outputs" doc:"the number of equal parts"`
	Axis        int  `attr:"axis" default:"1" doc:"the axis to split along"`
	SqueezeAxis bool `attr:"squeeze_axis" default:"False" doc:"drop the split axis (each part must have size 1 on it)"`
}

// ----------------------------------------------------------------------------
// slice, slice_axis, slice_like

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
		var b, e int
		if s > 0 {
			b, e = 0, n
		} else {
			b, e = n-1, -1
		}
		if bo.Valid {
			b = bo.Value
			if b < 0 {
				b += n
			}
		}
		if eo.Valid {
			e = eo.Value
			if e < 0 {
				e += n
			}
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

// ----------------------------------------------------------------------------
// tile, repeat, reverse

// TileAttrs are the attributes of tile.
type TileAttrs struct {
	Reps Tuple `attr:"reps" doc:"how many times to repeat the array along each axis"`
}

// layout pads the data shape and reps to one length and returns them.
func (a *TileAttrs) layout(data Shape) (Shape, Tuple, error) {
	for _, r := range a.Reps {
		if r <= 0 {
			return nil, nil, Errorf("reps %v must be positive (empty arrays are not supported)", a.Reps)
		}
	}
	n := max(len(data), len(a.Reps))
	d := make(Shape, n)
	r := make(Tuple, n)
	for i := range n {
		d[i], r[i] = 1, 1
	}
	copy(d[n-len(data):], data)
	copy(r[n-len(a.Reps):], a.Reps)
	return d, r, nil
}

// RepeatAttrs are the attributes of repeat.
type RepeatAttrs struct {
	Repeats int    `attr:"repeats" doc:"how many times each element repeats"`
	Axis    OptInt `attr:"axis" default:"None" doc:"the axis to repeat along; None flattens the input first"`
}

// layout describes repeat as a broadcast: the input viewed with shape src
// becomes the result viewed with shape view (a repeats-long dim after the
// repeated one) by reading with strides.
func (a *RepeatAttrs) layout(data Shape) (view Shape, strides []int, out Shape, err error) {
	if a.Repeats <= 0 {
		return nil, nil, nil, Errorf("repeats=%d must be positive (empty arrays are not supported)", a.Repeats)
	}
	if !a.Axis.Valid {
		n := data.Size()
		if !data.Known() {
			n = 0
		}
		return Shape{n, a.Repeats}, []int{1, 0}, Shape{n * a.Repeats}, nil
	}
	ax, e := NormAxis(a.Axis.Value, len(data))
	if e != nil {
		return nil, nil, nil, Errorf("axis=%v is out of range for data %v", a.Axis, data)
	}
	st := data.Strides()
	view = append(append(data[:ax+1].Clone(), a.Repeats), data[ax+1:]...)
	strides = append(append(append([]int{}, st[:ax+1]...), 0), st[ax+1:]...)
	out = data.Clone()
	out[ax] *= a.Repeats
	return view, strides, out, nil
}

// ReverseAttrs are the attributes of reverse (flip).
type ReverseAttrs struct {
	Axis Tuple `attr:"axis" doc:"the axes to reverse"`
}

func (a *ReverseAttrs) axes(data Shape) ([]bool, error) {
	flip := make([]bool, len(data))
	for _, ax := range a.Axis {
		n, err := NormAxis(ax, len(data))
		if err != nil {
			return nil, Errorf("axis %v: %v (data %v)", a.Axis, err, data)
		}
		flip[n] = true
	}
	return flip, nil
}

// ----------------------------------------------------------------------------
// reshape_like

// ReshapeLikeAttrs are the attributes of reshape_like.
type ReshapeLikeAttrs struct {
	LhsBegin OptInt `attr:"lhs_begin" default:"None" doc:"first dim of lhs to replace; None: 0"`
	LhsEnd   OptInt `attr:"lhs_end" default:"None" doc:"dim of lhs past the last to replace; None: the end"`
	RhsBegin OptInt `attr:"rhs_begin" default:"None" doc:"first dim of rhs to use; None: 0"`
	RhsEnd   OptInt `attr:"rhs_end" default:"None" doc:"dim of rhs past the last to use; None: the end"`
}

func dimRange(b, e OptInt, s Shape, name string) (int, int, error) {
	nd := len(s)
	lo, hi := 0, nd
	if b.Valid {
		lo = b.Value
		if lo < 0 {
			lo += nd
		}
	}
	if e.Valid {
		hi = e.Value
		if hi < 0 {
			hi += nd
		}
	}
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

// ----------------------------------------------------------------------------
// Registration

var opTranspose, opSqueeze, opConcat, opStack, opSliceChannel, opSlice, opBackwardSlice, opSliceAxis, opSliceLike, opTile, opRepeat, opReverse, opReshapeLike, opShapeArray, opSizeArray *Op

func init() {
	opTranspose = Register(Def[TransposeAttrs]{
		Name: "transpose", Kind: "shape", Doc: "Permutes the dims: output dim i is input dim axes[i]; with no axes the dims are reversed.",
		Inputs: []string{"data"},
		Shape: func(a *TransposeAttrs, in []Shape) ([]Shape, error) {
			p, err := a.perm(in[0])
			if err != nil {
				return nil, err
			}
			out := make(Shape, len(p))
			for i, ax := range p {
				out[i] = in[0][ax]
			}
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *TransposeAttrs, in, out []Value) error {
			p, err := a.perm(in[0].Shape)
			if err != nil {
				return err
			}
			st := in[0].Shape.Strides()
			strides := make([]int, len(p))
			for i, ax := range p {
				strides[i] = st[ax]
			}
			return gatherStrided(in[0], out[0], out[0].Shape, 0, strides)
		},
		Grad: func(f F, a *TransposeAttrs, in, _, g []Tensor) []Tensor {
			if len(a.Axes) == 0 {
				return []Tensor{f.Transpose(g[0])}
			}
			p, _ := a.perm(in[0].Shape())
			inv := make([]int, len(p))
			for i, ax := range p {
				inv[ax] = i
			}
			return []Tensor{f.Transpose(g[0], inv...)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(1, 0, 2)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(2, 0, 1)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axes": "(0, -1, 1)"}, Inputs: []Shape{{2, 3, 4}}},
		},
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

	opSlice = Register(Def[SliceAttrs]{
		Name: "slice", Kind: "shape", Aliases: []string{"crop", "_sparse_slice", "_npx_slice", "_npi_slice"},
		Doc:    "Takes a region of the array: on each of the first len(begin) axes, from begin to end (exclusive) by step; None entries take the whole axis. Negative indices count from the end.",
		Inputs: []string{"data"},
		Shape: func(a *SliceAttrs, in []Shape) ([]Shape, error) {
			w, err := a.window(in[0])
			return []Shape{w.out}, err
		},
		Kernel: func(_ *Env, a *SliceAttrs, in, out []Value) error {
			w, err := a.window(in[0].Shape)
			if err != nil {
				return err
			}
			return moveElems(out[0].Data, in[0].Data, w.offsets(in[0].Shape), false)
		},
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
			w, err := s.window(in[0].Shape)
			if err != nil {
				return err
			}
			return moveElems(out[0].Data, in[0].Data, w.offsets(in[0].Shape), false)
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
			w, err := s.window(in[0].Shape)
			if err != nil {
				return err
			}
			return moveElems(out[0].Data, in[0].Data, w.offsets(in[0].Shape), false)
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

	opTile = Register(Def[TileAttrs]{
		Name: "tile", Kind: "shape", Doc: "Repeats the whole array reps[i] times along axis i; the shorter of the shape and reps is padded with leading 1s.",
		Inputs: []string{"data"},
		Shape: func(a *TileAttrs, in []Shape) ([]Shape, error) {
			d, r, err := a.layout(in[0])
			if err != nil {
				return nil, err
			}
			out := make(Shape, len(d))
			for i := range d {
				out[i] = d[i] * r[i]
			}
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *TileAttrs, in, out []Value) error {
			d, r, err := a.layout(in[0].Shape)
			if err != nil {
				return err
			}
			st := d.Strides()
			view := make(Shape, 0, 2*len(d))
			strides := make([]int, 0, 2*len(d))
			for i := range d {
				view = append(view, r[i], d[i])
				strides = append(strides, 0, st[i])
			}
			return gatherStrided(in[0], out[0], view, 0, strides)
		},
		Grad: func(f F, a *TileAttrs, in, _, g []Tensor) []Tensor {
			d, r, err := a.layout(in[0].Shape())
			if err != nil {
				panic(err)
			}
			view := make([]int, 0, 2*len(d))
			var axes Tuple
			for i := range d {
				axes = append(axes, len(view))
				view = append(view, r[i], d[i])
			}
			s := f.Sum(f.Reshape(g[0], view...), Attr{"axis", axes})
			return []Tensor{f.Reshape(s, in[0].Shape()...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"reps": "(2, 3)"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"reps": "(2,)"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"reps": "(2, 1, 2)"}, Inputs: []Shape{{3, 2}}},
		},
	})

	opRepeat = Register(Def[RepeatAttrs]{
		Name: "repeat", Kind: "shape", Doc: "Repeats each element repeats times along axis; with no axis the input is flattened first.",
		Inputs: []string{"data"},
		Shape: func(a *RepeatAttrs, in []Shape) ([]Shape, error) {
			_, _, out, err := a.layout(in[0])
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *RepeatAttrs, in, out []Value) error {
			view, strides, _, err := a.layout(in[0].Shape)
			if err != nil {
				return err
			}
			return gatherStrided(in[0], out[0], view, 0, strides)
		},
		Grad: func(f F, a *RepeatAttrs, in, _, g []Tensor) []Tensor {
			view, _, _, err := a.layout(in[0].Shape())
			if err != nil {
				panic(err)
			}
			ax := 1
			if a.Axis.Valid {
				ax, _ = NormAxis(a.Axis.Value, len(in[0].Shape()))
				ax++
			}
			s := f.Sum(f.Reshape(g[0], view...), Axis(ax))
			return []Tensor{f.Reshape(s, in[0].Shape()...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"repeats": "2"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"repeats": "3", "axis": "1"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"repeats": "2", "axis": "0"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"repeats": "2", "axis": "-1"}, Inputs: []Shape{{2, 1, 3}}},
		},
	})

	opReverse = Register(Def[ReverseAttrs]{
		Name: "reverse", Kind: "shape", Aliases: []string{"flip"}, Doc: "Reverses the order of the elements along the given axes.",
		Inputs: []string{"data"},
		Shape: func(a *ReverseAttrs, in []Shape) ([]Shape, error) {
			if _, err := a.axes(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, a *ReverseAttrs, in, out []Value) error {
			flip, err := a.axes(in[0].Shape)
			if err != nil {
				return err
			}
			st := in[0].Shape.Strides()
			strides := make([]int, len(st))
			base := 0
			for i, s := range st {
				strides[i] = s
				if flip[i] {
					strides[i] = -s
					base += (in[0].Shape[i] - 1) * s
				}
			}
			return gatherStrided(in[0], out[0], in[0].Shape, base, strides)
		},
		Grad: func(f F, a *ReverseAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.Flip(g[0], a.Axis...)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"axis": "0"}, Inputs: []Shape{{2, 5}}},
			{Attrs: map[string]string{"axis": "(0, 2)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"axis": "-1"}, Inputs: []Shape{{3, 2}}},
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

// ----------------------------------------------------------------------------
// F methods

// Transpose permutes the dims of x: output dim i is input dim axes[i]. With
// no axes the dims are reversed.
func (f F) Transpose(x Tensor, axes ...int) Tensor {
	return f.callA(opTranspose, &TransposeAttrs{Axes: axes}, x)
}

// Squeeze removes dims of size 1: every one, or those of an ops.Axis(...) Attr.
func (f F) Squeeze(x Tensor, attrs ...Attr) Tensor { return f.call1(opSqueeze, attrs, x) }

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

// Tile repeats the whole of x reps[i] times along axis i.
func (f F) Tile(x Tensor, reps ...int) Tensor {
	return f.callA(opTile, &TileAttrs{Reps: reps}, x)
}

// Repeat repeats each element of x repeats times; the input is flattened
// unless an ops.Axis(...) Attr names the axis to repeat along.
func (f F) Repeat(x Tensor, repeats int, attrs ...Attr) Tensor {
	return f.call1(opRepeat, append([]Attr{{"repeats", repeats}}, attrs...), x)
}

// Flip reverses the order of the elements of x along the given axes (reverse).
func (f F) Flip(x Tensor, axes ...int) Tensor {
	return f.callA(opReverse, &ReverseAttrs{Axis: axes}, x)
}

// ReshapeLike gives x the shape of like; Attrs lhs_begin, lhs_end,
// rhs_begin and rhs_end replace only part of x's shape.
func (f F) ReshapeLike(x, like Tensor, attrs ...Attr) Tensor {
	return f.call1(opReshapeLike, attrs, x, like)
}

// ShapeArray returns the shape of x as a 1-D int64 array.
func (f F) ShapeArray(x Tensor) Tensor { return f.callA(opShapeArray, &NoAttrs{}, x) }

// SizeArray returns the number of elements of x as an int64 array of shape (1,).
func (f F) SizeArray(x Tensor) Tensor { return f.callA(opSizeArray, &NoAttrs{}, x) }
