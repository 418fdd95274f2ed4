package nn

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
)

// Backends are the names OptimizeFor accepts.
var Backends = []string{"fuse"}

// OptimizeFor prepares the block to run a graph optimised for a backend,
// without running it (Gluon's optimize_for): it hybridizes the block if it
// is not, traces the forward for x, rewrites the graph, and compiles it.
// Later calls (for x's shape and any other) run the rewritten graph, until
// Hybridize is called again.
//
// The one backend is "fuse": graph.Optimize with every pass, element-wise
// fusion included, run on the traced graph itself, so that whole chains of
// element-wise ops run as one loop (a hybridized block's cached graph
// fuses only what its gradient does not need to keep). Fused nodes have no
// gradient rule: the optimised block is for inference.
// Export after it writes the optimised graph when the symbol format can
// express it and the graph as traced when it holds fused nodes.
func (b *HybridBlock) OptimizeFor(x *eager.NDArray, backend string) error {
	var rewrite func(*graph.Symbol) (*graph.Symbol, error)
	switch backend {
	case "fuse":
		rewrite = fuseRewrite
	default:
		return fmt.Errorf("%s: optimize for %q: unknown backend (known: %s)", b.Name(), backend, strings.Join(Backends, ", "))
	}
	if !b.Hybridized() {
		b.Hybridize()
	}
	b.clearCache()
	b.mu.Lock()
	b.rewrite = rewrite
	b.mu.Unlock()
	if _, err := b.graphFor([]*eager.NDArray{x}); err != nil {
		return fmt.Errorf("%s: optimize for %q: %w", b.Name(), backend, err)
	}
	return nil
}

// fuseRewrite is the "fuse" backend.
func fuseRewrite(sym *graph.Symbol) (*graph.Symbol, error) {
	g, _, err := graph.Optimize(sym.Graph(), graph.DefaultPassOptions())
	if err != nil {
		return nil, err
	}
	return graph.FromEntries(g.Outputs...), nil
}
