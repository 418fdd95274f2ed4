package onnx

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// A converter writes the ONNX nodes for one hybridgo node: in are the
// ONNX names of its inputs, out the name its first output must get.
type converter struct {
	onnx string // what is written, for Mapping and `hybridgo ops`
	fn   func(e *exporter, n *graph.Node, in []string, out string) error
}

// converters maps MXNet op names to their ONNX export.
var converters = map[string]converter{
	"FullyConnected": {"Gemm (Flatten+Gemm on >2-D data; Transpose+MatMul+Add with flatten=False)", fullyConnected},
	"Convolution":    {"Conv", convolution},
	"Pooling":        {"MaxPool, AveragePool, GlobalMaxPool or GlobalAveragePool", pooling},
	"Activation":     {"Relu, Sigmoid, Tanh, Softplus (softrelu) or Softsign", activation},
	"LeakyReLU":      {"LeakyRelu, PRelu, Elu or Selu", leakyReLU},
	"BatchNorm":      {"BatchNormalization (inference: the moving statistics)", batchNorm},
	"Flatten":        {"Flatten", flatten},
	"Reshape":        {"Reshape (codes 0 and -1; -2, -3, -4 are refused)", reshape},
	"softmax":        {"Softmax", softmaxOf("Softmax")},
	"log_softmax":    {"LogSoftmax", softmaxOf("LogSoftmax")},
	"Dropout":        {"Identity (inference)", dropout},
	"Concat":         {"Concat", concat},
	"clip":           {"Clip", clip},
	"transpose":      {"Transpose", transpose},
	"dot":            {"Gemm (2-D) or MatMul", dot},
	"add_n":          {"Sum", simple("Sum")},
	"SoftmaxOutput":  {"Softmax (inference; Flatten+Softmax+Reshape over the dims after the first)", softmaxOutput},
	"Embedding":      {"Clip+Cast+Gather", embedding},
	"take":           {"Clip+Cast+Gather (mode clip)", take},
	"slice":          {"Slice", slice},
	"slice_axis":     {"Slice", sliceAxis},
	"sum":            {"ReduceSum", reduction("ReduceSum")},
	"mean":           {"ReduceMean", reduction("ReduceMean")},
	"max":            {"ReduceMax", reduction("ReduceMax")},
	"min":            {"ReduceMin", reduction("ReduceMin")},
	"prod":           {"ReduceProd", reduction("ReduceProd")},
	"Deconvolution":  {"ConvTranspose (target_shape as pads and output_padding)", deconvolution},
	"LayerNorm":      {"ReduceMean, Sub, Mul, Sqrt, Div and Add (any opset)", layerNorm},
	"batch_dot":      {"MatMul (Transpose for transpose_a, transpose_b)", batchDot},
	"Cast":           {"Cast", cast},
	"expand_dims":    {"Unsqueeze", expandDims},
	"squeeze":        {"Squeeze", squeeze},
	"square":         {"Mul", square},
	"rsqrt":          {"Sqrt+Reciprocal", rsqrt},
	"stack":          {"Unsqueeze+Concat", stack},
	"tile":           {"Tile", tile},
	"repeat":         {"Unsqueeze+Tile+Reshape", repeat},
	"where":          {"Cast+Where", where},
	"broadcast_to":   {"Expand", broadcastTo},
	"argmax":         {"ArgMax+Cast", argReduce("ArgMax")},
	"argmin":         {"ArgMin+Cast", argReduce("ArgMin")},
	"SliceChannel":   {"Split (Squeeze with squeeze_axis)", sliceChannel},
	"_zeros":         {"an initializer holding the values", created},
	"_ones":          {"an initializer holding the values", created},
	"_full":          {"an initializer holding the values", created},
	"_arange":        {"an initializer holding the values", created},
	"_eye":           {"an initializer holding the values", created},

	"elemwise_add": {"Add", simple("Add")}, "broadcast_add": {"Add", simple("Add")},
	"elemwise_sub": {"Sub", simple("Sub")}, "broadcast_sub": {"Sub", simple("Sub")},
	"elemwise_mul": {"Mul", simple("Mul")}, "broadcast_mul": {"Mul", simple("Mul")},
	"elemwise_div": {"Div", simple("Div")}, "broadcast_div": {"Div", simple("Div")},
	"broadcast_maximum": {"Max", simple("Max")},
	"broadcast_minimum": {"Min", simple("Min")},
	"broadcast_power":   {"Pow", simple("Pow")},

	"relu": {"Relu", simple("Relu")}, "sigmoid": {"Sigmoid", simple("Sigmoid")},
	"tanh": {"Tanh", simple("Tanh")}, "softsign": {"Softsign", simple("Softsign")},
	"exp": {"Exp", simple("Exp")}, "log": {"Log", simple("Log")},
	"sqrt": {"Sqrt", simple("Sqrt")}, "abs": {"Abs", simple("Abs")},
	"negative": {"Neg", simple("Neg")}, "reciprocal": {"Reciprocal", simple("Reciprocal")},
	"floor": {"Floor", simple("Floor")}, "ceil": {"Ceil", simple("Ceil")},
	"erf": {"Erf", simple("Erf")}, "sign": {"Sign", simple("Sign")},
	"_copy": {"Identity", simple("Identity")}, "BlockGrad": {"Identity", simple("Identity")},

	"_plus_scalar":    {"Add with a constant", scalarOp("Add", false)},
	"_minus_scalar":   {"Sub with a constant", scalarOp("Sub", false)},
	"_rminus_scalar":  {"Sub from a constant", scalarOp("Sub", true)},
	"_mul_scalar":     {"Mul with a constant", scalarOp("Mul", false)},
	"_div_scalar":     {"Div by a constant", scalarOp("Div", false)},
	"_rdiv_scalar":    {"Div of a constant", scalarOp("Div", true)},
	"_power_scalar":   {"Pow with a constant", scalarOp("Pow", false)},
	"_maximum_scalar": {"Max with a constant", scalarOp("Max", false)},
	"_minimum_scalar": {"Min with a constant", scalarOp("Min", false)},
}

// The layer ops fused with relu by graph.FuseActivation exist only inside
// compiled executables, and saved or traced graphs hold the two ops they
// came from; should one reach Export it is written unfused, as the layer
// and a Relu.
var fusedConverters = map[string]func(e *exporter, n *graph.Node, in []string, out string) error{
	"_fused_Convolution_relu":    convolution,
	"_fused_FullyConnected_relu": fullyConnected,
}

// convert writes the ONNX nodes of one hybridgo node.
func (e *exporter) convert(n *graph.Node) error {
	in := make([]string, len(n.Inputs))
	for i, x := range n.Inputs {
		name, err := e.value(x)
		if err != nil {
			return err
		}
		in[i] = name
	}
	out := e.unique(n.Name)
	if layer, ok := fusedConverters[n.Op.Name()]; ok {
		pre := e.temp(n, "prerelu")
		if err := layer(e, n, in, pre); err != nil {
			return err
		}
		e.node("Relu", n.Name+"_relu", []string{pre}, []string{out})
	} else {
		c, ok := converters[n.Op.Name()]
		if !ok {
			return fmt.Errorf("op %s has no ONNX export (the ops that have: %s)", n.Op.Name(), strings.Join(Supported(), ", "))
		}
		if err := c.fn(e, n, in, out); err != nil {
			return err
		}
	}
	e.names[graph.Entry{Node: n}] = out
	return nil
}

// attrs returns the node's attributes as *T, or an error for a node whose
// attributes are of another type.
func attrs[T any](n *graph.Node) (*T, error) {
	a, ok := n.Attrs.(*T)
	if !ok {
		return nil, fmt.Errorf("attributes of type %T, expected %T", n.Attrs, a)
	}
	return a, nil
}

// rank is the number of dims of input i, or -1 if unknown.
func rank(n *graph.Node, i int) int {
	s := n.Inputs[i].Shape()
	if s == nil {
		return -1
	}
	return len(s)
}

// simple maps an op to one ONNX op on the same inputs, with no attributes.
func simple(opType string) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		e.node(opType, n.Name, in, []string{out})
		return nil
	}
}

func fullyConnected(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.FullyConnectedAttrs](n)
	if err != nil {
		return err
	}
	if !a.NoBias && rank(n, 2) == 2 {
		// A bias of (num_hidden, 1), which MXNet takes too, as (num_hidden,).
		s, err := e.int64Const(n, "bias_shape", []int64{-1})
		if err != nil {
			return err
		}
		b := e.temp(n, "bias")
		e.node("Reshape", n.Name+"_bias", []string{in[2], s}, []string{b})
		in = append(in[:2:2], b)
	}
	if !a.Flatten {
		// y = x · Wᵀ + b on the last axis, any rank.
		wt := e.temp(n, "weight_t")
		e.node("Transpose", n.Name+"_weight_t", in[1:2], []string{wt}, attrInts("perm", []int{1, 0}))
		if a.NoBias {
			e.node("MatMul", n.Name, []string{in[0], wt}, []string{out})
			return nil
		}
		mm := e.temp(n, "matmul")
		e.node("MatMul", n.Name+"_matmul", []string{in[0], wt}, []string{mm})
		e.node("Add", n.Name, []string{mm, in[2]}, []string{out})
		return nil
	}
	x := in[0]
	if rank(n, 0) != 2 {
		x = e.temp(n, "flatten")
		e.node("Flatten", n.Name+"_flatten", in[:1], []string{x}, attrInt("axis", 1))
	}
	e.node("Gemm", n.Name, append([]string{x}, in[1:]...), []string{out}, attrInt("transB", 1))
	return nil
}

// spatial returns t, or def repeated k times when t is empty.
func spatial(t ops.Tuple, k, def int) []int {
	if len(t) > 0 {
		return t
	}
	s := make([]int, k)
	for i := range s {
		s[i] = def
	}
	return s
}

// pads turns MXNet's symmetric pad into ONNX's begins then ends.
func pads(pad []int) []int { return append(append([]int{}, pad...), pad...) }

func checkLayout(layout string) error {
	switch layout {
	case "None", "", "NCW", "NCHW", "NCDHW":
		return nil
	}
	return fmt.Errorf("layout %s has no ONNX export (ONNX is channels-first)", layout)
}

func convolution(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ConvolutionAttrs](n)
	if err != nil {
		return err
	}
	if err := checkLayout(a.Layout); err != nil {
		return err
	}
	k := len(a.Kernel)
	e.node("Conv", n.Name, in, []string{out},
		attrInts("kernel_shape", a.Kernel),
		attrInts("strides", spatial(a.Stride, k, 1)),
		attrInts("pads", pads(spatial(a.Pad, k, 0))),
		attrInts("dilations", spatial(a.Dilate, k, 1)),
		attrInt("group", a.NumGroup))
	return nil
}

func pooling(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.PoolingAttrs](n)
	if err != nil {
		return err
	}
	if err := checkLayout(a.Layout); err != nil {
		return err
	}
	var opType string
	switch a.PoolType {
	case "max":
		opType = "MaxPool"
	case "avg":
		opType = "AveragePool"
	default:
		return fmt.Errorf("pool_type %s has no ONNX export (max and avg have)", a.PoolType)
	}
	if a.GlobalPool {
		e.node("Global"+opType, n.Name, in, []string{out})
		return nil
	}
	ceil := 0
	switch a.PoolingConvention {
	case "full":
		ceil = 1
	case "same":
		return fmt.Errorf("pooling_convention same has no ONNX export")
	}
	k := len(a.Kernel)
	list := []*Attribute{
		attrInts("kernel_shape", a.Kernel),
		attrInts("strides", spatial(a.Stride, k, 1)),
		attrInts("pads", pads(spatial(a.Pad, k, 0))),
		attrInt("ceil_mode", ceil),
	}
	if opType == "AveragePool" {
		include := 0
		if a.CountIncludePad {
			include = 1
		}
		list = append(list, attrInt("count_include_pad", include))
	}
	e.node(opType, n.Name, in, []string{out}, list...)
	return nil
}

func activation(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ActivationAttrs](n)
	if err != nil {
		return err
	}
	opType, ok := map[string]string{"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus", "softsign": "Softsign"}[a.ActType]
	if !ok {
		return fmt.Errorf("act_type %s has no ONNX export (relu, sigmoid, tanh, softrelu and softsign have)", a.ActType)
	}
	e.node(opType, n.Name, in, []string{out})
	return nil
}

func leakyReLU(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.LeakyReLUAttrs](n)
	if err != nil {
		return err
	}
	switch a.ActType {
	case "leaky":
		e.node("LeakyRelu", n.Name, in[:1], []string{out}, attrFloat("alpha", a.Slope))
	case "elu":
		e.node("Elu", n.Name, in[:1], []string{out}, attrFloat("alpha", a.Slope))
	case "selu":
		e.node("Selu", n.Name, in[:1], []string{out}) // ONNX's default constants are MXNet's
	case "prelu":
		// MXNet's gamma (C,) scales axis 1; ONNX broadcasts the slope from
		// the right, so it is reshaped to (C, 1, …, 1).
		r := rank(n, 0)
		if r < 2 {
			return fmt.Errorf("prelu needs data of known rank >= 2")
		}
		slope := in[1]
		if r > 2 {
			shape := filled(r-1, 1)
			shape[0] = -1
			s, err := e.int64Const(n, "slope_shape", shape)
			if err != nil {
				return err
			}
			slope = e.temp(n, "slope")
			e.node("Reshape", n.Name+"_slope", []string{in[1], s}, []string{slope})
		}
		e.node("PRelu", n.Name, []string{in[0], slope}, []string{out})
	default:
		return fmt.Errorf("act_type %s has no ONNX export (leaky, prelu, elu and selu have)", a.ActType)
	}
	return nil
}

func batchNorm(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.BatchNormAttrs](n)
	if err != nil {
		return err
	}
	if a.Axis != 1 {
		return fmt.Errorf("axis %d has no ONNX export (BatchNormalization normalises axis 1)", a.Axis)
	}
	if a.OutputMeanVar {
		return fmt.Errorf("output_mean_var has no ONNX export")
	}
	gamma := in[1]
	if a.FixGamma {
		// MXNet ignores gamma and uses 1.
		s := n.Inputs[1].Shape()
		if len(s) != 1 || s[0] <= 0 {
			return fmt.Errorf("fix_gamma needs gamma of known shape (C,), got %v", s)
		}
		ones := make([]float32, s[0])
		for i := range ones {
			ones[i] = 1
		}
		if gamma, err = e.constant(n.Name+"_gamma_ones", ones, s[0]); err != nil {
			return err
		}
	}
	e.node("BatchNormalization", n.Name, []string{in[0], gamma, in[2], in[3], in[4]}, []string{out},
		attrFloat("epsilon", a.Eps), attrFloat("momentum", a.Momentum))
	return nil
}

func flatten(e *exporter, n *graph.Node, in []string, out string) error {
	e.node("Flatten", n.Name, in, []string{out}, attrInt("axis", 1))
	return nil
}

func reshape(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ReshapeAttrs](n)
	if err != nil {
		return err
	}
	if a.Reverse || len(a.TargetShape) > 0 {
		return fmt.Errorf("reverse and target_shape have no ONNX export")
	}
	shape := make([]int64, len(a.Shape))
	for i, d := range a.Shape {
		if d < -1 {
			return fmt.Errorf("shape %v: code %d has no ONNX export (ONNX's Reshape knows 0, copy a dim, and -1, infer it; write the dims out)", a.Shape, d)
		}
		shape[i] = int64(d)
	}
	s, err := e.constant(n.Name+"_shape", shape, len(shape))
	if err != nil {
		return err
	}
	e.node("Reshape", n.Name, []string{in[0], s}, []string{out})
	return nil
}

func softmaxOf(opType string) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		a, err := attrs[ops.SoftmaxAttrs](n)
		if err != nil {
			return err
		}
		if a.UseLength {
			return fmt.Errorf("use_length has no ONNX export")
		}
		x := in[0]
		if a.Temperature.Valid && a.Temperature.Value != 1 {
			t, err := e.scalar(n.Name+"_temperature", a.Temperature.Value, n.Inputs[0].DType())
			if err != nil {
				return err
			}
			x = e.temp(n, "scaled")
			e.node("Div", n.Name+"_scaled", []string{in[0], t}, []string{x})
		}
		e.node(opType, n.Name, []string{x}, []string{out}, attrInt("axis", a.Axis))
		return nil
	}
}

func dropout(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.DropoutAttrs](n)
	if err != nil {
		return err
	}
	if a.Mode == "always" {
		return fmt.Errorf("mode always drops at inference, which has no ONNX export")
	}
	e.node("Identity", n.Name, in, []string{out})
	return nil
}

func concat(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ConcatAttrs](n)
	if err != nil {
		return err
	}
	e.node("Concat", n.Name, in, []string{out}, attrInt("axis", a.Dim))
	return nil
}

func clip(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.ClipAttrs](n)
	if err != nil {
		return err
	}
	lo, err := e.scalar(n.Name+"_min", a.AMin, n.Inputs[0].DType())
	if err != nil {
		return err
	}
	hi, err := e.scalar(n.Name+"_max", a.AMax, n.Inputs[0].DType())
	if err != nil {
		return err
	}
	e.node("Clip", n.Name, []string{in[0], lo, hi}, []string{out})
	return nil
}

func transpose(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.TransposeAttrs](n)
	if err != nil {
		return err
	}
	var list []*Attribute
	if len(a.Axes) > 0 { // () reverses the axes, as ONNX's default perm does
		perm := make([]int, len(a.Axes))
		r := len(a.Axes)
		for i, ax := range a.Axes {
			if ax < 0 {
				ax += r
			}
			perm[i] = ax
		}
		list = append(list, attrInts("perm", perm))
	}
	e.node("Transpose", n.Name, in, []string{out}, list...)
	return nil
}

func dot(e *exporter, n *graph.Node, in []string, out string) error {
	a, err := attrs[ops.DotAttrs](n)
	if err != nil {
		return err
	}
	ra, rb := rank(n, 0), rank(n, 1)
	switch {
	case ra == 2 && rb == 2:
		e.node("Gemm", n.Name, in, []string{out}, attrInt("transA", b2i(a.TransposeA)), attrInt("transB", b2i(a.TransposeB)))
	case ra > 2 && rb == 2 && !a.TransposeA:
		// MXNet's dot contracts the last axis of lhs, as MatMul does when
		// rhs is a matrix.
		b := in[1]
		if a.TransposeB {
			b = e.temp(n, "rhs_t")
			e.node("Transpose", n.Name+"_rhs_t", in[1:2], []string{b}, attrInts("perm", []int{1, 0}))
		}
		e.node("MatMul", n.Name, []string{in[0], b}, []string{out})
	default:
		return fmt.Errorf("dot of ranks %d and %d (transpose_a=%v) has no ONNX export (2-D by 2-D, or N-D by 2-D, have)", ra, rb, a.TransposeA)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scalarOp maps x op scalar (or scalar op x, when reversed) to an ONNX
// binary op with a 0-d constant.
func scalarOp(opType string, reversed bool) func(e *exporter, n *graph.Node, in []string, out string) error {
	return func(e *exporter, n *graph.Node, in []string, out string) error {
		a, err := attrs[ops.ScalarAttrs](n)
		if err != nil {
			return err
		}
		c, err := e.scalar(n.Name+"_scalar", a.Scalar, n.Inputs[0].DType())
		if err != nil {
			return err
		}
		operands := []string{in[0], c}
		if reversed {
			operands = []string{c, in[0]}
		}
		e.node(opType, n.Name, operands, []string{out})
		return nil
	}
}
