package nn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Export writes the graph of the block's latest hybridized forward and its
// parameters as MXNet Gluon's HybridBlock.export does: path-symbol.json
// and path-EPOCH.params (epoch written with four digits). The symbol file
// names the inputs "data" (one input) or "data0", "data1", … (several);
// the params file holds every parameter the graph uses, under its full
// name with "arg:" (arguments) or "aux:" (auxiliary states, such as
// BatchNorm's running mean and variance) in front. MXNet 1.x loads the
// files with SymbolBlock.imports or Module.load_checkpoint, and this
// package with SymbolBlockImports.
//
// The graph is the one traced by the latest call after Hybridize, so
// Export needs Hybridize and one forward first (as in Gluon). After
// OptimizeFor, the optimised graph is written when the symbol format can
// express it; a graph with fused nodes cannot be, and Export then writes
// the equivalent graph as traced, before optimisation, and says so on
// Warnings.
//
// Both files are replaced atomically, and the parameters are checked to
// be writable before either file is touched, so a failed export leaves
// the previous files as they were.
func (b *HybridBlock) Export(path string, epoch int) error {
	sym, params, err := b.exported()
	if err != nil {
		return fmt.Errorf("%s: export: %w", b.Name(), err)
	}
	list := make([]mxnet.NamedArray, 0, len(params))
	for name, a := range params {
		list = append(list, mxnet.NamedArray{Name: name, Array: a})
	}
	if _, err := mxnet.EncodeParams(list); err != nil {
		return fmt.Errorf("%s: export %s: %w", b.Name(), mxnet.ParamsFile(path, epoch), err)
	}
	if err := mxnet.SaveCheckpoint(path, epoch, sym, params); err != nil {
		return fmt.Errorf("%s: export %s: %w", b.Name(), path, err)
	}
	return nil
}

// exported returns what Export and ExportONNX write: the graph of the
// latest hybridized forward (as traced, when the one OptimizeFor made
// holds fused nodes) and the values of the parameters it uses, by
// variable name.
func (b *HybridBlock) exported() (*graph.Symbol, map[string]*eager.NDArray, error) {
	b.mu.Lock()
	cg := b.last
	b.mu.Unlock()
	if cg == nil {
		return nil, nil, fmt.Errorf("there is no traced graph yet: call Hybridize() and run a forward first")
	}
	sym := cg.sym
	if cg.traced != nil && cg.traced != cg.sym {
		if op := unregisteredOp(sym); op != "" {
			warnf("%s: export: the graph optimised by OptimizeFor holds %s nodes, which a model file cannot express; writing the equivalent graph as traced instead", b.Name(), op)
			sym = cg.traced
		}
	}
	byName := map[string]*Parameter{}
	for _, p := range b.CollectParams().List() {
		byName[p.name] = p
	}
	params := map[string]*eager.NDArray{}
	for _, n := range sym.Graph().Inputs() {
		if n.Value != nil {
			continue // a constant: the writers keep it as a parameter
		}
		p, ok := byName[n.Name]
		if !ok {
			continue // a data input
		}
		if !p.Initialized() {
			return nil, nil, p.notReady()
		}
		params[n.Name] = p.Data()
	}
	return sym, params, nil
}

// unregisteredOp returns the name of an op of the graph that is not in the
// op registry (a fused group), or "" when every op can be written to and
// read back from a symbol file.
func unregisteredOp(sym *graph.Symbol) string {
	for _, n := range sym.Graph().Nodes {
		if n.IsVar() {
			continue
		}
		if op, ok := ops.Lookup(n.Op.Name()); !ok || op != n.Op {
			return n.Op.Name()
		}
	}
	return ""
}
