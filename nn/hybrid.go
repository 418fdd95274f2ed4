package nn

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

// HybridizeOptions are Hybridize's options (the zero value hybridizes with
// the defaults).
type HybridizeOptions struct {
	Off         bool // switch hybridization off again (MXNet's active=False)
	StaticAlloc bool // keep the graph's buffers across calls; outside Record, outputs are valid until the next call
	StaticShape bool // keep one compiled graph: other input shapes replace it (slower); requires StaticAlloc
	// Passes are the graph optimisations; nil means all of them.
	Passes *graph.PassOptions
}

// HybridBlock is a block whose forward is written once with F:
// HybridForward(F, x). Before Hybridize it runs op by op on NDArrays;
// after, its first call traces it into a graph and later calls run the
// cached graph without entering HybridForward. Embed it in a struct,
// implement HybridForward (or HybridForwardN), and call Bind once.
type HybridBlock struct {
	core
	self  HybridForwarder
	selfN HybridForwarderN

	mu     sync.Mutex
	active bool
	opts   HybridizeOptions
	cache  map[string]*cachedGraph
	opHook *opHook
	last   *cachedGraph // the graph of the latest hybridized call (Export writes it)
	// rewrite, when set, turns each traced graph into the one that runs
	// (OptimizeFor's backend); Hybridize removes it.
	rewrite func(*graph.Symbol) (*graph.Symbol, error)
	// arg1 and args are argument lists of a StaticAlloc call, kept
	// between calls.
	arg1 [1]ops.Tensor
	args []*eager.NDArray
}

type opHook struct {
	fn  graph.OpHook
	all bool
}

// cachedGraph is one traced graph and the runner compiled from it, for
// inputs of argShapes and argTypes.
type cachedGraph struct {
	argShapes []ops.Shape
	argTypes  []ops.DType
	sym       *graph.Symbol // the graph that runs
	traced    *graph.Symbol // the graph as traced, before any rewrite
	op        *graph.CachedOp
	inputs    []binding // how each CachedOp input is bound
	// bound and res are the argument and result lists of a StaticAlloc
	// call, kept between calls so that the call allocates nothing.
	bound []*eager.NDArray
	res   []ops.Tensor
}

type binding struct {
	data  int // index of a data input, or -1
	param *Parameter
}

// Bind tells the block which struct it is embedded in (call it once, from
// the constructor: n.Bind(n)); children and parameters are then found in
// that struct's fields. name overrides the name taken from the type
// (types defined in the REPL have none).
func (b *HybridBlock) Bind(self HybridForwarder, name ...string) {
	b.self = self
	b.bindHybrid(self, name)
}

// BindN is Bind for blocks with several inputs or outputs (HybridForwardN).
func (b *HybridBlock) BindN(self HybridForwarderN, name ...string) {
	b.selfN = self
	b.bindHybrid(self, name)
}

func (b *HybridBlock) bindHybrid(self any, name []string) {
	b.hybrid = b
	b.bind(unwrap(reflect.ValueOf(self)), name)
	b.checkHybridChildren()
}

// Hybridize switches the block (and its descendants) to graph mode, or
// off again with HybridizeOptions{Off: true}. The cache is cleared.
func (b *HybridBlock) Hybridize(opts ...HybridizeOptions) {
	var o HybridizeOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.StaticShape && !o.StaticAlloc {
		panic(fmt.Errorf("%s: Hybridize: StaticShape requires StaticAlloc", b.Name()))
	}
	b.mu.Lock()
	b.active, b.opts = !o.Off, o
	b.cache, b.last, b.rewrite = nil, nil, nil
	b.mu.Unlock()
	for _, ch := range b.children {
		ch.c.hybridize(opts)
	}
}

// Hybridized reports whether the block runs as a graph.
func (b *HybridBlock) Hybridized() bool { return b.active }

// LastGraph returns the graph traced by the block's latest hybridized
// call, as traced (before any OptimizeFor rewrite), or nil when the block
// has not run since Hybridize.
func (b *HybridBlock) LastGraph() *graph.Symbol {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last == nil {
		return nil
	}
	if b.last.traced != nil {
		return b.last.traced
	}
	return b.last.sym
}

func (b *HybridBlock) clearCache() {
	b.mu.Lock()
	b.cache, b.last = nil, nil
	b.mu.Unlock()
}

// RegisterOpHook calls fn with the output of every op of the hybridized
// graph (and its inputs too when monitorAll), named like
// "dense0_fwd_output".
func (b *HybridBlock) RegisterOpHook(fn graph.OpHook, monitorAll bool) {
	b.mu.Lock()
	b.opHook = &opHook{fn, monitorAll}
	for _, cg := range b.cache {
		cg.op.SetOpHook(fn, monitorAll)
	}
	b.mu.Unlock()
}

// Forward runs the block on one input and returns its one output.
func (b *HybridBlock) Forward(x ops.Tensor) ops.Tensor {
	var out []ops.Tensor
	if b.active && b.keepsLists() {
		b.arg1[0] = x
		out = b.ForwardN(b.arg1[:]...)
	} else {
		out = b.ForwardN(x)
	}
	if len(out) != 1 {
		panic(fmt.Errorf("%s: Forward returns one output, but the block has %d: use ForwardN", b.Name(), len(out)))
	}
	return out[0]
}

// ForwardN runs the block on its inputs and returns all its outputs.
func (b *HybridBlock) ForwardN(xs ...ops.Tensor) []ops.Tensor {
	if b.self == nil && b.selfN == nil {
		panic(fmt.Errorf("this hybrid block was not bound: call Bind(self) in its constructor"))
	}
	if b.scan() {
		b.checkHybridChildren()
		b.clearCache()
	}
	b.runPreHooks(xs)
	var out []ops.Tensor
	switch {
	case isSymbolic(xs):
		out = b.traced(xs)
	case b.active:
		out = b.cached(xs)
	default:
		out = b.call(ops.NewF(deferredInterp{}), xs)
	}
	b.runHooks(xs, out)
	return out
}

func isSymbolic(xs []ops.Tensor) bool {
	sym := false
	for _, x := range xs {
		if _, ok := x.(*graph.Symbol); ok {
			sym = true
		} else if sym {
			panic(fmt.Errorf("inputs mix Symbols and NDArrays: give a block all NDArrays, or (inside a traced forward) all Symbols"))
		}
	}
	return sym
}

// call runs the user's forward with F.
func (b *HybridBlock) call(f ops.F, xs []ops.Tensor) (out []ops.Tensor) {
	defer func() {
		if r := recover(); r != nil {
			panic(inBlock(b.Name(), r))
		}
	}()
	if b.selfN != nil {
		return b.selfN.HybridForwardN(f, xs)
	}
	if len(xs) != 1 {
		panic(fmt.Errorf("%s takes one input (it implements HybridForward), got %d; implement HybridForwardN for several", b.Name(), len(xs)))
	}
	return []ops.Tensor{b.self.HybridForward(f, xs[0])}
}

// inBlock names the block in an op or hybridization error, once (the
// innermost block that saw it).
func inBlock(name string, r any) any {
	switch e := r.(type) {
	case *ops.Error:
		if e.Block == "" {
			c := *e
			c.Block = name
			return &c
		}
	case *graph.HybridizationError:
		if e.Block == "" {
			c := *e
			c.Block = name
			return &c
		}
	}
	return r
}

// traced runs the forward inside a parent's trace, with the parent's tracer.
func (b *HybridBlock) traced(xs []ops.Tensor) []ops.Tensor {
	ts := currentTrace()
	if ts == nil {
		panic(fmt.Errorf("%s: called with Symbols outside a trace; call the block on NDArrays, or on the Symbols a traced forward gives", b.Name()))
	}
	var out []ops.Tensor
	ts.t.Scope(b.prefix, func() { out = b.call(ts.t.F(), xs) })
	return out
}

// cached runs the block's graph, tracing and compiling it on the first
// call for these input shapes and dtypes.
//
// With StaticAlloc, outside Record, the lists passed around are kept
// between calls: the graph then returns its own buffers, so calls cannot
// overlap anyway. Inside Record the tape keeps a call's argument list, and
// the caller its results, so they are made per call.
func (b *HybridBlock) cached(xs []ops.Tensor) []ops.Tensor {
	keep := b.keepsLists()
	args := reuse(&b.args, len(xs), keep)
	for i, x := range xs {
		a, ok := x.(*eager.NDArray)
		if !ok {
			panic(fmt.Errorf("%s: input %d is a %T; a hybridized block takes NDArrays", b.Name(), i, x))
		}
		args[i] = a
	}
	cg, err := b.graphFor(args)
	if err != nil {
		panic(inBlock(b.Name(), err))
	}
	bound := reuse(&cg.bound, len(cg.inputs), keep)
	for i, in := range cg.inputs {
		if in.param != nil {
			bound[i] = in.param.Data()
		} else {
			bound[i] = args[in.data]
		}
	}
	outs, err := cg.op.Call(bound...)
	if err != nil {
		panic(inBlock(b.Name(), err))
	}
	res := reuse(&cg.res, len(outs), keep)
	for i, o := range outs {
		res[i] = o
	}
	return res
}

// keepsLists reports whether a call keeps its argument and result lists
// for the next one: with StaticAlloc, outside Record, calls cannot overlap
// (they share the graph's buffers). The lists hold the latest call's
// arrays until the next call.
func (b *HybridBlock) keepsLists() bool { return b.opts.StaticAlloc && !eager.IsRecording() }

// reuse returns a list of n elements: *kept when keep is set and it is
// long enough, else a new one, which is kept when keep is set.
func reuse[T any](kept *[]T, n int, keep bool) []T {
	if keep && cap(*kept) >= n {
		return (*kept)[:n]
	}
	s := make([]T, n)
	if keep {
		*kept = s
	}
	return s
}

// graphFor returns the cached graph for these inputs' shapes and dtypes,
// tracing and compiling it the first time, and remembers it as the last.
func (b *HybridBlock) graphFor(args []*eager.NDArray) (*cachedGraph, error) {
	// The common case: the same input shapes and dtypes as the last call.
	b.mu.Lock()
	last := b.last
	b.mu.Unlock()
	if last != nil && last.accepts(args) {
		return last, nil
	}
	var key strings.Builder
	for _, a := range args {
		fmt.Fprintf(&key, "%v %v;", a.Shape(), a.DType())
	}
	b.mu.Lock()
	cg := b.cache[key.String()]
	b.mu.Unlock()
	if cg == nil {
		var err error
		if cg, err = b.build(args); err != nil {
			return nil, err
		}
		for _, a := range args {
			cg.argShapes = append(cg.argShapes, a.Shape())
			cg.argTypes = append(cg.argTypes, a.DType())
		}
		b.mu.Lock()
		if b.cache == nil || b.opts.StaticShape {
			// With StaticShape one graph is kept: other input shapes are
			// accepted, as in MXNet, but replace it (slower).
			b.cache = map[string]*cachedGraph{}
		}
		b.cache[key.String()] = cg
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.last = cg
	b.mu.Unlock()
	return cg, nil
}

// Trace traces the block's forward on symbolic inputs of the given shapes
// and dtypes ("data" for one input, "data0", "data1", … for several), and
// fills in parameter shapes found on the way.
func (b *HybridBlock) Trace(shapes []ops.Shape, dtypes []ops.DType) (*graph.Symbol, error) {
	sym, _, err := b.trace(shapes, dtypes)
	return sym, err
}

func (b *HybridBlock) trace(shapes []ops.Shape, dtypes []ops.DType) (sym *graph.Symbol, ts *traceState, err error) {
	ts = &traceState{t: graph.NewTracer(), vars: map[*Parameter]*graph.Symbol{}}
	pushTrace(ts)
	defer popTrace(ts)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			sym, err = nil, e
		}
	}()
	xs := graph.DataVars(shapes, dtypes)
	var outs []ops.Tensor
	ts.t.Scope(b.prefix, func() { outs = b.call(ts.t.F(), xs) })
	syms := make([]*graph.Symbol, len(outs))
	for i, o := range outs {
		s, ok := o.(*graph.Symbol)
		if !ok {
			return nil, nil, fmt.Errorf("%s: output %d of the traced forward is a %T, not computed from the inputs with F", b.Name(), i, o)
		}
		syms[i] = s
	}
	sym = graph.Group(syms...)
	// Shapes found while tracing complete the parameters (deferred init).
	// In declaration order, so that random initial values do not depend on
	// map order.
	for _, p := range b.CollectParams().List() {
		if v, ok := ts.vars[p]; ok {
			if err := p.inferred(v.Shape()); err != nil {
				return nil, nil, err
			}
		}
	}
	return sym, ts, nil
}

// build traces the forward for these inputs and compiles the graph.
func (b *HybridBlock) build(args []*eager.NDArray) (*cachedGraph, error) {
	shapes := make([]ops.Shape, len(args))
	dtypes := make([]ops.DType, len(args))
	for i, a := range args {
		shapes[i], dtypes[i] = a.Shape(), a.DType()
	}
	sym, ts, err := b.trace(shapes, dtypes)
	if err != nil {
		return nil, err
	}
	traced := sym
	if b.rewrite != nil {
		if sym, err = b.rewrite(sym); err != nil {
			return nil, err
		}
	}
	byName := map[string]*Parameter{}
	for p := range ts.vars {
		if !p.Initialized() {
			return nil, p.notReady()
		}
		byName[p.name] = p
	}
	o := b.opts
	cop, err := graph.NewCachedOp(sym, graph.CachedOpOptions{StaticAlloc: o.StaticAlloc, StaticShape: o.StaticShape, Passes: o.Passes})
	if err != nil {
		return nil, err
	}
	if b.opHook != nil {
		cop.SetOpHook(b.opHook.fn, b.opHook.all)
	}
	cg := &cachedGraph{sym: sym, traced: traced, op: cop}
	for _, name := range cop.InputNames() {
		if p, ok := byName[name]; ok {
			cg.inputs = append(cg.inputs, binding{data: -1, param: p})
			continue
		}
		idx := -1
		switch {
		case name == "data" && len(args) == 1:
			idx = 0
		case strings.HasPrefix(name, "data"):
			fmt.Sscanf(name, "data%d", &idx)
		}
		if idx < 0 || idx >= len(args) {
			return nil, fmt.Errorf("the traced graph has an input %q that is neither a data input nor a parameter of the block", name)
		}
		cg.inputs = append(cg.inputs, binding{data: idx})
	}
	return cg, nil
}

// accepts reports whether args have the shapes and dtypes cg was built for.
func (cg *cachedGraph) accepts(args []*eager.NDArray) bool {
	if len(args) != len(cg.argShapes) {
		return false
	}
	for i, a := range args {
		v := a.Value()
		if v.DType != cg.argTypes[i] || !v.Shape.Equal(cg.argShapes[i]) {
			return false
		}
	}
	return true
}

// traceState is one trace in progress: its tracer and the variable of
// each parameter used so far.
type traceState struct {
	t    *graph.Tracer
	vars map[*Parameter]*graph.Symbol
}

// Param returns parameter p as F needs it: its values when F runs
// eagerly, its graph variable when F traces. Inside HybridForward:
//
//	F.Dot(x, nn.Param(F, n.Fc3Weight), ops.TransposeB())
func Param(f ops.F, p *Parameter) ops.Tensor {
	if p == nil {
		panic(fmt.Errorf("nn.Param: the parameter is nil (was it created in the block's constructor?)"))
	}
	return p.Tensor(f)
}

// LastGraphOf returns the graph a hybrid block traced last, for a block
// given as any value: a compiled layer, or a block type defined in
// interpreted Go, whose methods reflection cannot see. ok is false when v
// is not a hybrid block; the graph is nil before a hybridized call.
func LastGraphOf(v any) (g *graph.Symbol, ok bool) {
	c := coreOf(reflect.ValueOf(v))
	if c == nil || c.hybrid == nil {
		return nil, false
	}
	return c.hybrid.LastGraph(), true
}

// Describe prints a block given as any value (see LastGraphOf) as its
// tree of children; ok is false when v is not a block.
func Describe(v any) (string, bool) {
	c := coreOf(reflect.ValueOf(v))
	if c == nil {
		return "", false
	}
	return c.String(), true
}
