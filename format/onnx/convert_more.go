package onnx

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The converters of the indexing, shape, reduction and layer ops beyond
// the model zoo's: each writes ONNX 13 nodes whose meaning is the same up
// to MaxOpset.

// toInt64s converts dims or indices to an ONNX int64 constant's values.
func toInt64s(vs []int) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = int64(v)
	}
	return out
}

// filled returns n copies of v.
func filled(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// span returns from, from+1, …, to-1.
func span(from, to int) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, int64(i))
	}
	return out
}

// int64Const adds a 1-D int64 constant (axes, starts, shapes, repeats).
func (e *exporter) int64Const(n *graph.Node, suffix string, vs []int64) (string, error) {
	return e.constant(n.Name+"_"+suffix, vs, len(vs))
}

// knownShape returns the inferred shape of input i, or an error naming
// what needs it.
func knownShape(n *graph.Node, i int, what string) (ops.Shape, error) {
	s := n.Inputs[i].Shape()
	if s == nil {
		return nil, fmt.Errorf("%s needs the shape of input %d, which is unknown", what, i)
	}
	return s, nil
}

func softmaxOutput(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SoftmaxOutputAttrs](n)
	if err != nil {
		return err
	}
	switch { // the data has 2 dims or more: the op's shape rule says so
	case a.MultiOutput:
		e.node("Softmax", n.Name, in[:1], []string{out}, attrInt("axis", 1))
	case a.PreserveShape:
		e.node("Softmax", n.Name, in[:1], []string{out}, attrInt("axis", -1))
	case rank(n, 0) == 2:
		e.node("Softmax", n.Name, in[:1], []string{out}, attrInt("axis", 1))
	default:
		// A softmax over all dims after the first: flattened, then
		// given the data's shape back.
		flat, soft, shape := e.temp(n, "flatten"), e.temp(n, "softmax"), e.temp(n, "shape")
		e.node("Flatten", n.Name+"_flatten", in[:1], []string{flat}, attrInt("axis", 1))
		e.node("Softmax", n.Name+"_softmax", []string{flat}, []string{soft}, attrInt("axis", 1))
		e.node("Shape", n.Name+"_shape", in[:1], []string{shape})
		e.node("Reshape", n.Name, []string{soft, shape}, []string{out})
	}
	return nil
}

// gatherClipped writes Gather(data, indices) along axis, the indices
// (float) clipped into [0, size-1] and truncated to integers, as MXNet's
// Embedding and take (mode clip) do.
func gatherClipped(e *exporter, n *graph.Node, data, indices string, dtype ops.DType, axis, size int, out string) error {
	lo, err := e.scalar(n.Name+"_min", 0, dtype)
	if err != nil {
		return fmt.Errorf("indices: %w", err)
	}
	hi, err := e.scalar(n.Name+"_max", float64(size-1), dtype)
	if err != nil {
		return err
	}
	clipped, idx := e.temp(n, "clipped"), e.temp(n, "indices")
	e.node("Clip", n.Name+"_clip", []string{indices, lo, hi}, []string{clipped})
	e.node("Cast", n.Name+"_cast", []string{clipped}, []string{idx}, attrInt("to", int(TypeInt64)))
	e.node("Gather", n.Name, []string{data, idx}, []string{out}, attrInt("axis", axis))
	return nil
}

func embedding(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.EmbeddingAttrs](n)
	if err != nil {
		return err
	}
	return gatherClipped(e, n, in[1], in[0], n.Inputs[0].DType(), 0, a.InputDim, out)
}

func take(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.TakeAttrs](n)
	if err != nil {
		return err
	}
	if a.Mode != "clip" {
		return fmt.Errorf("mode %s has no ONNX export (clip has)", a.Mode)
	}
	s, err := knownShape(n, 0, "take")
	if err != nil {
		return err
	}
	ax, err := ops.NormAxis(a.Axis, len(s))
	if err != nil {
		return err
	}
	return gatherClipped(e, n, in[0], in[1], n.Inputs[1].DType(), ax, s[ax], out)
}

// sliceNode writes ONNX's Slice. ONNX clamps ends to the dim, so an
// open end is the largest int64 (the smallest with a negative step).
func sliceNode(e *exporter, n *graph.Node, in string, starts, ends, axes, steps []int64, out string) error {
	var names []string
	for _, c := range []struct {
		suffix string
		vs     []int64
	}{{"starts", starts}, {"ends", ends}, {"axes", axes}, {"steps", steps}} {
		name, err := e.int64Const(n, c.suffix, c.vs)
		if err != nil {
			return err
		}
		names = append(names, name)
	}
	e.node("Slice", n.Name, append([]string{in}, names...), []string{out})
	return nil
}

func slice(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SliceAttrs](n)
	if err != nil {
		return err
	}
	if len(a.Begin) != len(a.End) || len(a.Step) > len(a.Begin) {
		return fmt.Errorf("begin %v, end %v and step %v differ in length", a.Begin, a.End, a.Step)
	}
	var starts, ends, axes, steps []int64
	for i := range a.Begin {
		step := int64(1)
		if i < len(a.Step) && a.Step[i].Valid {
			step = int64(a.Step[i].Value)
		}
		start, end := int64(0), int64(math.MaxInt64)
		if step < 0 {
			start, end = -1, math.MinInt64 // from the last element to before the first
		}
		if a.Begin[i].Valid {
			start = int64(a.Begin[i].Value)
		}
		if a.End[i].Valid {
			end = int64(a.End[i].Value)
		}
		starts, ends = append(starts, start), append(ends, end)
		axes, steps = append(axes, int64(i)), append(steps, step)
	}
	return sliceNode(e, n, in[0], starts, ends, axes, steps, out)
}

func sliceAxis(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SliceAxisAttrs](n)
	if err != nil {
		return err
	}
	end := int64(math.MaxInt64)
	if a.End.Valid {
		end = int64(a.End.Value)
	}
	return sliceNode(e, n, in[0], []int64{int64(a.Begin)}, []int64{end}, []int64{int64(a.Axis)}, []int64{1}, out)
}

// reduction maps sum, mean, max, min and prod to ONNX's Reduce ops.
// ReduceSum takes its axes as an input from opset 13, the others from
// opset 18, so as an attribute up to MaxOpset. MXNet's reduction of
// every axis without keepdims gives shape (1,), ONNX's a scalar: that
// one keeps the dims and is reshaped to (1,).
func reduction(opType string) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		a, err := attrs[ops.ReduceAttrs](n)
		if err != nil {
			return err
		}
		s, err := knownShape(n, 0, opType)
		if err != nil {
			return err
		}
		red := make([]bool, len(s)) // the axes named, or all when none are
		for i := range red {
			red[i] = len(a.Axis) == 0
		}
		for _, ax := range a.Axis {
			i, err := ops.NormAxis(ax, len(s))
			if err != nil {
				return err
			}
			red[i] = true
		}
		var axes []int
		for i := range red {
			if red[i] != a.Exclude {
				axes = append(axes, i)
			}
		}
		if len(axes) == 0 {
			e.node("Identity", n.Name, in[:1], []string{out})
			return nil
		}
		keep := a.Keepdims || len(axes) == len(s)
		list := []*Attribute{attrInt("keepdims", b2i(keep))}
		inputs := in[:1]
		if opType == "ReduceSum" {
			name, err := e.int64Const(n, "axes", toInt64s(axes))
			if err != nil {
				return err
			}
			inputs = []string{in[0], name}
		} else {
			list = append(list, attrInts("axes", axes))
		}
		if keep == a.Keepdims {
			e.node(opType, n.Name, inputs, []string{out}, list...)
			return nil
		}
		kept := e.temp(n, "kept")
		e.node(opType, n.Name+"_reduce", inputs, []string{kept}, list...)
		shape, err := e.int64Const(n, "shape", []int64{1})
		if err != nil {
			return err
		}
		e.node("Reshape", n.Name, []string{kept, shape}, []string{out})
		return nil
	}
}

func deconvolution(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.DeconvolutionAttrs](n)
	if err != nil {
		return err
	}
	if err := checkLayout(a.Layout); err != nil {
		return err
	}
	k := len(a.Kernel)
	stride, dilate := spatial(a.Stride, k, 1), spatial(a.Dilate, k, 1)
	pad, adj := spatial(a.Pad, k, 0), spatial(a.Adj, k, 0)
	if len(a.TargetShape) > 0 {
		// MXNet's rule (ops' deconvPadAdj): the padding the target
		// leaves, split with the odd one in adj.
		s, err := knownShape(n, 0, "target_shape")
		if err != nil {
			return err
		}
		pad, adj = make([]int, k), make([]int, k)
		for i, target := range a.TargetShape {
			total := stride[i]*(s[2+i]-1) + dilate[i]*(a.Kernel[i]-1) + 1 - target
			pad[i], adj[i] = (total+1)/2, total%2
		}
	}
	e.node("ConvTranspose", n.Name, in, []string{out},
		attrInts("kernel_shape", a.Kernel),
		attrInts("strides", stride),
		attrInts("pads", pads(pad)),
		attrInts("dilations", dilate),
		attrInts("output_padding", adj),
		attrInt("group", a.NumGroup))
	return nil
}

// layerNorm is written out as its arithmetic, which every opset has
// (LayerNormalization is opset 17's): the mean and the variance along
// the axis, then gamma*(x-mean)/sqrt(var+eps) + beta.
func layerNorm(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.LayerNormAttrs](n)
	if err != nil {
		return err
	}
	if a.OutputMeanVar {
		return fmt.Errorf("output_mean_var has no ONNX export")
	}
	r := rank(n, 0)
	ax, err := ops.NormAxis(a.Axis, r)
	if err != nil {
		return err
	}
	eps, err := e.scalar(n.Name+"_eps", a.Eps, n.Inputs[0].DType())
	if err != nil {
		return err
	}
	gamma, beta := in[1], in[2]
	if ax != r-1 {
		// gamma and beta (C,) scale the axis: reshaped to (C, 1, …, 1).
		shape := filled(r-ax, 1)
		shape[0] = -1
		s, err := e.int64Const(n, "affine_shape", shape)
		if err != nil {
			return err
		}
		gamma, beta = e.temp(n, "gamma"), e.temp(n, "beta")
		e.node("Reshape", n.Name+"_gamma", []string{in[1], s}, []string{gamma})
		e.node("Reshape", n.Name+"_beta", []string{in[2], s}, []string{beta})
	}
	mean, centred, square, variance, shifted, std, normed, scaled := e.temp(n, "mean"), e.temp(n, "centred"),
		e.temp(n, "square"), e.temp(n, "var"), e.temp(n, "var_eps"), e.temp(n, "std"), e.temp(n, "normed"), e.temp(n, "scaled")
	axes := attrInts("axes", []int{ax})
	e.node("ReduceMean", n.Name+"_mean", in[:1], []string{mean}, axes, attrInt("keepdims", 1))
	e.node("Sub", n.Name+"_centred", []string{in[0], mean}, []string{centred})
	e.node("Mul", n.Name+"_square", []string{centred, centred}, []string{square})
	e.node("ReduceMean", n.Name+"_var", []string{square}, []string{variance}, axes, attrInt("keepdims", 1))
	e.node("Add", n.Name+"_var_eps", []string{variance, eps}, []string{shifted})
	e.node("Sqrt", n.Name+"_std", []string{shifted}, []string{std})
	e.node("Div", n.Name+"_normed", []string{centred, std}, []string{normed})
	e.node("Mul", n.Name+"_scaled", []string{normed, gamma}, []string{scaled})
	e.node("Add", n.Name, []string{scaled, beta}, []string{out})
	return nil
}

func batchDot(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.DotAttrs](n)
	if err != nil {
		return err
	}
	operands := []string{in[0], in[1]}
	for i, t := range []bool{a.TransposeA, a.TransposeB} {
		if t {
			operands[i] = e.temp(n, fmt.Sprintf("t%d", i))
			e.node("Transpose", operands[i], in[i:i+1], []string{operands[i]}, attrInts("perm", []int{0, 2, 1}))
		}
	}
	e.node("MatMul", n.Name, operands, []string{out})
	return nil
}

func cast(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.CastAttrs](n)
	if err != nil {
		return err
	}
	to, err := elemType(a.DType)
	if err != nil {
		return err
	}
	e.node("Cast", n.Name, in, []string{out}, attrInt("to", int(to)))
	return nil
}

func expandDims(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ExpandDimsAttrs](n)
	if err != nil {
		return err
	}
	axes, err := e.int64Const(n, "axes", []int64{int64(a.Axis)})
	if err != nil {
		return err
	}
	e.node("Unsqueeze", n.Name, []string{in[0], axes}, []string{out})
	return nil
}

// squeeze removes the given axes, or every dim of size 1 in the traced
// shape but the last when all are 1, as MXNet keeps one dim.
func squeeze(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SqueezeAttrs](n)
	if err != nil {
		return err
	}
	axes := a.Axis
	if len(axes) == 0 {
		s, err := knownShape(n, 0, "squeeze without axes")
		if err != nil {
			return err
		}
		for i, d := range s {
			if d == 1 {
				axes = append(axes, i)
			}
		}
		if len(axes) == len(s) {
			axes = axes[:len(axes)-1]
		}
	}
	if len(axes) == 0 {
		e.node("Identity", n.Name, in, []string{out})
		return nil
	}
	name, err := e.int64Const(n, "axes", toInt64s(axes))
	if err != nil {
		return err
	}
	e.node("Squeeze", n.Name, []string{in[0], name}, []string{out})
	return nil
}

func square(e *exporter, n *graph.Node, in []string, out string) error {
	e.node("Mul", n.Name, []string{in[0], in[0]}, []string{out})
	return nil
}

func rsqrt(e *exporter, n *graph.Node, in []string, out string) error {
	root := e.temp(n, "sqrt")
	e.node("Sqrt", n.Name+"_sqrt", in, []string{root})
	e.node("Reciprocal", n.Name, []string{root}, []string{out})
	return nil
}

func stack(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.StackAttrs](n)
	if err != nil {
		return err
	}
	axes, err := e.int64Const(n, "axes", []int64{int64(a.Axis)})
	if err != nil {
		return err
	}
	parts := make([]string, len(in))
	for i, x := range in {
		parts[i] = e.temp(n, fmt.Sprintf("part%d", i))
		e.node("Unsqueeze", parts[i], []string{x, axes}, []string{parts[i]})
	}
	e.node("Concat", n.Name, parts, []string{out}, attrInt("axis", a.Axis))
	return nil
}

// tile pads the shorter of the data's dims and reps with leading 1s, as
// MXNet does; ONNX's Tile wants one repeat per dim.
func tile(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.TileAttrs](n)
	if err != nil {
		return err
	}
	r := rank(n, 0)
	if r < 0 {
		return fmt.Errorf("tile needs data of known rank")
	}
	reps := toInt64s(a.Reps)
	for len(reps) < r {
		reps = append([]int64{1}, reps...)
	}
	x := in[0]
	if extra := len(reps) - r; extra > 0 {
		axes, err := e.int64Const(n, "axes", span(0, extra))
		if err != nil {
			return err
		}
		x = e.temp(n, "unsqueezed")
		e.node("Unsqueeze", n.Name+"_unsqueeze", []string{in[0], axes}, []string{x})
	}
	repeats, err := e.int64Const(n, "repeats", reps)
	if err != nil {
		return err
	}
	e.node("Tile", n.Name, []string{x, repeats}, []string{out})
	return nil
}

// repeat gives each element its copies on a new axis after the repeated
// one, tiled, and merges the two: Unsqueeze, Tile, Reshape. With no axis
// the data is flattened first.
func repeat(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.RepeatAttrs](n)
	if err != nil {
		return err
	}
	s, err := knownShape(n, 0, "repeat")
	if err != nil {
		return err
	}
	x, axis := in[0], a.Axis.Value
	if !a.Axis.Valid {
		flat, err := e.int64Const(n, "flat_shape", []int64{-1})
		if err != nil {
			return err
		}
		x, axis, s = e.temp(n, "flat"), 0, ops.Shape{s.Size()}
		e.node("Reshape", n.Name+"_flat", []string{in[0], flat}, []string{x})
	}
	ax, err := ops.NormAxis(axis, len(s))
	if err != nil {
		return err
	}
	axes, err := e.int64Const(n, "axes", []int64{int64(ax + 1)})
	if err != nil {
		return err
	}
	reps := filled(len(s)+1, 1)
	reps[ax+1] = int64(a.Repeats)
	repeats, err := e.int64Const(n, "repeats", reps)
	if err != nil {
		return err
	}
	// The dims before the axis are copied (0), the repeated one is
	// inferred (-1), and those after it are the traced ones.
	shape := append(filled(ax, 0), -1)
	for _, d := range s[ax+1:] {
		shape = append(shape, int64(d))
	}
	merged, err := e.int64Const(n, "shape", shape)
	if err != nil {
		return err
	}
	copies, tiled := e.temp(n, "copies"), e.temp(n, "tiled")
	e.node("Unsqueeze", n.Name+"_copies", []string{x, axes}, []string{copies})
	e.node("Tile", n.Name+"_tiled", []string{copies, repeats}, []string{tiled})
	e.node("Reshape", n.Name, []string{tiled, merged}, []string{out})
	return nil
}

// where casts the condition to bool; a 1-D condition picks whole rows
// of x and y, so it is reshaped to (n, 1, …, 1) for ONNX's broadcast.
func where(e *exporter, n *graph.Node, in []string, out string) error {
	cond := e.temp(n, "cond")
	e.node("Cast", n.Name+"_cond", in[:1], []string{cond}, attrInt("to", int(TypeBool)))
	if rc, rx := rank(n, 0), rank(n, 1); rc == 1 && rx > 1 {
		axes, err := e.int64Const(n, "cond_axes", span(1, rx))
		if err != nil {
			return err
		}
		rows := e.temp(n, "rows")
		e.node("Unsqueeze", n.Name+"_rows", []string{cond, axes}, []string{rows})
		cond = rows
	}
	e.node("Where", n.Name, []string{cond, in[1], in[2]}, []string{out})
	return nil
}

// broadcastTo writes Expand, whose dims of 1 keep the data's as MXNet's
// dims of 0 do.
func broadcastTo(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.BroadcastToAttrs](n)
	if err != nil {
		return err
	}
	shape := toInt64s(a.Shape)
	for i, d := range shape {
		if d == 0 {
			shape[i] = 1
		}
	}
	s, err := e.int64Const(n, "shape", shape)
	if err != nil {
		return err
	}
	e.node("Expand", n.Name, []string{in[0], s}, []string{out})
	return nil
}

// argReduce writes ArgMax or ArgMin (first index on ties, as MXNet),
// cast to the data's dtype as MXNet returns it. With axis None the data
// is flattened first, giving shape (1,), or all ones with keepdims.
func argReduce(opType string) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		a, err := attrs[ops.ArgReduceAttrs](n)
		if err != nil {
			return err
		}
		to, err := elemType(n.Inputs[0].DType())
		if err != nil {
			return err
		}
		x, axis, keep := in[0], a.Axis.Value, a.Keepdims
		if !a.Axis.Valid {
			s, err := e.int64Const(n, "flat_shape", []int64{-1})
			if err != nil {
				return err
			}
			x, axis, keep = e.temp(n, "flat"), 0, true
			e.node("Reshape", n.Name+"_flat", []string{in[0], s}, []string{x})
		}
		idx := e.temp(n, "index")
		e.node(opType, n.Name+"_index", []string{x}, []string{idx}, attrInt("axis", axis), attrInt("keepdims", b2i(keep)))
		if !a.Axis.Valid && a.Keepdims {
			s, err := e.int64Const(n, "shape", filled(rank(n, 0), 1))
			if err != nil {
				return err
			}
			shaped := e.temp(n, "shaped")
			e.node("Reshape", n.Name+"_shaped", []string{idx, s}, []string{shaped})
			idx = shaped
		}
		e.node("Cast", n.Name, []string{idx}, []string{out}, attrInt("to", int(to)))
		return nil
	}
}

// sliceChannel writes Split into equal parts (its default at opsets
// 13..17), each squeezed with squeeze_axis.
func sliceChannel(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SliceChannelAttrs](n)
	if err != nil {
		return err
	}
	parts := make([]string, a.NumOutputs)
	for i := range parts {
		switch {
		case a.SqueezeAxis:
			parts[i] = e.temp(n, fmt.Sprintf("part%d", i))
		case i == 0:
			parts[i] = out
		default:
			parts[i] = e.unique(fmt.Sprintf("%s_output%d", n.Name, i))
		}
	}
	e.node("Split", n.Name+"_split", in, parts, attrInt("axis", a.Axis))
	axes := ""
	if a.SqueezeAxis {
		if axes, err = e.int64Const(n, "axes", []int64{int64(a.Axis)}); err != nil {
			return err
		}
	}
	for i, p := range parts {
		name := p
		if a.SqueezeAxis {
			name = out
			if i > 0 {
				name = e.unique(fmt.Sprintf("%s_output%d", n.Name, i))
			}
			e.node("Squeeze", fmt.Sprintf("%s_squeeze%d", n.Name, i), []string{p, axes}, []string{name})
		}
		e.names[graph.Entry{Node: n, Index: i}] = name
	}
	return nil
}

// created writes the arrays of _zeros, _ones, _full, _arange and _eye,
// which have no inputs, as initializers holding their values.
func created(e *exporter, n *graph.Node, _ []string, out string) error {
	res, err := eager.F.Apply(n.Op, n.Attrs)
	if err != nil {
		return err
	}
	value := e.temp(n, "value")
	t, err := tensorOf(value, res[0].(*eager.NDArray))
	if err != nil {
		return err
	}
	e.g.Initializers = append(e.g.Initializers, t)
	e.node("Identity", n.Name, []string{value}, []string{out})
	return nil
}
