package mxnet

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// SymbolFile and ParamsFile name a checkpoint's files as MXNet does:
// PREFIX-symbol.json and PREFIX-0001.params.
func SymbolFile(prefix string) string { return prefix + "-symbol.json" }

// ParamsFile names the params file of a checkpoint for an epoch.
func ParamsFile(prefix string, epoch int) string { return fmt.Sprintf("%s-%04d.params", prefix, epoch) }

// SaveCheckpoint writes sym and its parameters the way MXNet's export and
// save_checkpoint do: PREFIX-symbol.json and PREFIX-EPOCH.params, the
// parameters named "arg:NAME" and "aux:NAME". params holds the values of
// the graph's variables by name; variables without a value are the data
// inputs. Constants captured while tracing become parameters of the same
// name, so MXNet can load the files. Each file is written atomically.
func SaveCheckpoint(prefix string, epoch int, sym *graph.Symbol, params map[string]*eager.NDArray) error {
	exported, list, err := exportable(sym, params)
	if err != nil {
		return err
	}
	if err := SaveSymbol(SymbolFile(prefix), exported); err != nil {
		return err
	}
	return SaveParams(ParamsFile(prefix, epoch), list)
}

// exportable returns a copy of sym whose constants are variables, and the
// named list of its parameter values: arguments, then auxiliary states,
// each in graph order.
func exportable(sym *graph.Symbol, params map[string]*eager.NDArray) (*graph.Symbol, []NamedArray, error) {
	c := sym.Copy()
	g := c.Graph()
	values := map[string]*eager.NDArray{}
	for name, v := range params {
		values[name] = v
	}
	for _, n := range g.Inputs() {
		if n.Value == nil {
			continue
		}
		if _, clash := values[n.Name]; clash {
			return nil, nil, fmt.Errorf("export: constant %s has the name of a parameter", n.Name)
		}
		values[n.Name] = n.Value
		n.Value = nil
	}
	known := map[string]bool{}
	var list []NamedArray
	add := func(prefix string, nodes []*graph.Node) error {
		for _, n := range nodes {
			known[n.Name] = true
			v, ok := values[n.Name]
			if !ok {
				continue // a data input
			}
			if !n.Shapes[0].Fits(v.Shape()) {
				return fmt.Errorf("export: parameter %s is %v but the graph declares %v", n.Name, v.Shape(), n.Shapes[0])
			}
			n.Shapes[0], n.DTypes[0] = v.Shape(), v.DType()
			list = append(list, NamedArray{Name: prefix + n.Name, Array: v})
		}
		return nil
	}
	if err := add("arg:", g.Arguments()); err != nil {
		return nil, nil, err
	}
	if err := add("aux:", g.AuxStates()); err != nil {
		return nil, nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if !known[name] {
			return nil, nil, fmt.Errorf("export: parameter %s is not a variable of the graph (it has: %v)", name, c.ListInputs())
		}
	}
	return c, list, nil
}

// LoadCheckpoint reads PREFIX-symbol.json and PREFIX-EPOCH.params and
// returns the graph and its parameter values by variable name (the
// "arg:" and "aux:" prefixes removed). The parameters' shapes and dtypes
// win over those the graph's shape rules would infer (as in MXNet, the
// params file says what a parameter is); a parameter the graph has no
// variable for, or whose shape or dtype disagrees with what the symbol
// file declares or with the rest of the graph, is an error naming it and
// the file.
func LoadCheckpoint(prefix string, epoch int) (*graph.Symbol, map[string]*eager.NDArray, error) {
	data, err := readFile(SymbolFile(prefix))
	if err != nil {
		return nil, nil, fmt.Errorf("load symbol %s: %w", SymbolFile(prefix), err)
	}
	path := ParamsFile(prefix, epoch)
	list, err := LoadParams(path)
	if err != nil {
		return nil, nil, err
	}
	sym, err := DecodeSymbolWithParams(data, list)
	if err != nil {
		return nil, nil, fmt.Errorf("load symbol %s: %w", SymbolFile(prefix), err)
	}
	vars := map[string]*graph.Node{}
	for _, n := range sym.Graph().Inputs() {
		vars[n.Name] = n
	}
	params := map[string]*eager.NDArray{}
	for _, p := range list {
		name := stripArgAux(p.Name)
		n, ok := vars[name]
		if !ok {
			return nil, nil, fmt.Errorf("%s: parameter %q is not a variable of %s", path, p.Name, SymbolFile(prefix))
		}
		if !n.Shapes[0].Fits(p.Array.Shape()) {
			return nil, nil, fmt.Errorf("%s: parameter %q has shape %v, the graph declares %v", path, p.Name, p.Array.Shape(), n.Shapes[0])
		}
		if d := n.DTypes[0]; d != ops.Unknown && d != p.Array.DType() {
			return nil, nil, fmt.Errorf("%s: parameter %q is %v, the graph declares %v", path, p.Name, p.Array.DType(), d)
		}
		if _, dup := params[name]; dup {
			return nil, nil, fmt.Errorf("%s: parameter %q appears twice", path, name)
		}
		params[name] = p.Array
	}
	return sym, params, nil
}
