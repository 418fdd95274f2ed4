package onnx

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// The converters of more everyday operators (SwapAxis,
// Pad, topk, sort, argsort, _split_v2, gather_nd, scatter_nd, InstanceNorm,
// GroupNorm, L2Normalization, SequenceReverse, UpSampling,
// _contrib_BilinearResize2D): ONNX 13 nodes whose
// meaning is the same up to MaxOpset. Shapes that change with the batch
// are read from the data at run time, so the batch stays dynamic.

func init() {
	for name, c := range map[string]converter{
		"SwapAxis":                  {"Transpose", swapAxis},
		"Pad":                       {"Pad (constant, edge, reflect)", pad},
		"topk":                      {"TopK (Cast of the indices; ret_typ mask is refused)", topK},
		"sort":                      {"TopK over the whole axis", sortOp},
		"argsort":                   {"TopK over the whole axis, then Cast of the indices", argSort},
		"_split_v2":                 {"Split (Squeeze with squeeze_axis)", splitV2},
		"gather_nd":                 {"Transpose+Cast of the indices, then GatherND", gatherND},
		"scatter_nd":                {"ScatterND into zeros (Transpose+Cast of the indices)", scatterND},
		"InstanceNorm":              {"InstanceNormalization", instanceNorm},
		"GroupNorm":                 {"Reshape, InstanceNormalization and Reshape (a scale and shift per group)", groupNorm},
		"UpSampling":                {"Resize (nearest, asymmetric, floor); ConvTranspose (bilinear)", upSampling},
		"L2Normalization":           {"ReduceSumSquare, Add, Sqrt, Div", l2Normalization},
		"SequenceReverse":           {"ReverseSequence (Cast of the lengths); Slice with step -1 without lengths", sequenceReverse},
		"_contrib_BilinearResize2D": {"Resize (linear; align_corners or pytorch_half_pixel)", bilinearResize},
	} {
		converters[name] = c
	}
}

func swapAxis(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SwapAxisAttrs](n)
	if err != nil {
		return err
	}
	r := rank(n, 0)
	d1, err1 := ops.NormAxis(a.Dim1, r)
	d2, err2 := ops.NormAxis(a.Dim2, r)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("dim1=%d, dim2=%d do not fit data of %d dims", a.Dim1, a.Dim2, r)
	}
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	perm[d1], perm[d2] = d2, d1
	e.node("Transpose", n.Name, in, []string{out}, attrInts("perm", perm))
	return nil
}

func pad(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.PadAttrs](n)
	if err != nil {
		return err
	}
	r := len(a.PadWidth) / 2
	pads := make([]int64, 2*r) // ONNX: all the befores, then all the afters
	for d := range r {
		pads[d], pads[r+d] = int64(a.PadWidth[2*d]), int64(a.PadWidth[2*d+1])
	}
	p, err := e.int64Const(n, "pads", pads)
	if err != nil {
		return err
	}
	inputs := []string{in[0], p}
	if a.Mode == "constant" {
		c, err := e.scalar(n.Name+"_value", a.ConstantValue, n.Inputs[0].DType())
		if err != nil {
			return err
		}
		inputs = append(inputs, c)
	}
	e.node("Pad", n.Name, inputs, []string{out}, &Attribute{Name: "mode", Type: AttrString, S: []byte(a.Mode)})
	return nil
}

// topKNode writes TopK of the k largest (smallest when ascending) along
// the axis of data (axis None: of the flattened data) and returns the
// names of its values and indices.
func topKNode(e *exporter, n *graph.Node, data string, axis ops.OptInt, k int, ascending bool) (string, string, error) {
	r := rank(n, 0)
	x, ax := data, 0
	size := 0
	if !axis.Valid {
		s, err := e.int64Const(n, "flat_shape", []int64{-1})
		if err != nil {
			return "", "", err
		}
		x = e.temp(n, "flat")
		e.node("Reshape", n.Name+"_flat", []string{data, s}, []string{x})
		if shape := n.Inputs[0].Shape(); shape.Known() {
			size = shape.Size()
		}
	} else {
		var err error
		if ax, err = ops.NormAxis(axis.Value, r); err != nil {
			return "", "", fmt.Errorf("axis=%d does not fit data of %d dims", axis.Value, r)
		}
		size = n.Inputs[0].Shape()[ax]
	}
	if k < 1 {
		if size == 0 {
			return "", "", fmt.Errorf("sorting the whole axis needs its size, which is not known")
		}
		k = size
	}
	kc, err := e.int64Const(n, "k", []int64{int64(k)})
	if err != nil {
		return "", "", err
	}
	values, indices := e.temp(n, "values"), e.temp(n, "indices")
	e.node("TopK", n.Name+"_topk", []string{x, kc}, []string{values, indices},
		attrInt("axis", ax), attrInt("largest", b2i(!ascending)), attrInt("sorted", 1))
	return values, indices, nil
}

// castIndices writes the Cast of int64 indices to dtype.
func castIndices(e *exporter, n *graph.Node, indices string, dtype ops.DType, out string) error {
	to, err := elemType(dtype)
	if err != nil {
		return err
	}
	e.node("Cast", n.Name+"_cast", []string{indices}, []string{out}, attrInt("to", int(to)))
	return nil
}

func topK(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.TopKAttrs](n)
	if err != nil {
		return err
	}
	if a.RetTyp == "mask" {
		return fmt.Errorf("topk with ret_typ mask has no ONNX export")
	}
	values, indices, err := topKNode(e, n, in[0], a.Axis, a.K, a.IsAscend)
	if err != nil {
		return err
	}
	switch a.RetTyp {
	case "value":
		e.node("Identity", n.Name, []string{values}, []string{out})
	case "indices":
		return castIndices(e, n, indices, a.DType, out)
	default: // both
		e.node("Identity", n.Name, []string{values}, []string{out})
		second := e.unique(n.Name + "_output1")
		if err := castIndices(e, n, indices, a.DType, second); err != nil {
			return err
		}
		e.names[graph.Entry{Node: n, Index: 1}] = second
	}
	return nil
}

func sortOp(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SortAttrs](n)
	if err != nil {
		return err
	}
	values, _, err := topKNode(e, n, in[0], a.Axis, 0, a.IsAscend)
	if err != nil {
		return err
	}
	e.node("Identity", n.Name, []string{values}, []string{out})
	return nil
}

func argSort(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ArgSortAttrs](n)
	if err != nil {
		return err
	}
	_, indices, err := topKNode(e, n, in[0], a.Axis, 0, a.IsAscend)
	if err != nil {
		return err
	}
	return castIndices(e, n, indices, a.DType, out)
}

// splitV2 writes Split at the parts' sizes (a part before the first
// index, which _split_v2 drops, is split off and left unread).
func splitV2(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SplitV2Attrs](n)
	if err != nil {
		return err
	}
	shape, err := knownShape(n, 0, "_split_v2")
	if err != nil {
		return err
	}
	ax, err := ops.NormAxis(a.Axis, len(shape))
	if err != nil {
		return err
	}
	outShapes, _, err := n.Op.InferShape(n.Attrs, []ops.Shape{shape})
	if err != nil {
		return err
	}
	var sizes []int64
	var starts []int
	if a.Sections > 0 {
		for range a.Sections {
			sizes = append(sizes, int64(shape[ax]/a.Sections))
		}
	} else {
		starts = a.Indices
		if starts[0] > 0 {
			sizes = append(sizes, int64(starts[0]))
		}
		for i, s := range starts {
			end := shape[ax]
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			sizes = append(sizes, int64(end-s))
		}
	}
	skip := len(sizes) - len(outShapes)
	split, err := e.int64Const(n, "split", sizes)
	if err != nil {
		return err
	}
	parts := make([]string, len(sizes))
	for i := range parts {
		parts[i] = e.temp(n, fmt.Sprintf("part%d", i))
	}
	e.node("Split", n.Name+"_split", []string{in[0], split}, parts, attrInt("axis", ax))
	axes := ""
	if a.SqueezeAxis {
		if axes, err = e.int64Const(n, "axes", []int64{int64(ax)}); err != nil {
			return err
		}
	}
	for i := range outShapes {
		name := out
		if i > 0 {
			name = e.unique(fmt.Sprintf("%s_output%d", n.Name, i))
		}
		if a.SqueezeAxis {
			e.node("Squeeze", fmt.Sprintf("%s_squeeze%d", n.Name, i), []string{parts[skip+i], axes}, []string{name})
		} else {
			e.node("Identity", fmt.Sprintf("%s_part%d", n.Name, i), []string{parts[skip+i]}, []string{name})
		}
		e.names[graph.Entry{Node: n, Index: i}] = name
	}
	return nil
}

// onnxIndices writes MXNet's indices (M, …) of node n's input 1 as
// ONNX's (…, M) int64, each coordinate tuple on the last axis.
func onnxIndices(e *exporter, n *graph.Node, indices string) (string, error) {
	r := rank(n, 1)
	if r < 1 {
		return "", fmt.Errorf("%s needs the rank of its indices, which is unknown", n.Op.Name())
	}
	perm := make([]int, r)
	for i := range r - 1 {
		perm[i] = i + 1
	}
	idx, cast := e.temp(n, "indices"), e.temp(n, "indices_int64")
	e.node("Transpose", n.Name+"_indices", []string{indices}, []string{idx}, attrInts("perm", perm))
	e.node("Cast", n.Name+"_indices_int64", []string{idx}, []string{cast}, attrInt("to", 7)) // INT64
	return cast, nil
}

// gatherND writes GatherND.
func gatherND(e *exporter, n *graph.Node, in []string, out string) error {
	idx, err := onnxIndices(e, n, in[1])
	if err != nil {
		return err
	}
	e.node("GatherND", n.Name, []string{in[0], idx}, []string{out})
	return nil
}

// scatterND writes ScatterND of the data into zeros of the result's shape.
func scatterND(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ScatterNDAttrs](n)
	if err != nil {
		return err
	}
	shape := ops.Shape(a.Shape)
	var zeros any
	switch d := n.Inputs[0].DType(); d {
	case ops.Float32, ops.Unknown:
		zeros = make([]float32, shape.Size())
	case ops.Float64:
		zeros = make([]float64, shape.Size())
	default:
		return fmt.Errorf("scatter_nd of %v data has no ONNX export (float32 and float64 have)", d)
	}
	base, err := e.constant(n.Name+"_zeros", zeros, shape...)
	if err != nil {
		return err
	}
	idx, err := onnxIndices(e, n, in[1])
	if err != nil {
		return err
	}
	e.node("ScatterND", n.Name, []string{base, idx, in[0]}, []string{out})
	return nil
}

func instanceNorm(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.InstanceNormAttrs](n)
	if err != nil {
		return err
	}
	e.node("InstanceNormalization", n.Name, in, []string{out}, attrFloat("epsilon", a.Eps))
	return nil
}

// groupNorm writes the data as (N, groups, rest), normalised per group
// by InstanceNormalization with the per-group gamma and beta, then given
// its shape back.
func groupNorm(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.GroupNormAttrs](n)
	if err != nil {
		return err
	}
	if a.OutputMeanVar {
		return fmt.Errorf("output_mean_var has no ONNX export")
	}
	s, err := e.int64Const(n, "group_shape", []int64{0, int64(a.NumGroups), -1})
	if err != nil {
		return err
	}
	grouped, normed, shape := e.temp(n, "grouped"), e.temp(n, "normed"), e.temp(n, "shape")
	e.node("Reshape", n.Name+"_grouped", []string{in[0], s}, []string{grouped})
	e.node("InstanceNormalization", n.Name+"_normed", []string{grouped, in[1], in[2]}, []string{normed}, attrFloat("epsilon", a.Eps))
	e.node("Shape", n.Name+"_shape", in[:1], []string{shape})
	e.node("Reshape", n.Name, []string{normed, shape}, []string{out})
	return nil
}

func upSampling(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.UpSamplingAttrs](n)
	if err != nil {
		return err
	}
	if a.SampleType == "bilinear" { // a Deconvolution of each channel by its weight
		k, p := 2*a.Scale-a.Scale%2, a.Scale/2
		e.node("ConvTranspose", n.Name, in, []string{out},
			attrInts("kernel_shape", []int{k, k}),
			attrInts("strides", []int{a.Scale, a.Scale}),
			attrInts("pads", []int{p, p, p, p}),
			attrInt("group", a.NumFilter))
		return nil
	}
	s := float32(a.Scale)
	scales, err := e.constant(n.Name+"_scales", []float32{1, 1, s, s}, 4)
	if err != nil {
		return err
	}
	e.node("Resize", n.Name, []string{in[0], "", scales}, []string{out},
		&Attribute{Name: "mode", Type: AttrString, S: []byte("nearest")},
		&Attribute{Name: "coordinate_transformation_mode", Type: AttrString, S: []byte("asymmetric")},
		&Attribute{Name: "nearest_mode", Type: AttrString, S: []byte("floor")})
	return nil
}

// bilinearResize writes Resize to the output's height and width, the
// batch and channels read from the data.
func bilinearResize(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.BilinearResize2DAttrs](n)
	if err != nil {
		return err
	}
	shapes := make([]ops.Shape, len(n.Inputs))
	for i, x := range n.Inputs {
		shapes[i] = x.Shape()
	}
	outShapes, _, err := n.Op.InferShape(n.Attrs, shapes)
	if err != nil {
		return err
	}
	o := outShapes[0]
	if len(o) != 4 || o[2] == 0 || o[3] == 0 {
		return fmt.Errorf("the output's height and width must be known, got %v", o)
	}
	shape, nc, sizes := e.temp(n, "shape"), e.temp(n, "batch_channels"), e.temp(n, "sizes")
	hw, err := e.int64Const(n, "hw", []int64{int64(o[2]), int64(o[3])})
	if err != nil {
		return err
	}
	starts, err := e.int64Const(n, "starts", []int64{0})
	if err != nil {
		return err
	}
	ends, err := e.int64Const(n, "ends", []int64{2})
	if err != nil {
		return err
	}
	e.node("Shape", n.Name+"_shape", in[:1], []string{shape})
	e.node("Slice", n.Name+"_batch_channels", []string{shape, starts, ends}, []string{nc})
	e.node("Concat", n.Name+"_sizes", []string{nc, hw}, []string{sizes}, attrInt("axis", 0))
	mode := "pytorch_half_pixel"
	if a.AlignCorners {
		mode = "align_corners"
	}
	e.node("Resize", n.Name, []string{in[0], "", "", sizes}, []string{out},
		&Attribute{Name: "mode", Type: AttrString, S: []byte("linear")},
		&Attribute{Name: "coordinate_transformation_mode", Type: AttrString, S: []byte(mode)})
	return nil
}

func l2Normalization(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.L2NormalizationAttrs](n)
	if err != nil {
		return err
	}
	r := rank(n, 0)
	var axes []int
	switch a.Mode {
	case "instance":
		axes = spanInts(1, r)
	case "channel":
		axes = []int{1}
	default:
		axes = spanInts(2, r)
	}
	eps, err := e.scalar(n.Name+"_eps", a.Eps, n.Inputs[0].DType())
	if err != nil {
		return err
	}
	sum, shifted, norm := e.temp(n, "sum_square"), e.temp(n, "sum_eps"), e.temp(n, "norm")
	e.node("ReduceSumSquare", n.Name+"_sum_square", in[:1], []string{sum}, attrInts("axes", axes), attrInt("keepdims", 1))
	e.node("Add", n.Name+"_sum_eps", []string{sum, eps}, []string{shifted})
	e.node("Sqrt", n.Name+"_norm", []string{shifted}, []string{norm})
	e.node("Div", n.Name, []string{in[0], norm}, []string{out})
	return nil
}

func spanInts(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// sequenceReverse writes ReverseSequence (time axis 0, batch axis 1) with
// the lengths, or the whole time axis reversed by a Slice without them.
func sequenceReverse(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.SequenceLastAttrs](n)
	if err != nil {
		return err
	}
	if !a.UseSequenceLength {
		return sliceNode(e, n, in[0], []int64{-1}, []int64{math.MinInt64}, []int64{0}, []int64{-1}, out)
	}
	lens := e.temp(n, "lengths")
	e.node("Cast", n.Name+"_lengths", in[1:2], []string{lens}, attrInt("to", 7)) // INT64
	e.node("ReverseSequence", n.Name, []string{in[0], lens}, []string{out}, attrInt("batch_axis", 1), attrInt("time_axis", 0))
	return nil
}
