package viz

import "strings"

// kinds lists every kind with its fill colour, in legend order.
var kinds = []struct{ name, color string }{
	{"input", "#9ecae1"},
	{"param", "#eeeeee"},
	{"const", "#f3e5c0"},
	{"conv", "#a1d99b"},
	{"dense", "#fdb462"},
	{"pool", "#80b1d3"},
	{"norm", "#bebada"},
	{"activation", "#fb8072"},
	{"elementwise", "#ffffb3"},
	{"shape", "#ccebc5"},
	{"reduce", "#d4b9da"},
	{"softmax", "#fccde5"},
	{"loss", "#f4a6a6"},
	{"fused", "#ffd92f"},
	{"block", "#8dd3c7"},
	{"other", "#d9d9d9"},
}

// Kinds returns every kind OpKind can give (and "input", "param", "const"
// for variables), in legend order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// KindColor returns the fill colour of a kind as a CSS hex colour; kinds
// it does not know get the colour of "other".
func KindColor(kind string) string {
	for _, k := range kinds {
		if k.name == kind {
			return k.color
		}
	}
	return kinds[len(kinds)-1].color
}

var opKinds = map[string]string{
	"Convolution": "conv", "Deconvolution": "conv",
	"FullyConnected": "dense", "dot": "dense", "batch_dot": "dense", "Embedding": "dense",
	"Pooling":   "pool",
	"BatchNorm": "norm", "LayerNorm": "norm", "InstanceNorm": "norm", "GroupNorm": "norm", "L2Normalization": "norm",
	"Activation": "activation", "LeakyReLU": "activation", "relu": "activation", "sigmoid": "activation",
	"tanh": "activation", "softsign": "activation", "softrelu": "activation", "hard_sigmoid": "activation",
	"softmax": "softmax", "log_softmax": "softmax", "softmin": "softmax", "SoftmaxActivation": "softmax",
	"SoftmaxOutput": "loss", "softmax_cross_entropy": "loss", "smooth_l1": "loss", "MakeLoss": "loss",
	"LinearRegressionOutput": "loss", "LogisticRegressionOutput": "loss", "MAERegressionOutput": "loss",
	"sum": "reduce", "mean": "reduce", "max": "reduce", "min": "reduce", "prod": "reduce", "nansum": "reduce",
	"nanprod": "reduce", "norm": "reduce", "argmax": "reduce", "argmin": "reduce", "_reduce_sum_like": "reduce",
	"topk": "reduce", "sort": "reduce", "argsort": "reduce",
	"Reshape": "shape", "reshape": "shape", "Flatten": "shape", "flatten": "shape", "expand_dims": "shape",
	"transpose": "shape", "squeeze": "shape", "Concat": "shape", "concat": "shape", "stack": "shape",
	"SliceChannel": "shape", "split": "shape", "slice": "shape", "slice_axis": "shape", "slice_like": "shape",
	"tile": "shape", "repeat": "shape", "reverse": "shape", "reshape_like": "shape", "shape_array": "shape",
	"size_array": "shape", "broadcast_to": "shape", "broadcast_like": "shape", "swapaxes": "shape",
	"_copy": "shape", "BlockGrad": "shape", "take": "shape", "pick": "shape", "one_hot": "shape", "pad": "shape",
	"Cast": "elementwise", "add_n": "elementwise", "where": "elementwise", "clip": "elementwise",
	"_fused_elemwise": "fused", "block": "block",
}

// mathOps are the element-wise functions of one or two arguments that
// have no prefix telling them apart.
var mathOps = map[string]bool{
	"abs": true, "arccos": true, "arcsin": true, "arctan": true, "cbrt": true, "ceil": true, "cos": true,
	"cosh": true, "erf": true, "exp": true, "expm1": true, "fix": true, "floor": true, "log": true, "log1p": true,
	"log2": true, "log10": true, "logical_not": true, "negative": true, "reciprocal": true, "round": true,
	"rsqrt": true, "sign": true, "sin": true, "sinh": true, "sqrt": true, "square": true, "tan": true,
	"trunc": true, "zeros_like": true, "ones_like": true, "maximum": true, "minimum": true, "hypot": true,
}

// OpKind classifies an MXNet op name for colouring: "conv", "dense",
// "pool", "norm", "activation", "elementwise", "shape", "reduce",
// "softmax", "loss", "fused", "block" or "other". The empty name (a
// variable) gives "input"; LayoutGraph tells parameters and constants
// apart itself. Backward ops take the kind of their forward op.
func OpKind(op string) string {
	if op == "" {
		return "input"
	}
	op = strings.TrimPrefix(op, "_backward_")
	if k, ok := opKinds[op]; ok {
		return k
	}
	switch {
	case mathOps[op],
		strings.HasPrefix(op, "elemwise_"),
		strings.HasPrefix(op, "broadcast_"),
		strings.HasPrefix(op, "_") && strings.HasSuffix(op, "_scalar"),
		op == "_plus" || op == "_minus" || op == "_mul" || op == "_div" || op == "_add" || op == "_sub":
		return "elementwise"
	}
	return "other"
}
