package nn

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
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
	StaticShape bool // keep the graphs of one set of input shapes: others replace them (slower); requires StaticAlloc
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
	// cache holds the block's compiled graphs, keyed by the signature of
	// the calls they serve (see appendKey): the one compiled-graph cache
	// of the hybridized path.
	cache map[string]*cachedGraph
	// params are the parameters the cached graphs bind, whose dtypes and
	// gradient needs are part of the key; key is the key's scratch.
	params []*Parameter
	key    []byte
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

// cachedGraph is one traced graph, for data inputs of argShapes and
// argTypes, and the executable compiled from it for one call signature.
// Graphs for one set of data inputs share the trace.
type cachedGraph struct {
	argShapes []ops.Shape
	argTypes  []ops.DType
	sym       *graph.Symbol // the graph that runs
	traced    *graph.Symbol // the graph as traced, before any rewrite
	inputs    []binding     // how each input of the graph is bound
	exec      *graph.Executable
	hooked    bool // compiled for the op hook
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
// off again with HybridizeOptions{Off: true}. The compiled graphs are
// dropped: the next call traces again, and sees the children and
// parameters the block's fields hold then.
func (b *HybridBlock) Hybridize(opts ...HybridizeOptions) {
	o := OneOption("Hybridize", opts)
	if o.StaticShape && !o.StaticAlloc {
		panic(fmt.Errorf("%s: Hybridize: StaticShape requires StaticAlloc", b.Name()))
	}
	b.mu.Lock()
	b.active, b.opts = !o.Off, o
	b.cache, b.params, b.last, b.rewrite = nil, nil, nil, nil
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
	b.cache, b.params, b.last = nil, nil, nil
	b.mu.Unlock()
}

// rescan re-reads the block's fields (and its descendants') for children
// and parameters; a change drops the compiled graphs. A hybridized block
// rescans only when it compiles, so that a call of a compiled graph walks
// no struct.
func (b *HybridBlock) rescan() {
	if b.scan() {
		b.checkHybridChildren()
		b.clearCache()
	}
}

// RegisterOpHook calls fn with the output of every op of the hybridized
// graph (and its inputs too when monitorAll), named like
// "dense0_fwd_output"; nil removes the hook. A hooked block runs graphs
// compiled without fusion, so that every op's output is seen.
func (b *HybridBlock) RegisterOpHook(fn graph.OpHook, monitorAll bool) {
	b.mu.Lock()
	b.opHook = nil
	if fn != nil {
		b.opHook = &opHook{fn, monitorAll}
	}
	for _, cg := range b.cache {
		if cg.hooked {
			cg.exec.SetOpHook(fn, monitorAll)
		}
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
	symbolic := isSymbolic(xs)
	if symbolic || !b.active {
		b.rescan() // a hybridized call rescans when it compiles
	}
	prof := eager.ActiveProfiler()
	if prof != nil && !symbolic {
		mode := eager.ModeEager
		if b.active {
			mode = eager.ModeHybridized
		}
		prof.Begin(b.Name(), mode)
	}
	b.runPreHooks(xs)
	var out []ops.Tensor
	switch {
	case symbolic:
		out = b.traced(xs)
	case b.active:
		out = b.cached(xs)
	default:
		out = b.call(ops.NewF(deferredInterp{}), xs)
	}
	b.runHooks(xs, out)
	if prof != nil && !symbolic {
		prof.End(eager.SpanMemory{})
	}
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

// cached runs the block's compiled graph for the call's signature,
// compiling it (and tracing, for new input shapes) on first use.
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
	cg.bind(bound, args)
	outs, err := cg.exec.Call(bound...)
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

// graphFor returns the compiled graph for a call on these data inputs,
// compiling it the first time its signature is seen, and remembers it as
// the last. A repeated signature costs one map lookup and no allocation.
func (b *HybridBlock) graphFor(args []*eager.NDArray) (*cachedGraph, error) {
	b.mu.Lock()
	onTape := b.onTape(args)
	b.key = b.appendKey(b.key[:0], args, onTape)
	cg := b.cache[string(b.key)]
	if cg != nil {
		b.last = cg
	}
	b.mu.Unlock()
	if cg != nil {
		return cg, nil
	}
	return b.compile(args)
}

// onTape reports whether a call on args goes on the autograd tape:
// recording is on and a data input or a bound parameter needs a gradient.
func (b *HybridBlock) onTape(args []*eager.NDArray) bool {
	if !eager.IsRecording() {
		return false
	}
	if eager.Taped(args) {
		return true
	}
	for _, p := range b.params {
		if p.data != nil && p.data.RequiresGrad() {
			return true
		}
	}
	return false
}

// appendKey appends the signature of a call to key: a flag byte (on the
// tape, hooked), each data input's dtype, gradient need, rank and dims,
// and each bound parameter's dtype and gradient need (its shape is fixed
// once it has values). It holds everything graph.SignatureOf reads, so
// that one key selects one executable.
func (b *HybridBlock) appendKey(key []byte, args []*eager.NDArray, onTape bool) []byte {
	var flags byte
	if onTape {
		flags |= 1
	}
	if b.opHook != nil {
		flags |= 2
	}
	key = append(key, flags)
	for _, a := range args {
		v := a.Value()
		key = append(key, arrayFlags(a, onTape))
		key = binary.AppendUvarint(key, uint64(len(v.Shape)))
		for _, d := range v.Shape {
			key = binary.AppendUvarint(key, uint64(d))
		}
	}
	for _, p := range b.params {
		if p.data == nil {
			key = append(key, 0xff)
			continue
		}
		key = append(key, arrayFlags(p.data, onTape))
	}
	return key
}

// arrayFlags is an array's dtype and, on the tape, whether it needs a
// gradient, in one byte.
func arrayFlags(a *eager.NDArray, onTape bool) byte {
	f := byte(a.DType()) << 1
	if onTape && a.RequiresGrad() {
		f |= 1
	}
	return f
}

// compile makes the graph for a call signature not seen before. It traces
// the forward unless a graph for the same data inputs was traced already
// (calls that differ in the gradients they need, or in being hooked,
// share the trace), and rescans the block's fields first. With
// StaticShape one set of data shapes is kept: a call with others replaces
// the graphs, as MXNet's static_shape re-plans for a new shape.
func (b *HybridBlock) compile(args []*eager.NDArray) (*cachedGraph, error) {
	b.rescan()
	b.mu.Lock()
	var traced *cachedGraph
	for k, cg := range b.cache {
		switch {
		case cg.accepts(args):
			traced = cg
		case b.opts.StaticShape:
			delete(b.cache, k)
		}
	}
	hook := b.opHook
	b.mu.Unlock()
	cg := &cachedGraph{hooked: hook != nil}
	if traced != nil {
		cg.argShapes, cg.argTypes = traced.argShapes, traced.argTypes
		cg.sym, cg.traced, cg.inputs = traced.sym, traced.traced, traced.inputs
	} else if err := b.build(cg, args); err != nil {
		return nil, err
	}
	bound := make([]*eager.NDArray, len(cg.inputs))
	cg.bind(bound, args)
	b.mu.Lock()
	for _, in := range cg.inputs {
		if in.param != nil && !slices.Contains(b.params, in.param) {
			b.params = append(b.params, in.param)
		}
	}
	// On the tape or not is decided here, after the first trace has found
	// the parameters: a call that needs their gradients goes on the tape
	// even where graphFor could not tell.
	onTape := b.onTape(args)
	b.mu.Unlock()
	exec, err := graph.Compile(cg.sym, graph.SignatureOf(bound, onTape), graph.CompileOptions{StaticAlloc: b.opts.StaticAlloc, Passes: b.opts.Passes, Hooked: cg.hooked})
	if err != nil {
		return nil, err
	}
	if hook != nil {
		exec.SetOpHook(hook.fn, hook.all)
	}
	cg.exec = exec
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cache == nil {
		b.cache = map[string]*cachedGraph{}
	}
	b.key = b.appendKey(b.key[:0], args, onTape) // parameters may have got their values
	b.cache[string(b.key)] = cg
	b.last = cg
	return cg, nil
}

// bind fills bound, one array per input of the graph, from the data
// inputs and the parameters.
func (cg *cachedGraph) bind(bound, args []*eager.NDArray) {
	for i, in := range cg.inputs {
		if in.param != nil {
			bound[i] = in.param.Data()
		} else {
			bound[i] = args[in.data]
		}
	}
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

// build traces the forward for these data inputs into cg: the graph that
// runs, the graph as traced, and how each of its inputs is bound.
func (b *HybridBlock) build(cg *cachedGraph, args []*eager.NDArray) error {
	shapes := make([]ops.Shape, len(args))
	dtypes := make([]ops.DType, len(args))
	for i, a := range args {
		shapes[i], dtypes[i] = a.Shape(), a.DType()
	}
	sym, ts, err := b.trace(shapes, dtypes)
	if err != nil {
		return err
	}
	traced := sym
	if b.rewrite != nil {
		if sym, err = b.rewrite(sym); err != nil {
			return err
		}
	}
	byName := map[string]*Parameter{}
	for p := range ts.vars {
		if !p.Initialized() {
			return p.notReady()
		}
		byName[p.name] = p
	}
	names, err := graph.CallInputs(sym)
	if err != nil {
		return err
	}
	cg.argShapes, cg.argTypes, cg.sym, cg.traced = shapes, dtypes, sym, traced
	for _, name := range names {
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
			return fmt.Errorf("the traced graph has an input %q that is neither a data input nor a parameter of the block", name)
		}
		cg.inputs = append(cg.inputs, binding{data: idx})
	}
	return nil
}

// accepts reports whether cg was traced for data inputs of these shapes
// and dtypes.
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

// HybridBlockOf returns the HybridBlock of a hybrid block given as any
// value (see LastGraphOf): the one a compiled layer embeds, or the one a
// block type defined in interpreted Go embeds, whose promoted methods the
// interpreter cannot pass as an interface. It is nil when v is not a
// hybrid block.
func HybridBlockOf(v any) *HybridBlock {
	c := coreOf(reflect.ValueOf(v))
	if c == nil {
		return nil
	}
	return c.hybrid
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
