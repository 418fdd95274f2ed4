package graph

import (
	"fmt"
	"math/rand/v2"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// program is a graph compiled for one set of input shapes and dtypes: the
// forward nodes, then the nodes of its gradient graph, each with the slots
// (numbered values) its inputs and outputs live in. Running it needs no
// shape inference and no maps: that was all done here, once.
type program struct {
	g        *Graph // the concrete-shaped copy, outputs then gradients
	steps    []step // forward steps, then backward steps
	nForward int    // how many of steps are forward
	shapes   []ops.Shape
	dtypes   []ops.DType
	random   bool
	varSlot  []int // slot of each input variable, in the CachedOp's input order
	consts   []constSlot
	outSlot  []int // forward outputs
	headSlot []int // head-gradient variables of the backward part
	gradSlot []int // gradient of each input (-1 when it has none)
	gradErr  error // why there is no backward part, if there is none
	// static holds one buffer per op-output slot when the op was built with
	// StaticAlloc; nil otherwise.
	static []ops.Value
}

type step struct {
	node *Node
	in   []int
	out  []int
}

type constSlot struct {
	slot  int
	value ops.Value
}

// slotOf numbers entries as they are first seen.
type slotTable struct {
	ids    map[Entry]int
	shapes []ops.Shape
	dtypes []ops.DType
}

func (t *slotTable) slot(e Entry) int {
	if id, ok := t.ids[e]; ok {
		return id
	}
	id := len(t.shapes)
	t.ids[e] = id
	t.shapes = append(t.shapes, e.Shape())
	t.dtypes = append(t.dtypes, e.DType())
	return id
}

// compile copies the graph of outs, gives its input variables (named in
// order by inputs) concrete shapes and dtypes, infers every shape, builds
// the gradient graph with respect to the float inputs that are not
// auxiliary states, and numbers every value.
func compile(outs []Entry, inputs []string, shapes []ops.Shape, dtypes []ops.DType) (*program, error) {
	copied := copyGraph(outs)
	fwd := NewGraph(copied)
	byName := map[string]*Node{}
	for _, n := range fwd.Inputs() {
		byName[n.Name] = n
	}
	vars := make([]*Node, len(inputs))
	for i, name := range inputs {
		n := byName[name]
		n.Shapes[0], n.DTypes[0] = shapes[i].Clone(), dtypes[i]
		vars[i] = n
	}
	if err := InferGraph(fwd); err != nil {
		return nil, err
	}
	p := &program{}
	// The backward part: gradients of every output with respect to the
	// float inputs, weighted by one head-gradient variable per output.
	aux := fwd.auxVars()
	var wrt []*Node
	for _, v := range vars {
		if !aux[v] && v.DTypes[0].IsFloat() {
			wrt = append(wrt, v)
		}
	}
	heads := make([]Entry, len(copied))
	for i, o := range copied {
		heads[i] = Var(fmt.Sprintf("head_grad%d", i), o.Shape(), o.DType()).outs[0]
	}
	grads, err := Gradients(NewTracer(), copied, heads, wrt)
	if err != nil {
		p.gradErr = err
		grads, heads = nil, nil
	}
	all := NewGraph(append(append([]Entry{}, copied...), grads...))
	p.g = all

	table := &slotTable{ids: map[Entry]int{}}
	forward := map[*Node]bool{}
	for _, n := range fwd.Nodes {
		forward[n] = true
	}
	addStep := func(n *Node) {
		s := step{node: n, in: make([]int, len(n.Inputs)), out: make([]int, n.NumOutputs())}
		for i, e := range n.Inputs {
			s.in[i] = table.slot(e)
		}
		for i := range s.out {
			s.out[i] = table.slot(Entry{n, i})
		}
		p.steps = append(p.steps, s)
		p.random = p.random || n.Op.Random()
	}
	for _, v := range vars {
		p.varSlot = append(p.varSlot, table.slot(Entry{v, 0}))
	}
	for _, n := range all.Inputs() {
		if n.Value != nil {
			p.consts = append(p.consts, constSlot{table.slot(Entry{n, 0}), n.Value.Value()})
		}
	}
	for _, n := range fwd.Nodes {
		if !n.IsVar() {
			addStep(n)
		}
	}
	p.nForward = len(p.steps)
	for _, n := range all.Nodes {
		if !n.IsVar() && !forward[n] {
			addStep(n)
		}
	}
	for _, o := range copied {
		p.outSlot = append(p.outSlot, table.slot(o))
	}
	for _, h := range heads {
		p.headSlot = append(p.headSlot, table.slot(h))
	}
	p.gradSlot = make([]int, len(vars))
	for i := range p.gradSlot {
		p.gradSlot[i] = -1
	}
	for i, w := range wrt {
		if grads == nil {
			break
		}
		for j, v := range vars {
			if v == w {
				p.gradSlot[j] = table.slot(grads[i])
			}
		}
	}
	for i, s := range table.shapes {
		if !s.Known() {
			return nil, fmt.Errorf("graph: value %d has an unknown shape %v after inference", i, s)
		}
	}
	p.shapes, p.dtypes = table.shapes, table.dtypes
	return p, nil
}

// newFrame returns the slot values of one run: the static buffers when
// there are some, else a fresh frame whose op outputs are allocated as the
// steps run.
func (p *program) newFrame() []ops.Value {
	frame := make([]ops.Value, len(p.shapes))
	if p.static != nil {
		copy(frame, p.static)
	}
	for _, c := range p.consts {
		frame[c.slot] = c.value
	}
	return frame
}

// allocateStatic gives every op output one buffer kept across calls.
func (p *program) allocateStatic() {
	p.static = make([]ops.Value, len(p.shapes))
	for _, s := range p.steps {
		for _, o := range s.out {
			p.static[o] = ops.NewValue(p.shapes[o], p.dtypes[o])
		}
	}
}

// OpHook sees the value an op node produced (or, when monitoring all, an
// input it read), named as MXNet names them: "dense0_fwd_output",
// "dense0_fwd_data". The array is valid only during the call.
type OpHook func(name, opName string, value *eager.NDArray)

// hookSpec is an op hook with its monitor-all flag.
type hookSpec struct {
	fn  OpHook
	all bool
}

// run executes steps[from:to] on frame.
func (p *program) run(frame []ops.Value, from, to int, training bool, r *rand.Rand, hook *hookSpec) error {
	env := ops.Env{Training: training, Rand: r}
	var inBuf [8]ops.Value
	var outBuf [4]ops.Value
	for _, s := range p.steps[from:to] {
		in := inBuf[:0]
		for _, i := range s.in {
			in = append(in, frame[i])
		}
		out := outBuf[:0]
		for _, o := range s.out {
			if frame[o].Data == nil {
				frame[o] = ops.NewValue(p.shapes[o], p.dtypes[o])
			}
			out = append(out, frame[o])
		}
		if err := s.node.Op.Forward(&env, s.node.Attrs, in, out); err != nil {
			return nodeError(s.node, err)
		}
		if hook != nil {
			p.callHook(hook, s, in, out)
		}
	}
	return nil
}

func (p *program) callHook(h *hookSpec, s step, in, out []ops.Value) {
	n := s.node
	if h.all {
		names := n.Op.InputNames(n.Attrs)
		for i, v := range in {
			h.fn(n.Name+"_"+names[i], n.Op.Name(), eager.FromValue(v))
		}
	}
	for i, v := range out {
		h.fn(Entry{n, i}.OutputName(), n.Op.Name(), eager.FromValue(v))
	}
}

// dataOf wraps a slot value as an NDArray sharing its memory.
func dataOf(v ops.Value) *eager.NDArray { return eager.FromValue(v) }
