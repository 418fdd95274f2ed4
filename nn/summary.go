package nn

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// Summary runs the block once on inputs and returns a table with a row per
// block that ran (its name, without the summarised block's prefix, and its
// type, in the order the blocks finished), its
// output shapes and the number of values in its own parameters, and the
// totals, as Gluon's summary prints:
//
//	--------------------------------------------------------------------------------
//	        Layer (type)                                Output Shape         Param #
//	================================================================================
//	               Input                                    (2, 784)               0
//	      dense0 (Dense)                                     (2, 16)           12560
//	      dense1 (Dense)                                     (2, 10)             170
//	================================================================================
//	Parameters in forward computation graph, duplicate included
//	   Total params: 12730
//	…
//
// The layer column widens for longer names. Sequential and HybridSequential containers get no row of their own. A
// hybridized block is allowed: the forward runs eagerly, without the tape
// and in predict mode, so that every block's hooks see it, and the block
// is left hybridized with its cached graphs. Parameters waiting for
// deferred initialisation are initialised by the forward.
func (c *core) Summary(inputs ...*eager.NDArray) (table string, err error) {
	type row struct {
		layer, shape              string
		params, trainable, shared int
	}
	var inShapes []string
	for _, x := range inputs {
		inShapes = append(inShapes, x.Shape().Tuple())
	}
	rows := []row{{layer: "Input", shape: strings.Join(inShapes, ", ")}}
	seen := map[*Parameter]bool{}
	var handles []HookHandle
	type hybridState struct {
		b      *HybridBlock
		active bool
	}
	var states []hybridState
	c.walk(func(b *core) {
		if h := b.hybrid; h != nil {
			h.mu.Lock()
			states = append(states, hybridState{h, h.active})
			h.active = false
			h.mu.Unlock()
		}
		if isContainer(b) {
			return
		}
		handles = append(handles, b.RegisterForwardHook(func(name string, _, outs []ops.Tensor) {
			if b != c {
				name = strings.TrimPrefix(name, c.prefix)
			}
			r := row{layer: fmt.Sprintf("%s (%s)", name, typeOf(b))}
			var shapes []string
			for _, o := range outs {
				shapes = append(shapes, o.Shape().Tuple())
			}
			r.shape = strings.Join(shapes, ", ")
			for _, p := range b.own {
				n := p.shape.Size()
				r.params += n
				if p.gradReq != eager.GradNull && !p.constant {
					r.trainable += n
				}
				if seen[p] {
					r.shared += n
				}
				seen[p] = true
			}
			rows = append(rows, r)
		}))
	})
	defer func() {
		for _, h := range handles {
			h.Detach()
		}
		for _, s := range states {
			s.b.mu.Lock()
			s.b.active = s.active
			s.b.mu.Unlock()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			table, err = "", fmt.Errorf("%s: summary: %w", c.Name(), e)
		}
	}()
	xs := make([]ops.Tensor, len(inputs))
	for i, x := range inputs {
		xs[i] = x
	}
	eager.Pause(func() {
		switch {
		case c.hybrid != nil:
			c.hybrid.ForwardN(xs...)
		case c.plain != nil:
			c.plain.Forward(xs...)
		default:
			panic(fmt.Errorf("the block was not bound: call Bind(self) in its constructor"))
		}
	})

	wLayer, wShape := 20, 42
	for _, r := range rows {
		wLayer, wShape = max(wLayer, len(r.layer)), max(wShape, len(r.shape))
	}
	width := wLayer + 2 + wShape + 1 + 15
	var b strings.Builder
	line := func(layer, shape string, params any) {
		fmt.Fprintf(&b, "%*s  %*s %15v\n", wLayer, layer, wShape, shape, params)
	}
	b.WriteString(strings.Repeat("-", width) + "\n")
	line("Layer (type)", "Output Shape", "Param #")
	b.WriteString(strings.Repeat("=", width) + "\n")
	total, trainable, shared := 0, 0, 0
	for _, r := range rows {
		line(r.layer, r.shape, r.params)
		total += r.params
		trainable += r.trainable
		shared += r.shared
	}
	b.WriteString(strings.Repeat("=", width) + "\n")
	fmt.Fprintf(&b, "Parameters in forward computation graph, duplicate included\n")
	fmt.Fprintf(&b, "   Total params: %d\n", total)
	fmt.Fprintf(&b, "   Trainable params: %d\n", trainable)
	fmt.Fprintf(&b, "   Non-trainable params: %d\n", total-trainable)
	fmt.Fprintf(&b, "Shared params in forward computation graph: %d\n", shared)
	fmt.Fprintf(&b, "Unique parameters in model: %d\n", total-shared)
	b.WriteString(strings.Repeat("-", width) + "\n")
	return b.String(), nil
}

// isContainer reports whether the block is a Sequential or HybridSequential,
// which Summary leaves out as Gluon does.
func isContainer(c *core) bool {
	if !c.outer.IsValid() || !c.outer.CanInterface() {
		return false
	}
	switch c.outer.Interface().(type) {
	case *Sequential, *HybridSequential:
		return true
	}
	return false
}

// typeOf names the block's Go type ("Dense").
func typeOf(c *core) string {
	if c.outer.IsValid() {
		t := c.outer.Type()
		if t.Kind() == reflect.Pointer && t.Elem().Name() != "" {
			return t.Elem().Name()
		}
	}
	return c.typeName
}

// traceShapes gives the shapes and dtypes of the inputs of InferShape and
// InferType.
func traceShapes(inputs []ops.Tensor) ([]ops.Shape, []ops.DType) {
	shapes := make([]ops.Shape, len(inputs))
	dtypes := make([]ops.DType, len(inputs))
	for i, x := range inputs {
		shapes[i], dtypes[i] = x.Shape(), x.DType()
	}
	return shapes, dtypes
}

// InferShape traces the forward on inputs of the shapes and dtypes of
// inputs (NDArrays, or Symbols such as graph.Var("data", shape, dtype)),
// without running any kernel, and fills in the unknown dims of the
// parameters (Gluon's infer_shape). Parameters waiting for deferred
// initialisation are initialised once their shapes are known.
func (b *HybridBlock) InferShape(inputs ...ops.Tensor) error {
	shapes, dtypes := traceShapes(inputs)
	if _, _, err := b.trace(shapes, dtypes); err != nil {
		return fmt.Errorf("%s: infer shape: %w", b.Name(), err)
	}
	return nil
}

// InferType traces the forward like InferShape and sets the dtype of each
// parameter that has no values yet to the one the inputs' dtypes imply
// (Gluon's infer_type): a Dense layer fed float64 data gets float64
// weights. Parameters with values keep their dtypes.
func (b *HybridBlock) InferType(inputs ...ops.Tensor) error {
	type saved struct {
		p       *Parameter
		dtype   ops.DType
		pending Initializer
	}
	var open []saved
	for _, p := range b.CollectParams().List() {
		if !p.Initialized() {
			open = append(open, saved{p, p.dtype, p.pending})
			p.dtype, p.pending = ops.Unknown, nil
		}
	}
	shapes, dtypes := traceShapes(inputs)
	_, ts, err := b.trace(shapes, dtypes)
	for _, s := range open {
		s.p.dtype, s.p.pending = s.dtype, s.pending
		if err != nil {
			continue
		}
		if v, ok := ts.vars[s.p]; ok && v.DType() != ops.Unknown {
			s.p.dtype = v.DType()
		}
	}
	if err != nil {
		return fmt.Errorf("%s: infer type: %w", b.Name(), err)
	}
	for _, s := range open {
		if s.p.pending != nil && s.p.shape.Known() {
			if err := s.p.fill(s.p.pending); err != nil {
				return err
			}
		}
	}
	return nil
}

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
	b.mu.Lock()
	b.cache, b.last, b.rewrite = nil, nil, rewrite
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
