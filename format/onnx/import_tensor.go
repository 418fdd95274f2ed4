package onnx

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The conversions of the ONNX ops that move, select, combine and reduce
// tensors, of the shape computations worked out at import, and of the
// element-wise arithmetic.

func flattenOp(b *builder) error {
	s, err := b.shapeOf(0)
	if err != nil {
		return err
	}
	axis := int(b.attrInt("axis", 1))
	if axis < 0 {
		axis += len(s)
	}
	switch {
	case axis == 1:
		return b.single("Flatten", nil)
	case axis == 0:
		return b.single("Reshape", map[string]string{"shape": "(1, -1)"})
	case axis == len(s)-1 && s[axis] > 0:
		return b.single("Reshape", map[string]string{"shape": tuple([]int{-1, s[axis]})})
	}
	return fmt.Errorf("axis=%d of a %d-D input is not supported (0, 1 and the last are)", axis, len(s))
}

func reshapeOp(b *builder) error {
	if b.attrInt("allowzero", 0) != 0 {
		return fmt.Errorf("allowzero=1 is not supported")
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	v, err := b.get(1)
	if err != nil {
		return err
	}
	if v == nil {
		return fmt.Errorf("the shape input is missing")
	}
	var codes []int64
	switch {
	case v.konst != nil:
		if codes, err = int64s(v.konst); err != nil {
			return err
		}
	case v.dims != nil:
		// A dim that depends on a symbolic input dim converts when it is
		// the same dim of the input, which Reshape's 0 copies.
		cur, first := x.Shape(), b.first[b.node.Inputs[0]]
		for i, d := range v.dims {
			switch {
			case d.of == nil || !d.dynamic:
				codes = append(codes, int64(d.size))
			case i < len(cur) && i < len(first) && cur[i] == d.size && first[i] == d.size1:
				codes = append(codes, 0)
			default:
				return fmt.Errorf("dim %d of the new shape depends on a symbolic dim of an input in a way MXNet's Reshape cannot say", i)
			}
		}
	default:
		return fmt.Errorf("the shape is computed by the graph; it must be a constant or worked out from Shape")
	}
	return b.single("Reshape", map[string]string{"shape": tuple(codes)})
}

func transposeOp(b *builder) error {
	perm := b.attrInts("perm")
	if perm == nil {
		return b.single("transpose", nil)
	}
	return b.single("transpose", map[string]string{"axes": tuple(perm)})
}

func concatOp(b *builder) error {
	axis := int(b.attrInt("axis", 0))
	var shapes []*value
	for i := range b.node.Inputs {
		v, err := b.get(i)
		if err != nil {
			return err
		}
		shapes = append(shapes, v)
	}
	if slices.ContainsFunc(shapes, func(v *value) bool { return v.dims != nil }) {
		// A shape computation: the dims of each part, one after another.
		var dims []dim
		for i := range shapes {
			d, err := b.dimsOf(i)
			if err != nil {
				return err
			}
			dims = append(dims, d...)
		}
		return b.out(&value{dims: dims})
	}
	in, err := b.tensors(len(b.node.Inputs))
	if err != nil {
		return err
	}
	if axis < 0 {
		axis += len(in[0].Shape())
	}
	return b.emit("Concat", map[string]string{"dim": fmt.Sprint(axis), "num_args": fmt.Sprint(len(in))}, in...)
}

func softmaxImport(opName string) func(b *builder) error {
	return func(b *builder) error {
		s, err := b.shapeOf(0)
		if err != nil {
			return err
		}
		def := int64(-1)
		if b.opset < 13 {
			def = 1
		}
		axis := int(b.attrInt("axis", def))
		if axis < 0 {
			axis += len(s)
		}
		// Before opset 13, softmax flattens the dims from axis on into
		// one: the same as MXNet's along axis when that is the last.
		if b.opset < 13 && axis != len(s)-1 {
			return fmt.Errorf("axis=%d of a %d-D input at opset %d (which flattens the dims after it) is not supported", axis, len(s), b.opset)
		}
		return b.single(opName, map[string]string{"axis": fmt.Sprint(axis)})
	}
}

func dropoutOp(b *builder) error {
	for _, o := range b.node.Outputs[1:] {
		if o != "" {
			return fmt.Errorf("the mask output %q is not supported", o)
		}
	}
	ratio := b.attrFloat("ratio", 0.5)
	if b.opset >= 12 {
		if v, _ := b.get(1); v != nil {
			r, ok := b.scalarOf(1)
			if !ok {
				return fmt.Errorf("the ratio must be a scalar constant")
			}
			ratio = r
		}
	}
	return b.single("Dropout", map[string]string{"p": float(ratio)})
}

// identity passes a value through; a constant is copied, so that the
// parameters PyTorch stores once for two ops (equal folded biases) stay
// two parameters here, as they were in the model that was exported.
func identity(b *builder) error {
	v, err := b.get(0)
	if err != nil || v == nil {
		return fmt.Errorf("input 0 is missing")
	}
	if v.konst != nil && v.sym == nil {
		return b.out(&value{konst: v.konst.Copy(), scalar: v.scalar})
	}
	if v.sym == nil {
		return b.out(&value{dims: v.dims, scalar: v.scalar})
	}
	return b.single("_copy", nil)
}

// padOp converts a Pad of zeros on the spatial dims, the same at both
// ends, which PyTorch writes before an average pool that counts the
// padding (and some exporters before a convolution): the padding is
// handed on to the Conv or AveragePool it feeds, whose own pad it
// becomes. A Pad of zeros everywhere changes nothing.
func padOp(b *builder) error {
	mode := b.attrString("mode", "constant")
	if mode != "constant" && mode != "edge" && mode != "reflect" {
		return fmt.Errorf("mode=%s is not supported (constant, edge and reflect are)", mode)
	}
	pads, fill := b.attrInts("pads"), b.attrFloat("value", 0)
	if b.opset >= 11 {
		var err error
		if pads, err = b.ints(1); err != nil {
			return err
		}
		if v, _ := b.get(2); v != nil {
			c, ok := b.scalarOf(2)
			if !ok {
				return fmt.Errorf("the constant_value must be a constant scalar")
			}
			fill = c
		}
		if v, _ := b.get(3); v != nil {
			return fmt.Errorf("the axes input is not supported (pads for every axis are)")
		}
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(pads, func(p int64) bool { return p != 0 }) {
		return b.out(&value{sym: x})
	}
	k := len(pads) / 2
	if len(pads) != 2*k || slices.ContainsFunc(pads, func(p int64) bool { return p < 0 }) {
		return fmt.Errorf("pads %v: a begin and an end of each axis, none negative, convert", pads)
	}
	if mode == "constant" && fill == 0 && k >= 3 && pads[0] == 0 && pads[1] == 0 && pads[k] == 0 && pads[k+1] == 0 &&
		slices.Equal(pads[2:k], pads[k+2:]) {
		// Zeros, the same at both ends of the spatial dims: the pad of
		// the Conv or AveragePool it feeds, or a Pad op for another.
		return b.out(&value{padded: x, pad: pads[2:k]})
	}
	width := make([]int64, 0, 2*k) // MXNet's: each axis's begin and end in turn
	for d := range k {
		width = append(width, pads[d], pads[k+d])
	}
	return b.emit("Pad", map[string]string{"mode": mode, "pad_width": tuple(width), "constant_value": strconv.FormatFloat(fill, 'g', -1, 64)}, x)
}

func constantOp(b *builder) error {
	var a *eager.NDArray
	var err error
	scalar := false
	switch at := b.node.Attributes; {
	case len(at) != 1:
		return fmt.Errorf("a Constant needs exactly one value attribute, it has %d", len(at))
	case at[0].Name == "value" && at[0].T != nil:
		a, err = arrayOf(at[0].T)
		scalar = len(at[0].T.Dims) == 0
	case at[0].Name == "value_float":
		a, scalar = eager.Array([]float32{at[0].F}), true
	case at[0].Name == "value_floats":
		a, err = eager.NewArray(slices.Clone(at[0].Floats), len(at[0].Floats))
	case at[0].Name == "value_int":
		a, scalar = eager.Array([]int64{at[0].I}), true
	case at[0].Name == "value_ints":
		a, err = eager.NewArray(slices.Clone(at[0].Ints), len(at[0].Ints))
	default:
		return fmt.Errorf("attribute %s is not supported", at[0].Name)
	}
	if err != nil {
		return fmt.Errorf("value: %w", err)
	}
	return b.out(&value{konst: a, scalar: scalar})
}

// ---- shape computations ----

func shapeOp(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	s := x.Shape()
	if s == nil {
		return fmt.Errorf("the shape of %q is unknown at import", b.node.Inputs[0])
	}
	first := b.first[b.node.Inputs[0]]
	dims := make([]dim, len(s))
	for i, n := range s {
		dims[i] = dim{of: x, axis: i, size: n, size1: n}
		if i < len(first) {
			dims[i].size1 = first[i]
		}
		dims[i].dynamic = dims[i].size != dims[i].size1
	}
	return b.out(&value{dims: dims})
}

// dimsOf returns input i as a shape computation: its dims, or a
// constant's values as fixed dims.
func (b *builder) dimsOf(i int) ([]dim, error) {
	v, err := b.get(i)
	if err != nil || v == nil {
		return nil, fmt.Errorf("input %d is missing", i)
	}
	if v.dims != nil {
		return v.dims, nil
	}
	vals, err := b.ints(i)
	if err != nil {
		return nil, err
	}
	dims := make([]dim, len(vals))
	for j, x := range vals {
		dims[j] = dim{size: int(x), size1: int(x)}
	}
	return dims, nil
}

func gather(b *builder) error {
	axis := int(b.attrInt("axis", 0))
	data, err := b.get(0)
	if err != nil || data == nil {
		return fmt.Errorf("input 0 is missing")
	}
	switch {
	case data.dims != nil:
		idx, err := b.ints(1)
		if err != nil {
			return err
		}
		var dims []dim
		for _, k := range idx {
			if k < 0 {
				k += int64(len(data.dims))
			}
			if k < 0 || k >= int64(len(data.dims)) {
				return fmt.Errorf("index %d is out of the %d dims of the shape", k, len(data.dims))
			}
			dims = append(dims, data.dims[k])
		}
		iv, _ := b.get(1)
		return b.out(&value{dims: dims, scalar: iv.scalar})
	case data.konst != nil && len(data.konst.Shape()) == 2 && axis == 0:
		// A lookup table: an embedding layer, whose weight is the table.
		idx, err := b.tensor(1)
		if err != nil {
			return err
		}
		table, err := b.tensor(0)
		if err != nil {
			return err
		}
		s := data.konst.Shape()
		return b.emit("Embedding", map[string]string{"input_dim": fmt.Sprint(s[0]), "output_dim": fmt.Sprint(s[1])}, idx, table)
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	idx, err := b.tensor(1)
	if err != nil {
		return err
	}
	return b.emit("take", map[string]string{"axis": fmt.Sprint(axis), "mode": "wrap"}, x, idx)
}

// axesOf reads the axes of Unsqueeze, Squeeze and the reductions: an
// attribute before opset 13 (18 for the reductions other than
// ReduceSum), input 1 from then on.
func (b *builder) axesOf(inputFrom int64) ([]int64, error) {
	if b.opset < inputFrom {
		return b.attrInts("axes"), nil
	}
	return b.ints(1)
}

func unsqueeze(b *builder) error {
	axes, err := b.axesOf(13)
	if err != nil {
		return err
	}
	v, err := b.get(0)
	if err != nil || v == nil {
		return fmt.Errorf("input 0 is missing")
	}
	if v.dims != nil {
		if !v.scalar || !slices.Equal(axes, []int64{0}) {
			return fmt.Errorf("only a scalar shape computation unsqueezes, on axis 0; other forms are not supported")
		}
		return b.out(&value{dims: v.dims})
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	rank := len(x.Shape()) + len(axes)
	for i := range axes {
		if axes[i] < 0 {
			axes[i] += int64(rank)
		}
	}
	slices.Sort(axes)
	for i, a := range axes {
		name := b.name()
		if i < len(axes)-1 {
			name += fmt.Sprintf("_%d", i)
		}
		if x, err = b.apply(name, "expand_dims", map[string]string{"axis": fmt.Sprint(a)}, x); err != nil {
			return err
		}
	}
	return b.out(&value{sym: x})
}

func squeezeOp(b *builder) error {
	axes, err := b.axesOf(13)
	if err != nil {
		return err
	}
	v, err := b.get(0)
	if err != nil || v == nil {
		return fmt.Errorf("input 0 is missing")
	}
	if v.dims != nil {
		if len(v.dims) != 1 {
			return fmt.Errorf("a shape computation of %d dims does not squeeze (one of one dim does)", len(v.dims))
		}
		return b.out(&value{dims: v.dims, scalar: true})
	}
	if axes == nil {
		return b.single("squeeze", nil)
	}
	return b.single("squeeze", map[string]string{"axis": tuple(axes)})
}

// sliceOp converts Slice (opset 10 on: starts, ends, axes and steps are
// constant inputs) to MXNet's slice, None where an axis is not sliced or
// an end is past the last index.
func sliceOp(b *builder) error {
	var args [4][]int64 // starts, ends, axes, steps
	for i := range args {
		var err error
		if args[i], err = b.ints(i + 1); err != nil {
			return err
		}
	}
	starts, ends, axes, steps := args[0], args[1], args[2], args[3]
	if len(ends) != len(starts) || axes != nil && len(axes) != len(starts) || steps != nil && len(steps) != len(starts) {
		return fmt.Errorf("starts %v, ends %v, axes %v and steps %v differ in length", starts, ends, axes, steps)
	}
	v, err := b.get(0)
	if err != nil || v == nil {
		return fmt.Errorf("input 0 is missing")
	}
	if v.dims != nil {
		// A part of a shape: one axis, step 1.
		if axes != nil && !slices.Equal(axes, []int64{0}) || steps != nil && !slices.Equal(steps, []int64{1}) || len(starts) != 1 {
			return fmt.Errorf("a Slice of a shape computation is supported on axis 0 with step 1 only")
		}
		n := int64(len(v.dims))
		lo, hi := min(max(starts[0]+n*b2i64(starts[0] < 0), 0), n), min(max(ends[0]+n*b2i64(ends[0] < 0), 0), n)
		return b.out(&value{dims: v.dims[lo:max(lo, hi)]})
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	rank := len(x.Shape())
	begin, end, step := slices.Repeat([]string{"None"}, rank), slices.Repeat([]string{"None"}, rank), slices.Repeat([]string{"None"}, rank)
	for i := range starts {
		axis := int64(i)
		if axes != nil {
			axis = axes[i]
		}
		if axis < 0 {
			axis += int64(rank)
		}
		if axis < 0 || axis >= int64(rank) {
			return fmt.Errorf("axis %d is out of the %d dims of the input", axis, rank)
		}
		st := int64(1)
		if steps != nil {
			st = steps[i]
		}
		// Bounds past either end mean "to the end": ONNX writes
		// INT64_MAX (or INT64_MIN for a negative step).
		// A start past either end is clamped, as ONNX does.
		dim := int64(x.Shape()[axis])
		start := min(max(starts[i], -dim), dim)
		if st < 0 {
			start = min(start, dim-1)
		}
		begin[axis] = fmt.Sprint(start)
		if ends[i] < math.MaxInt32 && ends[i] > math.MinInt32 {
			end[axis] = fmt.Sprint(ends[i])
		}
		step[axis] = fmt.Sprint(st)
	}
	return b.single("slice", map[string]string{"begin": "(" + strings.Join(begin, ", ") + ")",
		"end": "(" + strings.Join(end, ", ") + ")", "step": "(" + strings.Join(step, ", ") + ")"})
}

func b2i64(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func castOp(b *builder) error {
	dtype, err := dtypeOf(int32(b.attrInt("to", 0)))
	if err != nil {
		return err
	}
	v, err := b.get(0)
	if err != nil || v == nil {
		return fmt.Errorf("input 0 is missing")
	}
	if v.dims != nil {
		return b.out(&value{dims: v.dims, scalar: v.scalar})
	}
	return b.single("Cast", map[string]string{"dtype": dtype.String()})
}

func reduce(opName string) func(b *builder) error {
	return func(b *builder) error {
		from := int64(18)
		if opName == "sum" {
			from = 13
		}
		axes, err := b.axesOf(from)
		if err != nil {
			return err
		}
		attrs := map[string]string{"keepdims": boolean(b.attrInt("keepdims", 1) != 0)}
		if len(axes) > 0 {
			attrs["axis"] = tuple(axes)
		} else if b.attrInt("noop_with_empty_axes", 0) != 0 {
			return fmt.Errorf("noop_with_empty_axes=1 is not supported")
		}
		return b.single(opName, attrs)
	}
}

// ---- arithmetic ----

// binary converts an element-wise op of two inputs: with a scalar
// constant on the right (scalarOp) or on the left (rscalarOp), a scalar
// op; otherwise the broadcast op.
func arith(opName, scalarOp, rscalarOp string) func(b *builder) error {
	return func(b *builder) error {
		for _, c := range []struct {
			scalar, tensor int
			op             string
		}{{1, 0, scalarOp}, {0, 1, rscalarOp}} {
			x, ok := b.scalarOf(c.scalar)
			if v, _ := b.get(c.tensor); !ok || v == nil || v.sym == nil && v.konst == nil {
				continue
			}
			y, err := b.tensor(c.tensor)
			if err != nil {
				return err
			}
			return b.emit(c.op, map[string]string{"scalar": float(x)}, y)
		}
		return variadic(opName)(b)
	}
}

// variadic applies a broadcast op of two inputs along the node's inputs.
func variadic(opName string) func(b *builder) error {
	return func(b *builder) error {
		y, err := b.tensor(0)
		if err != nil {
			return err
		}
		for i := 1; i < len(b.node.Inputs); i++ {
			x, err := b.tensor(i)
			if err != nil {
				return err
			}
			name := b.name()
			if i < len(b.node.Inputs)-1 {
				name += fmt.Sprintf("_%d", i)
			}
			if y, err = b.apply(name, opName, nil, y, x); err != nil {
				return err
			}
		}
		return b.out(&value{sym: y})
	}
}

func tileOp(b *builder) error {
	reps, err := b.ints(1)
	if err != nil {
		return err
	}
	return b.single("tile", map[string]string{"reps": tuple(reps)})
}

// expandOp converts Expand, which broadcasts to a shape aligned on the
// right, where a 1 keeps the input's dim: MXNet's broadcast_to takes a
// shape of the input's rank, where 0 keeps the dim.
func expandOp(b *builder) error {
	shape, err := b.ints(1)
	if err != nil {
		return err
	}
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	for len(x.Shape()) < len(shape) {
		if x, err = b.apply(b.name()+"_expand", "expand_dims", map[string]string{"axis": "0"}, x); err != nil {
			return err
		}
	}
	target := make([]int64, len(x.Shape()))
	off := len(target) - len(shape)
	for i := range target {
		if i >= off && shape[i-off] != 1 {
			target[i] = shape[i-off]
		}
	}
	return b.emit("broadcast_to", map[string]string{"shape": tuple(target)}, x)
}

func whereOp(b *builder) error {
	in, err := b.tensors(3)
	if err != nil {
		return err
	}
	// ONNX broadcasts the condition; MXNet's takes x's shape (or a 1-D
	// one along x's first dim).
	if c, x := in[0].Shape(), in[1].Shape(); !c.Equal(x) && len(c) > 1 {
		var err error
		if in[0].DType() != in[1].DType() {
			if in[0], err = b.apply(b.name()+"_cast", "Cast", map[string]string{"dtype": in[1].DType().String()}, in[0]); err != nil {
				return err
			}
		}
		if in[0], err = b.apply(b.name()+"_condition", "broadcast_like", nil, in[0], in[1]); err != nil {
			return err
		}
	}
	return b.emit("where", nil, in...)
}

// splitOp converts Split: SliceChannel when the parts are equal, one
// slice_axis per part otherwise.
func splitOp(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	shape := x.Shape()
	axis := int(b.attrInt("axis", 0))
	if axis < 0 {
		axis += len(shape)
	}
	if axis < 0 || axis >= len(shape) {
		return fmt.Errorf("axis %d is out of the %d dims of the input", axis, len(shape))
	}
	parts := b.attrInts("split")
	if b.opset >= 13 {
		if parts, err = b.ints(1); err != nil {
			return err
		}
	}
	n := len(b.node.Outputs)
	if parts == nil {
		if shape[axis]%n != 0 {
			return fmt.Errorf("dim %d of size %d does not split into %d equal parts", axis, shape[axis], n)
		}
		for range n {
			parts = append(parts, int64(shape[axis]/n))
		}
	}
	if len(parts) != n {
		return fmt.Errorf("%d parts for %d outputs", len(parts), n)
	}
	outs := make([]*graph.Symbol, n)
	if !slices.ContainsFunc(parts, func(p int64) bool { return p != parts[0] }) {
		op, _ := ops.Lookup("SliceChannel")
		a, err := op.ParseAttrs(map[string]string{"num_outputs": fmt.Sprint(n), "axis": fmt.Sprint(axis)})
		if err != nil {
			return err
		}
		b.t.NameNext(b.fresh(b.name()))
		ys, err := b.t.Apply(op, a, []ops.Tensor{x})
		if err != nil {
			return err
		}
		for i := range outs {
			outs[i] = ys[i].(*graph.Symbol)
		}
	} else {
		lo := int64(0)
		for i, p := range parts {
			if outs[i], err = b.apply(fmt.Sprintf("%s_%d", b.name(), i), "slice_axis", map[string]string{
				"axis": fmt.Sprint(axis), "begin": fmt.Sprint(lo), "end": fmt.Sprint(lo + p)}, x); err != nil {
				return err
			}
			lo += p
		}
	}
	for i, o := range b.node.Outputs {
		if _, dup := b.values[o]; dup {
			return fmt.Errorf("output %q is also the output of another node", o)
		}
		b.set(o, &value{sym: outs[i]})
	}
	return nil
}

// argOp converts ArgMax and ArgMin: MXNet's return float indices, ONNX's
// int64 ones.
func argOp(opName string) func(b *builder) error {
	return func(b *builder) error {
		if b.attrInt("select_last_index", 0) != 0 {
			return fmt.Errorf("select_last_index=1 is not supported")
		}
		x, err := b.tensor(0)
		if err != nil {
			return err
		}
		y, err := b.apply(b.name()+"_"+opName, opName, map[string]string{"axis": fmt.Sprint(b.attrInt("axis", 0)),
			"keepdims": boolean(b.attrInt("keepdims", 1) != 0)}, x)
		if err != nil {
			return err
		}
		return b.emit("Cast", map[string]string{"dtype": "int64"}, y)
	}
}
