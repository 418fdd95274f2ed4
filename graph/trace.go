package graph

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Tracer is the interpreter that records ops instead of running them:
// every op applied through its F appends a node and returns a Symbol
// whose shape and dtype come from the op's rules. One Tracer builds one
// graph; its names are unique within it.
type Tracer struct {
	mu       sync.Mutex
	counts   map[string]int // per name stem, for "relu0", "relu1", …
	prefix   []string       // name scopes (blocks)
	nextName string         // a name asked for the next node
	nextStem string         // a name stem asked for the next node, counted
	consts   int
	derived  bool // builds a graph derived from a traced one (gradients): unobserved
	session  bool // stands for the current eager.State's tracer (see sessionTracer)
}

// NewTracer returns a tracer with fresh names.
func NewTracer() *Tracer { return &Tracer{counts: map[string]int{}} }

// F returns the op namespace that records into t.
func (t *Tracer) F() ops.F { return ops.NewF(t) }

// The symbols built outside any trace, through F, are named by a tracer
// kept in the current eager.State, so that each REPL session counts
// relu0, relu1, … on its own, as a new process does.
type tracerKey struct{}

func newSessionTracer() any { return NewTracer() }

// sessionTracer stands for the current state's tracer: its Apply, Scope
// and NameNext act on that one.
var sessionTracer = &Tracer{session: true}

// resolve returns the tracer that t stands for: t itself, or for
// sessionTracer the current state's.
func (t *Tracer) resolve() *Tracer {
	if !t.session {
		return t
	}
	return eager.CurrentState().Slot(tracerKey{}, newSessionTracer).(*Tracer)
}

// F is the symbolic op namespace: ops applied through it build graphs.
// Its node names count per eager.State (per REPL session).
//
//	x := graph.Var("data", ops.Shape{16, 784}, ops.Float32)
//	y := graph.F.Relu(x) // <Symbol relu0 16x784 float32>
var F = sessionTracer.F()

// Scope runs fn with names prefixed by prefix ("net0_dense0_"), as a
// block's name scope does. Scopes nest; the innermost one names the nodes
// (a block's prefix already holds its parents').
func (t *Tracer) Scope(prefix string, fn func()) {
	t = t.resolve()
	t.mu.Lock()
	t.prefix = append(t.prefix, prefix)
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.prefix = t.prefix[:len(t.prefix)-1]
		t.mu.Unlock()
	}()
	fn()
}

// NameNext makes the next node recorded take the given name (with the
// current prefix), as Gluon layers name their outputs "dense0_fwd".
func (t *Tracer) NameNext(name string) {
	t = t.resolve()
	t.mu.Lock()
	t.nextName = name
	t.mu.Unlock()
}

// CountNext makes the next node recorded take a counted name of the
// given stem (with the current prefix) instead of its op's name, as MXNet
// names the node of Symbol's x + y "_plus0", "_plus1", ….
func (t *Tracer) CountNext(stem string) {
	t = t.resolve()
	t.mu.Lock()
	t.nextStem = stem
	t.mu.Unlock()
}

// newName returns a fresh node name: prefix + stem + count.
func (t *Tracer) newName(stem string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	prefix := ""
	if len(t.prefix) > 0 {
		prefix = t.prefix[len(t.prefix)-1]
	}
	if t.nextName != "" {
		n := prefix + t.nextName
		t.nextName = ""
		return n
	}
	if t.nextStem != "" {
		stem, t.nextStem = t.nextStem, ""
	}
	key := prefix + stem
	i := t.counts[key]
	t.counts[key] = i + 1
	return fmt.Sprintf("%s%d", key, i)
}

// Apply records op on inputs and returns a Symbol per output. Inputs are
// Symbols, or NDArrays, which become constant variables of the graph.
func (t *Tracer) Apply(op *ops.Op, attrs ops.Attrs, inputs []ops.Tensor) ([]ops.Tensor, error) {
	t = t.resolve()
	entries := make([]Entry, len(inputs))
	for i, in := range inputs {
		switch v := in.(type) {
		case *Symbol:
			if len(v.outs) != 1 {
				return nil, &ops.Error{Op: op.Name(), Msg: fmt.Sprintf("input %d is a group of %d outputs; pick one with Output(i)", i, len(v.outs))}
			}
			entries[i] = v.outs[0]
		case *eager.NDArray:
			entries[i] = t.constant(v)
		default:
			return nil, &ops.Error{Op: op.Name(), Msg: fmt.Sprintf("input %d is a %T; a traced op takes Symbols (or NDArrays, used as constants)", i, in)}
		}
	}
	n, err := t.addNode(op, attrs, entries)
	if err != nil {
		return nil, err
	}
	out := make([]ops.Tensor, n.NumOutputs())
	for i := range out {
		out[i] = &Symbol{outs: []Entry{{n, i}}}
	}
	return out, nil
}

// constant makes a variable that holds an NDArray's value.
func (t *Tracer) constant(a *eager.NDArray) Entry {
	t.mu.Lock()
	prefix := ""
	if len(t.prefix) > 0 {
		prefix = t.prefix[len(t.prefix)-1]
	}
	name := fmt.Sprintf("%sconst%d", prefix, t.consts)
	t.consts++
	t.mu.Unlock()
	return Entry{&Node{Name: name, Shapes: []ops.Shape{a.Shape()}, DTypes: []ops.DType{a.DType()}, Value: a}, 0}
}

// addNode infers the node's output shapes and dtypes from its inputs and
// records it; unknown dims of input variables that the op's rules fill in
// (a weight's shape inferred from the data's) are written back to them.
func (t *Tracer) addNode(op *ops.Op, attrs ops.Attrs, in []Entry) (*Node, error) {
	n := &Node{Op: op, Attrs: attrs, Inputs: in, Name: t.newName(strings.ToLower(op.Name()))}
	if err := inferNode(n); err != nil {
		return nil, err
	}
	if fn := traceObserver().Load(); fn != nil && !t.derived {
		(*fn)(n)
	}
	return n, nil
}

type observerKey struct{}

// traceObserver holds the function told of every node any tracer
// records, kept in the current eager.State: each REPL session has its own.
func traceObserver() *atomic.Pointer[func(*Node)] {
	return eager.CurrentState().Slot(observerKey{}, func() any { return new(atomic.Pointer[func(*Node)]) }).(*atomic.Pointer[func(*Node)])
}

// SetTraceObserver makes fn see every op node that a Tracer records,
// once its output shapes and dtypes are inferred, in the order the forward
// applies the ops: the REPL's ":trace on" prints them as a hybridized block
// traces. The gradient graphs derived from traced ones are not observed.
// nil removes the observer. It returns the previous one (nil when
// there was none). fn runs on the tracing goroutine and must not trace.
// The observer belongs to the current eager.State, as the names do.
func SetTraceObserver(fn func(n *Node)) (previous func(n *Node)) {
	var p *func(*Node)
	if fn != nil {
		p = &fn
	}
	if old := traceObserver().Swap(p); old != nil {
		return *old
	}
	return nil
}

// inferNode runs the op's dtype and shape rules on the node's inputs,
// sets its outputs' shapes and dtypes, and fills unknown dims and dtypes
// of input variables.
func inferNode(n *Node) error {
	dtypes := make([]ops.DType, len(n.Inputs))
	shapes := make([]ops.Shape, len(n.Inputs))
	for i, e := range n.Inputs {
		dtypes[i], shapes[i] = e.DType(), e.Shape()
	}
	outTypes, err := n.Op.InferDType(n.Attrs, dtypes)
	if err != nil {
		return nodeError(n, err)
	}
	outShapes, filled, err := n.Op.InferShape(n.Attrs, shapes)
	if err != nil {
		// With an input of unknown rank the rule had too little to go on:
		// leave the outputs unknown until concrete shapes arrive.
		for _, s := range shapes {
			if s == nil {
				n.Shapes, n.DTypes = make([]ops.Shape, n.Op.NumOutputs(n.Attrs)), outTypes
				return nil
			}
		}
		return nodeError(n, err)
	}
	for i, e := range n.Inputs {
		v := e.Node
		if !v.IsVar() {
			fillCreated(e, filled[i])
			continue
		}
		if !v.Shapes[0].Known() && len(filled[i]) > 0 {
			v.Shapes[0] = filled[i]
		}
		if v.DTypes[0] == ops.Unknown && !n.Op.HasDTypeRule() && len(outTypes) > 0 {
			v.DTypes[0] = outTypes[0]
		}
	}
	n.Shapes, n.DTypes = outShapes, outTypes
	return nil
}

// fillCreated gives an array made from a shape attribute alone (_zeros,
// _ones, _full) the shape its consumer inferred, when its own has unknown
// dims: MXNet's Gluon writes a recurrent layer's initial states as
// _zeros of shape (layers, 0, hidden), whose batch the RNN op infers.
func fillCreated(e Entry, shape ops.Shape) {
	v := e.Node
	if len(v.Inputs) > 0 || v.Shapes[e.Index].Known() || !shape.Known() || !v.Shapes[e.Index].Fits(shape) {
		return
	}
	m := v.Op.FormatAttrs(v.Attrs)
	if _, ok := m["shape"]; !ok {
		return
	}
	m["shape"] = shape.Tuple()
	if a, err := v.Op.ParseAttrs(m); err == nil {
		v.Attrs, v.Shapes[e.Index] = a, shape.Clone()
	}
}

// nodeError names the graph node in an op's error.
func nodeError(n *Node, err error) error {
	if e, ok := ops.AsError(err); ok {
		cp := *e
		cp.Msg = fmt.Sprintf("node %s: %s", n.Name, e.Msg)
		return &cp
	}
	return fmt.Errorf("node %s (%s): %w", n.Name, n.Op.Name(), err)
}

// HybridizationError is what a traced function gets when it asks a Symbol
// for something only an NDArray has: its values. It names the node and op
// that made the tensor, what was attempted, and what to do instead.
type HybridizationError struct {
	Block   string // the block being traced, when known
	Node    string // the node that produced the tensor ("conv0_fwd")
	Op      string // its op ("Convolution"), or "variable"
	Attempt string // what was asked, e.g. "Float32s()"
	Fix     string
}

func (e *HybridizationError) Error() string {
	where := ""
	if e.Block != "" {
		where = "in block " + e.Block + ": "
	}
	return fmt.Sprintf("hybridize: %s%s on %s (output of %s) — a traced tensor has a shape but no values until the graph runs. %s",
		where, e.Attempt, e.Node, e.Op, e.Fix)
}

// DataVars makes the input variables of a traced function, named as Gluon
// names them: "data" for one input, "data0", "data1", … for several, with
// the given shapes and dtypes (float32 where none is given).
func DataVars(shapes []ops.Shape, dtypes []ops.DType) []ops.Tensor {
	vars := make([]ops.Tensor, len(shapes))
	for i, s := range shapes {
		name := "data"
		if len(shapes) > 1 {
			name = fmt.Sprintf("data%d", i)
		}
		d := ops.Float32
		if i < len(dtypes) {
			d = dtypes[i]
		}
		vars[i] = Var(name, s, d)
	}
	return vars
}

// Trace runs fn under a new tracer with one variable per input (named
// "data" for one input, "data0", "data1", … for several) and returns the
// resulting graph as a Symbol (a group when fn returns several outputs).
func Trace(fn func(f ops.F, inputs []ops.Tensor) []ops.Tensor, shapes []ops.Shape, dtypes []ops.DType) (sym *Symbol, err error) {
	t := NewTracer()
	vars := DataVars(shapes, dtypes)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			sym, err = nil, e
		}
	}()
	outs := fn(t.F(), vars)
	syms := make([]*Symbol, len(outs))
	for i, o := range outs {
		s, ok := o.(*Symbol)
		if !ok {
			return nil, fmt.Errorf("hybridize: output %d is a %T, not a Symbol: a traced function must compute its outputs from its inputs with F", i, o)
		}
		syms[i] = s
	}
	return Group(syms...), nil
}
