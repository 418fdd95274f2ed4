package onnx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
)

// An importer converts the node being built (b.node) and sets its
// output.
type importer struct {
	mxnet string // what it becomes, for ImportOps and `hybridgo ops`
	fn    func(b *builder) error
}

// importers maps ONNX op types to their conversion.
var importers map[string]importer

func init() {
	importers = map[string]importer{
		"Conv":               {"Convolution (symmetric pads; auto_pad NOTSET or VALID)", conv},
		"ConvTranspose":      {"Deconvolution (symmetric pads; output_padding as adj)", convTranspose},
		"Gemm":               {"FullyConnected for a constant B; dot, scalar multiplies and broadcast_add otherwise", gemm},
		"MatMul":             {"FullyConnected (flatten=False) for a constant 2-D B; dot or batch_dot otherwise", matMul},
		"BatchNormalization": {"BatchNorm (fix_gamma=False)", batchNormalization},
		"MaxPool":            {"Pooling (max; ceil_mode as pooling_convention=full)", pool("max")},
		"AveragePool":        {"Pooling (avg; count_include_pad)", pool("avg")},
		"GlobalAveragePool":  {"Pooling (global_pool, avg)", globalPool("avg")},
		"GlobalMaxPool":      {"Pooling (global_pool, max)", globalPool("max")},
		"Relu":               {"Activation (relu)", activationOf("relu")},
		"Sigmoid":            {"Activation (sigmoid)", activationOf("sigmoid")},
		"Tanh":               {"Activation (tanh)", activationOf("tanh")},
		"Softplus":           {"Activation (softrelu)", activationOf("softrelu")},
		"Softsign":           {"Activation (softsign)", activationOf("softsign")},
		"LeakyRelu":          {"LeakyReLU (leaky)", leaky("leaky", "alpha", 0.01)},
		"Elu":                {"LeakyReLU (elu)", leaky("elu", "alpha", 1)},
		"PRelu":              {"LeakyReLU (prelu) with a per-channel slope", pRelu},
		"HardSigmoid":        {"_mul_scalar, _plus_scalar, clip", hardSigmoid},
		"HardSwish":          {"_mul_scalar, _plus_scalar, clip, elemwise_mul", hardSwish},
		"Clip":               {"clip", clipOp},
		"Flatten":            {"Flatten (axis 1) or Reshape", flattenOp},
		"Reshape":            {"Reshape (0 copies a dim, -1 infers one)", reshapeOp},
		"Transpose":          {"transpose", transposeOp},
		"Concat":             {"Concat", concatOp},
		"Softmax":            {"softmax", softmaxImport("softmax")},
		"LogSoftmax":         {"log_softmax", softmaxImport("log_softmax")},
		"Dropout":            {"Dropout (identity outside training)", dropoutOp},
		"Identity":           {"the same value (a copy of a constant)", identity},
		"Pad":                {"the pad of the Conv or AveragePool it feeds (zeros, the same at both ends of the spatial dims); Pad otherwise; nothing when every pad is 0", padOp},
		"Constant":           {"a constant, folded into the ops that use it", constantOp},
		"Shape":              {"a shape worked out at import", shapeOp},
		"Gather":             {"Embedding for a constant 2-D table; take; or a shape worked out at import", gather},
		"Unsqueeze":          {"expand_dims", unsqueeze},
		"Squeeze":            {"squeeze", squeezeOp},
		"Cast":               {"Cast", castOp},
		"Tile":               {"tile", tileOp},
		"Expand":             {"broadcast_to (expand_dims first for new leading dims)", expandOp},
		"Where":              {"where", whereOp},
		"Split":              {"SliceChannel for equal parts; slice_axis otherwise", splitOp},
		"ArgMax":             {"argmax and a Cast to int64", argOp("argmax")},
		"ArgMin":             {"argmin and a Cast to int64", argOp("argmin")},
		"Selu":               {"LeakyReLU (selu; the default alpha and gamma)", selu},
		"Slice":              {"slice (or a shape worked out at import)", sliceOp},
		"ReduceMean":         {"mean", reduce("mean")},
		"ReduceSum":          {"sum", reduce("sum")},
		"ReduceMax":          {"max", reduce("max")},
		"ReduceMin":          {"min", reduce("min")},
		"ReduceProd":         {"prod", reduce("prod")},
		"Sum":                {"broadcast_add", variadic("broadcast_add")},
		"Max":                {"broadcast_maximum (_maximum_scalar with a constant)", arith("broadcast_maximum", "_maximum_scalar", "_maximum_scalar")},
		"Min":                {"broadcast_minimum (_minimum_scalar with a constant)", arith("broadcast_minimum", "_minimum_scalar", "_minimum_scalar")},
		"Add":                {"broadcast_add (_plus_scalar with a constant)", arith("broadcast_add", "_plus_scalar", "_plus_scalar")},
		"Sub":                {"broadcast_sub (_minus_scalar, _rminus_scalar)", arith("broadcast_sub", "_minus_scalar", "_rminus_scalar")},
		"Mul":                {"broadcast_mul (_mul_scalar with a constant)", arith("broadcast_mul", "_mul_scalar", "_mul_scalar")},
		"Div":                {"broadcast_div (_div_scalar, _rdiv_scalar)", arith("broadcast_div", "_div_scalar", "_rdiv_scalar")},
		"Pow":                {"broadcast_power (_power_scalar, _rpower_scalar)", arith("broadcast_power", "_power_scalar", "_rpower_scalar")},

		"InstanceNormalization": {"InstanceNorm", instanceNormalization},
		"GatherND":              {"gather_nd, its indices transposed to hold each coordinate tuple on their first axis (batch_dims 0)", gatherNDOp},
		"ScatterND":             {"scatter_nd, for a ScatterND into a constant of zeros (indices transposed as GatherND's)", scatterNDOp},
		"TopK":                  {"topk (ret_typ both, int64 indices; always sorted)", topKOp},
		"Resize":                {"UpSampling (nearest, an integer scale, asymmetric, floor) or _contrib_BilinearResize2D (linear) of 4-D data", resizeOp},
	}
	for onnxOp, mx := range map[string]string{"Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Abs": "abs", "Neg": "negative",
		"Reciprocal": "reciprocal", "Floor": "floor", "Ceil": "ceil", "Erf": "erf", "Sign": "sign", "Sin": "sin", "Cos": "cos"} {
		importers[onnxOp] = importer{mx, unary(mx)}
	}
}

// ImportOps lists the ONNX op types Import converts, sorted.
func ImportOps() []string {
	names := make([]string, 0, len(importers))
	for name := range importers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// ImportMapping says what Import makes of the ONNX op opType, and whether
// it converts it at all.
func ImportMapping(opType string) (string, bool) {
	c, ok := importers[opType]
	return c.mxnet, ok
}

// convert converts one node.
func (b *builder) convert(n *Node) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return fmt.Errorf("ops of domain %q are not supported", n.Domain)
	}
	c, ok := importers[n.OpType]
	if !ok {
		return fmt.Errorf("op %s has no conversion (the ops that have: %s)", n.OpType, strings.Join(ImportOps(), ", "))
	}
	for i, o := range n.Outputs[min(1, len(n.Outputs)):] {
		if o != "" && n.OpType != "Dropout" && n.OpType != "BatchNormalization" && n.OpType != "Split" && n.OpType != "TopK" {
			return fmt.Errorf("output %d %q: only the first output converts", i+1, o)
		}
	}
	return c.fn(b)
}

// name is the node's name for the graph node that gives its output.
func (b *builder) name() string {
	if b.node.Name != "" {
		return b.node.Name
	}
	return b.node.Outputs[0]
}

// tensors returns the node's first n inputs as tensors of the graph.
func (b *builder) tensors(n int) ([]*graph.Symbol, error) {
	in := make([]*graph.Symbol, n)
	for i := range in {
		var err error
		if in[i], err = b.tensor(i); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// emit applies one op under the node's name and sets the node's output
// to its result.
func (b *builder) emit(opName string, attrs map[string]string, inputs ...*graph.Symbol) error {
	y, err := b.apply(b.name(), opName, attrs, inputs...)
	if err != nil {
		return err
	}
	return b.out(&value{sym: y})
}

// single applies one op to the node's first input and sets the output.
func (b *builder) single(opName string, attrs map[string]string) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	return b.emit(opName, attrs, x)
}

func unary(opName string) func(b *builder) error {
	return func(b *builder) error { return b.single(opName, nil) }
}

func activationOf(act string) func(b *builder) error {
	return func(b *builder) error { return b.single("Activation", map[string]string{"act_type": act}) }
}

func leaky(act, attr string, def float64) func(b *builder) error {
	return func(b *builder) error {
		return b.single("LeakyReLU", map[string]string{"act_type": act, "slope": float(b.attrFloat(attr, def))})
	}
}

func pRelu(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	// MXNet's prelu takes one slope per channel, (C,), where ONNX's
	// broadcasts, (C, 1, 1): a constant slope is stored as (C,), a
	// computed one reshaped by the graph.
	if v, _ := b.get(1); v != nil && v.konst != nil && v.sym == nil {
		s := v.konst.Shape()
		if c := v.konst.Size(); c > 1 && s[0] != c {
			return fmt.Errorf("slope of shape %s: only a slope per channel, (C, 1, 1), converts", s.Tuple())
		}
		v.konst = v.konst.Reshape(v.konst.Size())
	}
	slope, err := b.tensor(1)
	if err != nil {
		return err
	}
	if len(slope.Shape()) != 1 {
		if slope, err = b.apply(b.name()+"_slope", "Reshape", map[string]string{"shape": "(-1,)"}, slope); err != nil {
			return err
		}
	}
	return b.emit("LeakyReLU", map[string]string{"act_type": "prelu"}, x, slope)
}

// hardSigmoidOf is max(0, min(1, alpha*x + beta)).
func (b *builder) hardSigmoidOf(x *graph.Symbol, alpha, beta float64, name string) (*graph.Symbol, error) {
	y, err := b.apply(name+"_mul", "_mul_scalar", map[string]string{"scalar": float(alpha)}, x)
	if err != nil {
		return nil, err
	}
	if y, err = b.apply(name+"_add", "_plus_scalar", map[string]string{"scalar": float(beta)}, y); err != nil {
		return nil, err
	}
	return b.apply(name, "clip", map[string]string{"a_min": "0", "a_max": "1"}, y)
}

func hardSigmoid(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	y, err := b.hardSigmoidOf(x, b.attrFloat("alpha", 0.2), b.attrFloat("beta", 0.5), b.name())
	if err != nil {
		return err
	}
	return b.out(&value{sym: y})
}

func hardSwish(b *builder) error {
	x, err := b.tensor(0)
	if err != nil {
		return err
	}
	g, err := b.hardSigmoidOf(x, 1.0/6, 0.5, b.name()+"_gate")
	if err != nil {
		return err
	}
	return b.emit("elemwise_mul", nil, x, g)
}

func clipOp(b *builder) error {
	lo, hi := -math.MaxFloat32, math.MaxFloat32
	if b.opset < 11 {
		lo, hi = b.attrFloat("min", lo), b.attrFloat("max", hi)
	} else {
		for i, bound := range []*float64{&lo, &hi} {
			if v, _ := b.get(i + 1); v == nil {
				continue
			}
			x, ok := b.scalarOf(i + 1)
			if !ok {
				return fmt.Errorf("input %d (the bound) must be a scalar constant", i+1)
			}
			*bound = x
		}
	}
	return b.single("clip", map[string]string{"a_min": float(lo), "a_max": float(hi)})
}

// spatial checks the pads of a convolution or pooling node (symmetric,
// auto_pad NOTSET or VALID) and returns MXNet's kernel, stride, dilate
// and pad for k spatial dims.
func (b *builder) spatial(kernel []int64, k int) (stride, dilate, pad []int64, err error) {
	switch ap := b.attrString("auto_pad", "NOTSET"); ap {
	case "NOTSET", "VALID", "":
	default:
		return nil, nil, nil, fmt.Errorf("auto_pad=%s is not supported (export with explicit pads)", ap)
	}
	ones := func(name string) []int64 {
		if v := b.attrInts(name); v != nil {
			return v
		}
		return slices.Repeat([]int64{1}, k)
	}
	stride, dilate = ones("strides"), ones("dilations")
	pads := b.attrInts("pads")
	if pads == nil {
		pads = make([]int64, 2*k)
	}
	if len(kernel) != k || len(stride) != k || len(dilate) != k || len(pads) != 2*k {
		return nil, nil, nil, fmt.Errorf("kernel_shape %v, strides %v, dilations %v and pads %v do not fit %d spatial dims", kernel, stride, dilate, pads, k)
	}
	if !slices.Equal(pads[:k], pads[k:]) {
		return nil, nil, nil, fmt.Errorf("pads %v differ at the start and the end of a dim, which MXNet's pad cannot say", pads)
	}
	return stride, dilate, pads[:k], nil
}

func conv(b *builder) error { return b.convLike("Convolution", 0) }

func convTranspose(b *builder) error {
	if b.attr("output_shape") != nil {
		return fmt.Errorf("output_shape is not supported (export with pads and output_padding)")
	}
	return b.convLike("Deconvolution", 1)
}

// paddedInput returns input 0 and, when it is the output of a Pad that
// this op may take over (takes), the Pad's spatial padding.
func (b *builder) paddedInput(takes bool) (*graph.Symbol, []int64, error) {
	v, err := b.get(0)
	if err != nil {
		return nil, nil, err
	}
	if v != nil && v.padded != nil {
		if !takes {
			return nil, nil, fmt.Errorf("input 0 %q is the output of a Pad, whose padding this op cannot take over", b.node.Inputs[0])
		}
		return v.padded, v.pad, nil
	}
	x, err := b.tensor(0)
	return x, nil, err
}

// addPads adds the padding of a Pad to an op's own.
func addPads(pad, extra []int64) ([]int64, error) {
	if extra == nil {
		return pad, nil
	}
	if len(extra) != len(pad) {
		return nil, fmt.Errorf("a Pad of %d spatial dims feeds an op of %d", len(extra), len(pad))
	}
	sum := make([]int64, len(pad))
	for i := range pad {
		sum[i] = pad[i] + extra[i]
	}
	return sum, nil
}

// convLike converts Conv and ConvTranspose: the output channels are dim
// filterDim of the weight (times group for ConvTranspose).
func (b *builder) convLike(opName string, filterDim int) error {
	x, extra, err := b.paddedInput(opName == "Convolution")
	if err != nil {
		return err
	}
	w, err := b.shapeOf(1)
	if err != nil {
		return err
	}
	if len(w) < 3 {
		return fmt.Errorf("a weight of shape %s: it needs a spatial dim", w.Tuple())
	}
	kernel := b.attrInts("kernel_shape")
	if kernel == nil {
		for _, d := range w[2:] {
			kernel = append(kernel, int64(d))
		}
	}
	stride, dilate, pad, err := b.spatial(kernel, len(w)-2)
	if err != nil {
		return err
	}
	if pad, err = addPads(pad, extra); err != nil {
		return err
	}
	group := b.attrInt("group", 1)
	filters := int64(w[0])
	if filterDim == 1 {
		filters = int64(w[1]) * group
	}
	attrs := map[string]string{"kernel": tuple(kernel), "stride": tuple(stride), "dilate": tuple(dilate), "pad": tuple(pad),
		"num_filter": fmt.Sprint(filters), "num_group": fmt.Sprint(group)}
	if adj := b.attrInts("output_padding"); adj != nil {
		attrs["adj"] = tuple(adj)
	}
	in := []*graph.Symbol{x, nil}
	if in[1], err = b.tensor(1); err != nil {
		return err
	}
	if v, _ := b.get(2); v != nil {
		bias, err := b.tensor(2)
		if err != nil {
			return err
		}
		in = append(in, bias)
		attrs["no_bias"] = "False"
	} else {
		attrs["no_bias"] = "True"
	}
	return b.emit(opName, attrs, in...)
}

func pool(poolType string) func(b *builder) error {
	return func(b *builder) error {
		kernel := b.attrInts("kernel_shape")
		stride, dilate, pad, err := b.spatial(kernel, len(kernel))
		if err != nil {
			return err
		}
		if slices.ContainsFunc(dilate, func(d int64) bool { return d != 1 }) {
			return fmt.Errorf("dilations %v are not supported", dilate)
		}
		convention := "valid"
		if b.attrInt("ceil_mode", 0) != 0 {
			convention = "full"
		}
		// Padding from a Pad before an average pool is counted.
		x, extra, err := b.paddedInput(poolType == "avg" && !slices.ContainsFunc(pad, func(p int64) bool { return p != 0 }))
		if err != nil {
			return err
		}
		if pad, err = addPads(pad, extra); err != nil {
			return err
		}
		attrs := map[string]string{"pool_type": poolType, "kernel": tuple(kernel), "stride": tuple(stride), "pad": tuple(pad),
			"pooling_convention": convention}
		if poolType == "avg" {
			attrs["count_include_pad"] = boolean(b.attrInt("count_include_pad", 0) != 0 || extra != nil)
		}
		return b.emit("Pooling", attrs, x)
	}
}

func globalPool(poolType string) func(b *builder) error {
	return func(b *builder) error {
		return b.single("Pooling", map[string]string{"pool_type": poolType, "global_pool": "True", "kernel": "(1, 1)"})
	}
}

func batchNormalization(b *builder) error {
	if b.attrInt("training_mode", 0) != 0 {
		return fmt.Errorf("training_mode=1 is not supported (export the model in eval mode)")
	}
	for _, o := range b.node.Outputs[1:] {
		if o != "" {
			return fmt.Errorf("only the first output converts; %q is asked for", o)
		}
	}
	in, err := b.tensors(5)
	if err != nil {
		return err
	}
	return b.emit("BatchNorm", map[string]string{"eps": float(b.attrFloat("epsilon", 1e-5)),
		"momentum": float(b.attrFloat("momentum", 0.9)), "fix_gamma": "False"}, in...)
}

func gemm(b *builder) error {
	alpha, beta := b.attrFloat("alpha", 1), b.attrFloat("beta", 1)
	transA, transB := b.attrInt("transA", 0) != 0, b.attrInt("transB", 0) != 0
	bv, err := b.get(1)
	if err != nil {
		return err
	}
	cv, err := b.get(2)
	if err != nil {
		return err
	}
	a, err := b.tensor(0)
	if err != nil {
		return err
	}
	// The common case, a dense layer: FullyConnected with B as its weight.
	if alpha == 1 && beta == 1 && !transA && bv != nil && bv.konst != nil && len(bv.konst.Shape()) == 2 &&
		(cv == nil || cv.konst != nil && len(cv.konst.Shape()) == 1) {
		return b.dense(a, bv, cv, !transB, true)
	}
	bs, err := b.tensor(1)
	if err != nil {
		return err
	}
	// The last node of the chain takes the node's name, the others a
	// suffix.
	named := func(suffix string, last bool) string {
		if last {
			return b.name()
		}
		return b.name() + suffix
	}
	y, err := b.apply(named("_dot", cv == nil && alpha == 1), "dot",
		map[string]string{"transpose_a": boolean(transA), "transpose_b": boolean(transB)}, a, bs)
	if err != nil {
		return err
	}
	if alpha != 1 {
		if y, err = b.apply(named("_alpha", cv == nil), "_mul_scalar", map[string]string{"scalar": float(alpha)}, y); err != nil {
			return err
		}
	}
	if cv != nil {
		c, err := b.tensor(2)
		if err != nil {
			return err
		}
		if beta != 1 {
			if c, err = b.apply(b.name()+"_beta", "_mul_scalar", map[string]string{"scalar": float(beta)}, c); err != nil {
				return err
			}
		}
		if y, err = b.apply(b.name(), "broadcast_add", nil, y, c); err != nil {
			return err
		}
	}
	return b.out(&value{sym: y})
}

// dense makes a FullyConnected layer of the constant weight w and bias c
// (nil for none); transpose says w is (in, out), as ONNX's B without
// transB, rather than MXNet's (out, in).
func (b *builder) dense(x *graph.Symbol, w, c *value, transpose, flatten bool) error {
	weight := w.konst
	if transpose {
		weight = eager.F.Transpose(weight).(*eager.NDArray)
	}
	name := b.fresh(b.node.Inputs[1])
	b.params[name] = weight
	in := []*graph.Symbol{x, graph.Var(name, weight.Shape(), weight.DType())}
	attrs := map[string]string{"num_hidden": fmt.Sprint(weight.Shape()[0]), "no_bias": "True", "flatten": boolean(flatten)}
	if c != nil {
		bias, err := b.tensor(2)
		if err != nil {
			return err
		}
		in = append(in, bias)
		attrs["no_bias"] = "False"
	}
	return b.emit("FullyConnected", attrs, in...)
}

func matMul(b *builder) error {
	a, err := b.tensor(0)
	if err != nil {
		return err
	}
	bv, err := b.get(1)
	if err != nil {
		return err
	}
	if bv != nil && bv.konst != nil && len(bv.konst.Shape()) == 2 {
		return b.dense(a, bv, nil, true, false)
	}
	bs, err := b.tensor(1)
	if err != nil {
		return err
	}
	ra, rb := len(a.Shape()), len(bs.Shape())
	opName := "dot"
	switch {
	case ra == 3 && rb == 3:
		opName = "batch_dot"
	case ra < 1 || rb != 2:
		return fmt.Errorf("MatMul of a %d-D and a %d-D tensor is not supported (2-D B, or two 3-D batches are)", ra, rb)
	}
	return b.emit(opName, nil, a, bs)
}

func selu(b *builder) error {
	// MXNet's selu has ONNX's default constants built in.
	alpha, gamma := b.attrFloat("alpha", 1.67326319217681884765625), b.attrFloat("gamma", 1.05070102214813232421875)
	if math.Abs(alpha-1.6732632) > 1e-6 || math.Abs(gamma-1.0507010) > 1e-6 {
		return fmt.Errorf("alpha=%g, gamma=%g: only the default constants convert", alpha, gamma)
	}
	return b.single("LeakyReLU", map[string]string{"act_type": "selu"})
}
