package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

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
	varSlot  []int // slot of each input variable, in the Executable's input order
	consts   []constSlot
	outSlot  []int   // forward outputs
	headSlot []int   // head-gradient variables of the backward part
	gradSlot []int   // gradient of each input (-1 when it has none)
	gradAt   [][]int // for each step, the inputs whose gradient it computes
	// noGrad marks the inputs whose gradients were left out: a call on
	// the tape whose inputs need no gradient (the data, as a rule) has
	// its own program, without the backward ops that only they need.
	noGrad  []bool
	gradErr error // why there is no backward part, if there is none
	hooked  bool  // compiled for an op hook: nothing is fused
	// plan shares buffers between values whose lives do not overlap;
	// slotBuffer maps each slot to its buffer (-1 for inputs and
	// constants), and reused marks slots whose buffer held another value
	// first.
	plan       *MemoryPlan
	slotBuffer []int
	reused     []bool
	// static holds the planned buffers, as slot values, when the op was
	// built with StaticAlloc; nil otherwise. It is then also the frame of
	// every call outside the tape (see Executable.Call).
	static []ops.Value
	// clearable marks the slots written by a kernel that adds into its
	// output (ops.Op.Accumulates) and not over its input: a buffer that
	// held another value is cleared before such a kernel runs, and only
	// then.
	clearable []bool
	// maxIn and maxOut are the most inputs and outputs of any step.
	maxIn, maxOut int
	// state is the executor's scratch, kept with the static buffers; nil
	// without them, where runs may be concurrent and take their scratch
	// from states.
	state *runState
	// outArrays and gradArrays wrap the static buffers of the outputs
	// and of the input gradients as arrays, made on first use.
	outArrays, gradArrays []*eager.NDArray
	// spare holds frames of calls that kept nothing (outside Record,
	// without StaticAlloc), for the next such call to reuse; tapeSpare
	// holds whole frames of calls on the tape whose gradient has run and
	// been released, for the next call on the tape.
	// tapeOut counts the tape's frames not given back yet, and tapePeak
	// the most there were at once: as many frames are kept, since a
	// recorded step that calls the graph k times needs k of them.
	spareMu           sync.Mutex
	spare             [][]ops.Value
	tapeSpare         [][]ops.Value
	tapeOut, tapePeak int
	states            []*runState
}

// runState is the scratch of one run: the environment and argument lists
// handed to each kernel. Kernels are called through function values, so
// these would otherwise be allocated on every run.
// errInferenceOnly is the gradient error of a program compiled for calls
// outside Record and training only.
var errInferenceOnly = errors.New("graph: this program was compiled for inference (PassOptions.Inference) and has no backward part")

type runState struct {
	env     ops.Env
	in, out []ops.Value
}

func (p *program) newRunState() *runState {
	return &runState{in: make([]ops.Value, 0, p.maxIn), out: make([]ops.Value, 0, p.maxOut)}
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
//
// passes, when not nil, are run on the joint forward and backward graph;
// with hooked, nothing is fused (layers with their relu, element-wise
// chains), so that an op hook sees every op's output.
//
// A program for inference only (passes.Inference) has no backward part.
func compile(outs []Entry, inputs []string, shapes []ops.Shape, dtypes []ops.DType, noGrad []bool, passes *PassOptions, hooked bool) (*program, error) {
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
	p := &program{hooked: hooked, noGrad: noGrad}
	// The backward part: gradients of every output with respect to the
	// float inputs, weighted by one head-gradient variable per output.
	aux := fwd.auxVars()
	var wrt []*Node
	for i, v := range vars {
		if !aux[v] && v.DTypes[0].IsFloat() && (noGrad == nil || !noGrad[i]) {
			wrt = append(wrt, v)
		}
	}
	heads := make([]Entry, len(copied))
	for i, o := range copied {
		heads[i] = Var(fmt.Sprintf("head_grad%d", i), o.Shape(), o.DType()).outs[0]
	}
	var grads []Entry
	var err error
	if passes != nil && passes.Inference {
		p.gradErr = errInferenceOnly
		heads = nil
	} else {
		gt := NewTracer()
		gt.derived = true // the trace observer sees forward ops only
		if grads, err = Gradients(gt, copied, heads, wrt); err != nil {
			p.gradErr = err
			grads, heads = nil, nil
		}
	}
	all := NewGraph(append(append([]Entry{}, copied...), grads...))
	if passes != nil {
		if all, _, err = optimize(all, *passes, !hooked); err != nil {
			return nil, err
		}
	}
	// Forward nodes first (the ones the outputs need), then the backward
	// ones, each group in the graph's order: the order the steps run in
	// and the memory plan's liveness follows.
	fwdOuts, gradOuts := all.Outputs[:len(copied)], all.Outputs[len(copied):]
	fwdNodes := NewGraph(fwdOuts).Nodes
	forward := map[*Node]bool{}
	for _, n := range fwdNodes {
		forward[n] = true
	}
	// The backward nodes are visited from the last input's gradient to
	// the first, so that the gradient of a layer near the output is
	// computed as soon as its inputs are, not after the layers before it:
	// gradient hooks (a data-parallel trainer) can send it while the rest
	// of the backward runs.
	ordered := &Graph{Outputs: all.Outputs, Nodes: append([]*Node(nil), fwdNodes...)}
	reversed := make([]Entry, len(gradOuts))
	for i, o := range gradOuts {
		reversed[len(gradOuts)-1-i] = o
	}
	for _, n := range NewGraph(reversed).Nodes {
		if !forward[n] {
			ordered.Nodes = append(ordered.Nodes, n)
		}
	}
	p.g = ordered

	table := &slotTable{ids: map[Entry]int{}}
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
		p.maxIn, p.maxOut = max(p.maxIn, len(s.in)), max(p.maxOut, len(s.out))
	}
	// Variables by name: the passes work on copies, and may drop a
	// variable nothing reads (it still gets a slot, so binding works).
	optVars := map[string]*Node{}
	for _, n := range ordered.Inputs() {
		optVars[n.Name] = n
	}
	varEntry := func(v *Node) Entry {
		if n, ok := optVars[v.Name]; ok {
			return Entry{n, 0}
		}
		return Entry{v, 0}
	}
	for _, v := range vars {
		p.varSlot = append(p.varSlot, table.slot(varEntry(v)))
	}
	for _, n := range ordered.Inputs() {
		if n.Value != nil {
			p.consts = append(p.consts, constSlot{table.slot(Entry{n, 0}), n.Value.Value()})
		}
	}
	for _, n := range ordered.Nodes {
		if !n.IsVar() {
			if forward[n] {
				p.nForward++
			}
			addStep(n)
		}
	}
	for _, o := range fwdOuts {
		p.outSlot = append(p.outSlot, table.slot(o))
	}
	for _, h := range heads {
		p.headSlot = append(p.headSlot, table.slot(varEntry(h.Node)))
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
				p.gradSlot[j] = table.slot(gradOuts[i])
			}
		}
	}
	if grads != nil {
		bySlot := map[int][]int{}
		for j, s := range p.gradSlot {
			if s >= 0 {
				bySlot[s] = append(bySlot[s], j)
			}
		}
		p.gradAt = make([][]int, len(p.steps))
		for k, st := range p.steps[p.nForward:] {
			for _, o := range st.out {
				p.gradAt[p.nForward+k] = append(p.gradAt[p.nForward+k], bySlot[o]...)
			}
		}
	}
	for i, s := range table.shapes {
		if !s.Known() {
			return nil, fmt.Errorf("graph: value %d has an unknown shape %v after inference", i, s)
		}
	}
	p.shapes, p.dtypes = table.shapes, table.dtypes
	return p, p.planBuffers(table)
}

// planBuffers assigns every op output a buffer of the memory plan: values
// whose lives do not overlap share one, and in-place ops write over
// their input.
func (p *program) planBuffers(table *slotTable) error {
	plan, _, err := PlanMemory(p.g)
	if err != nil {
		return err
	}
	p.plan = plan
	p.slotBuffer = make([]int, len(p.shapes))
	for i := range p.slotBuffer {
		p.slotBuffer[i] = -1
	}
	shared := make([]int, len(plan.Buffers))
	for e, b := range plan.EntryBuffer {
		if id, ok := table.ids[e]; ok {
			p.slotBuffer[id] = b
			shared[b]++
		}
	}
	p.reused = make([]bool, len(p.shapes))
	for id, b := range p.slotBuffer {
		p.reused[id] = b >= 0 && shared[b] > 1
	}
	p.clearable = make([]bool, len(p.shapes))
	for _, s := range p.steps {
		if !s.node.Op.Accumulates() {
			continue
		}
		for i, o := range s.out {
			p.clearable[o] = i > 0 || !plan.InPlace[s.node] // an in-place op writes output 0 over its input
		}
	}
	return nil
}

// accepts reports whether args have the shapes and dtypes p was compiled
// for and, for a call on the tape, whether every input whose gradient p
// leaves out needs none.
func (p *program) accepts(args []*eager.NDArray, onTape bool) bool {
	if len(args) != len(p.varSlot) {
		return false
	}
	for i, a := range args {
		s := p.varSlot[i]
		v := a.Value()
		if v.DType != p.dtypes[s] || !v.Shape.Equal(p.shapes[s]) {
			return false
		}
		if onTape && p.noGrad != nil && p.noGrad[i] && a.RequiresGrad() {
			return false
		}
	}
	return true
}

// bind puts the inputs into frame.
func (p *program) bind(frame []ops.Value, args []*eager.NDArray) {
	for i, a := range args {
		frame[p.varSlot[i]] = a.Value()
	}
}

// copyOut returns new arrays holding the outputs in frame.
func (p *program) copyOut(frame []ops.Value) []*eager.NDArray {
	out := make([]*eager.NDArray, len(p.outSlot))
	for i, s := range p.outSlot {
		out[i] = copyValue(frame[s])
	}
	return out
}

// randFor returns the shared random generator when p draws random
// numbers, with the function that releases it.
func (p *program) randFor() (*rand.Rand, func()) {
	if !p.random {
		return nil, func() {}
	}
	return eager.LockRand()
}

// backward runs the backward steps on frame, which holds a forward's
// values, with one head gradient per output. again says that a backward
// has run on these values before (see rerunForward), dirty that the
// frame's buffers hold earlier values.
func (p *program) backward(frame []ops.Value, headGrads []*eager.NDArray, training, again bool, hook *hookSpec, dirty bool, each func(step int)) error {
	if p.gradErr != nil {
		return fmt.Errorf("graph: this graph cannot be differentiated: %w", p.gradErr)
	}
	if len(headGrads) != len(p.headSlot) {
		return fmt.Errorf("graph: Backward takes %d head gradients (one per output), got %d", len(p.headSlot), len(headGrads))
	}
	for i, h := range headGrads {
		s := p.headSlot[i]
		v := h.Value()
		if !v.Shape.Equal(p.shapes[s]) {
			return fmt.Errorf("graph: head gradient %d has shape %v, output %d has %v", i, v.Shape, i, p.shapes[s])
		}
		frame[s] = v
	}
	if again {
		if err := p.rerunForward(frame, training); err != nil {
			return fmt.Errorf("graph: %w", err)
		}
	}
	return p.run(frame, p.nForward, len(p.steps), true, nil, hook, dirty, each)
}

// tapeFrame returns a frame for a call on the autograd tape, which keeps
// its values for its backward: a released one (recycled is then true, and
// its buffers hold an earlier call's values), or freshly allocated
// planned buffers. The tape gives it back with returnTapeFrame.
func (p *program) tapeFrame() (frame []ops.Value, recycled bool) {
	p.spareMu.Lock()
	p.tapeOut++
	p.tapePeak = max(p.tapePeak, p.tapeOut)
	if n := len(p.tapeSpare); n > 0 {
		f := p.tapeSpare[n-1]
		p.tapeSpare = p.tapeSpare[:n-1]
		p.spareMu.Unlock()
		return f, true
	}
	p.spareMu.Unlock()
	return p.allocate(false), false
}

// returnTapeFrame keeps the frame of a call on the tape whose gradient
// will not run again, forgetting its inputs and head gradients.
func (p *program) returnTapeFrame(frame []ops.Value) {
	p.forgetInputs(frame)
	for _, s := range p.headSlot {
		frame[s] = ops.Value{}
	}
	p.spareMu.Lock()
	p.tapeOut--
	if len(p.tapeSpare) < p.tapePeak {
		p.tapeSpare = append(p.tapeSpare, frame)
	}
	p.spareMu.Unlock()
}

// forgetInputs drops the frame's references to the call's inputs.
func (p *program) forgetInputs(frame []ops.Value) {
	for _, s := range p.varSlot {
		frame[s] = ops.Value{}
	}
}

// borrowFrame returns a frame for a call that keeps none of its values
// once its outputs are copied out: a spare one, or a new one (fresh is
// then true). Give it back with returnFrame.
func (p *program) borrowFrame() (frame []ops.Value, fresh bool) {
	p.spareMu.Lock()
	if n := len(p.spare); n > 0 {
		f := p.spare[n-1]
		p.spare = p.spare[:n-1]
		p.spareMu.Unlock()
		return f, false
	}
	p.spareMu.Unlock()
	return p.allocate(true), true // no backward follows
}

// returnFrame keeps frame for a later call, forgetting its inputs.
func (p *program) returnFrame(frame []ops.Value) {
	p.forgetInputs(frame)
	p.spareMu.Lock()
	if len(p.spare) < maxSpareFrames {
		p.spare = append(p.spare, frame)
	}
	p.spareMu.Unlock()
}

// maxSpareFrames bounds the frames kept per program for calls outside
// the tape: as many as calls that ran at once.
const maxSpareFrames = 4

// getState returns scratch for a run without the static buffers; give it
// back with putState.
func (p *program) getState() *runState {
	p.spareMu.Lock()
	defer p.spareMu.Unlock()
	if n := len(p.states); n > 0 {
		st := p.states[n-1]
		p.states = p.states[:n-1]
		return st
	}
	return p.newRunState()
}

func (p *program) putState(st *runState) {
	p.spareMu.Lock()
	if len(p.states) < maxSpareFrames {
		p.states = append(p.states, st)
	}
	p.spareMu.Unlock()
}

// allocate makes the plan's buffers and returns a frame whose op-output
// slots are views of them. With forwardOnly, only the buffers that some
// forward step reads or writes are made: a call that is never
// differentiated does not pay for the backward half's. A backward step
// whose output slot has no buffer then gets a fresh one when it runs.
func (p *program) allocate(forwardOnly bool) []ops.Value {
	return p.frameOf(p.buffers(forwardOnly))
}

// buffers makes the plan's buffers (see allocate); unmade ones are nil.
func (p *program) buffers(forwardOnly bool) []any {
	need := p.needed(forwardOnly)
	bufs := make([]any, len(p.plan.Buffers))
	for i, b := range p.plan.Buffers {
		if need == nil || need[i] {
			bufs[i] = ops.MakeData(b.DType, b.Elems)
		}
	}
	return bufs
}

// needed marks the plan's buffers that some forward step reads or
// writes, with forwardOnly; without, it returns nil: all of them.
func (p *program) needed(forwardOnly bool) []bool {
	if !forwardOnly {
		return nil
	}
	need := make([]bool, len(p.plan.Buffers))
	mark := func(slot int) {
		if b := p.slotBuffer[slot]; b >= 0 {
			need[b] = true
		}
	}
	for _, s := range p.steps[:p.nForward] {
		for _, i := range s.in {
			mark(i)
		}
		for _, o := range s.out {
			mark(o)
		}
	}
	return need
}

// bufferBytes is the size of the buffers allocate(forwardOnly) makes.
func (p *program) bufferBytes(forwardOnly bool) int64 {
	need := p.needed(forwardOnly)
	var n int64
	for i, b := range p.plan.Buffers {
		if need == nil || need[i] {
			n += int64(b.Elems) * int64(b.DType.Size())
		}
	}
	return n
}

// frameOf returns a frame whose op-output slots are views of bufs and
// whose constant slots hold the constants (no run writes over them).
func (p *program) frameOf(bufs []any) []ops.Value {
	frame := make([]ops.Value, len(p.shapes))
	for id, b := range p.slotBuffer {
		if b >= 0 && bufs[b] != nil {
			data := bufs[b]
			if n := p.shapes[id].Size(); n != p.plan.Buffers[b].Elems {
				data = ops.SliceData(data, n) // a new slice header, boxed
			}
			frame[id] = ops.Value{Shape: p.shapes[id], DType: p.dtypes[id], Data: data}
		}
	}
	for _, c := range p.consts {
		frame[c.slot] = c.value
	}
	return frame
}

// allocateStatic keeps one set of planned buffers for every call, and the
// executor's scratch with them.
func (p *program) allocateStatic() {
	p.static = p.allocate(false)
	p.state = p.newRunState()
}

// arrays returns the values of slots (-1 for none) as arrays sharing their
// memory. With StaticAlloc the arrays of planned buffers are made once and
// kept in *cache, so that a call allocates nothing.
func (p *program) arrays(frame []ops.Value, slots []int, cache *[]*eager.NDArray) []*eager.NDArray {
	if p.static == nil {
		out := make([]*eager.NDArray, len(slots))
		for i, s := range slots {
			if s >= 0 {
				out[i] = dataOf(frame[s])
			}
		}
		return out
	}
	if *cache == nil {
		*cache = make([]*eager.NDArray, len(slots))
	}
	out := *cache
	for i, s := range slots {
		switch {
		case s < 0:
			out[i] = nil
		case out[i] == nil || p.slotBuffer[s] < 0:
			// Inputs and constants change from call to call.
			out[i] = dataOf(frame[s])
		}
	}
	return out
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

// run executes steps[from:to] on frame. dirty says that the frame's
// buffers hold values of an earlier call (static or reused buffers), so
// that an output is cleared before a kernel that accumulates into it
// runs; other kernels write every element of their outputs.
//
// With StaticAlloc the run uses the program's scratch and allocates
// nothing itself; the kernels' own scratch comes from pools.
func (p *program) run(frame []ops.Value, from, to int, training bool, r *rand.Rand, hook *hookSpec, dirty bool, each func(step int)) error {
	st := p.state
	if st == nil {
		st = p.getState()
		defer p.putState(st)
	}
	st.env = ops.Env{Training: training, Rand: r}
	defer func() { st.env.Rand = nil }()
	prof := eager.ActiveProfiler()
	for k, s := range p.steps[from:to] {
		var start, fresh int64
		if prof != nil {
			start = eager.ProfileClock()
		}
		in := st.in[:0]
		for _, i := range s.in {
			in = append(in, frame[i])
		}
		out := st.out[:0]
		for _, o := range s.out {
			switch {
			case frame[o].Data == nil:
				frame[o] = ops.NewValue(p.shapes[o], p.dtypes[o])
				fresh += eager.ValueBytes(frame[o])
			case p.clearable[o] && (p.reused[o] || dirty):
				// The kernel adds into its output: a reused buffer
				// starts from zero.
				ops.ClearData(frame[o].Data)
			}
			out = append(out, frame[o])
		}
		if err := s.node.Op.Forward(&st.env, s.node.Attrs, in, out); err != nil {
			return nodeError(s.node, err)
		}
		if prof != nil {
			prof.Op(&eager.OpCall{Op: s.node.Op.Name(), Node: s.node.Name, Mode: profileMode(s.node), Inputs: in, Start: start, End: eager.ProfileClock(), Bytes: fresh})
		}
		if hook != nil {
			p.callHook(hook, s, in, out)
		}
		if each != nil {
			each(from + k)
		}
	}
	return nil
}

// profileMode tells a fused group from a single op.
func profileMode(n *Node) eager.ProfileMode {
	if strings.HasPrefix(n.Op.Name(), "_fused") {
		return eager.ModeFused
	}
	return eager.ModeHybridized
}

// rerunForward computes the forward half again on the inputs in frame,
// for a second backward of one call: the first backward reused the
// buffers of forward values once it had read them. A graph that draws
// random numbers cannot: its forward would draw other numbers.
func (p *program) rerunForward(frame []ops.Value, training bool) error {
	if p.random {
		return fmt.Errorf("a second backward of one call needs the forward's values again, and this graph draws random numbers, so it cannot compute them again: run the forward again (inside Record) before each backward")
	}
	return p.run(frame, 0, p.nForward, training, nil, nil, true, nil)
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
