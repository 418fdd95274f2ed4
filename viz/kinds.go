package viz

import "github.com/hybridgo/hybridgo/ops"

// kinds lists every kind with its fill colour, in legend order. The op
// kinds are ops.Kinds; a test checks that each has its colour here.
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

// Kinds returns every kind a drawn node can have, in legend order: the
// kinds of ops (ops.Kinds) and "input", "param", "const" for variables and
// "block" for a collapsed block.
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

// OpKind gives the kind of the op with this MXNet name, as the registry
// has it (ops.Op.Kind): "conv", "dense", "pool", "norm", "activation",
// "softmax", "loss", "elementwise", "reduce", "shape", "fused" or "other".
// The empty name (a variable) gives "input"; names the registry does not
// know give "other". LayoutGraph asks each node's op directly, so ops made
// by graph passes (never registered) get their own kind, and it tells
// parameters, constants and collapsed blocks apart itself.
func OpKind(op string) string {
	if op == "" {
		return "input"
	}
	if o, ok := ops.Lookup(op); ok {
		return o.Kind()
	}
	return "other"
}
