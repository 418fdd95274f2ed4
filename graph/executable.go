package graph

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// CompileOptions are the flags Hybridize passes on.
type CompileOptions struct {
	// StaticAlloc keeps every intermediate buffer across calls instead of
	// allocating per call (calls on the tape keep theirs until Backward
	// releases them). Outputs returned by Forward, and by Call outside
	// the tape, then stay valid only until the next call, and calls must
	// not overlap.
	StaticAlloc bool
	// Passes are the optimisations run on the compiled graph; nil means
	// InferencePassOptions (all of them).
	Passes *PassOptions
	// Hooked compiles for an op hook (SetOpHook): nothing is fused, so
	// that the hook sees every op's output.
	Hooked bool
}

// A Signature is what a compiled graph is specialised for: the shape and
// dtype of each input (in CallInputs order) and the inputs whose
// gradients it leaves out.
type Signature struct {
	Shapes []ops.Shape
	DTypes []ops.DType
	NoGrad []bool // nil: every input may get a gradient
}

// SignatureOf is the signature of a call on args. On the autograd tape
// (onTape), the inputs that need no gradient (the data, as a rule) have
// theirs left out, so that the backward skips the ops only they need.
func SignatureOf(args []*eager.NDArray, onTape bool) Signature {
	s := Signature{Shapes: make([]ops.Shape, len(args)), DTypes: make([]ops.DType, len(args))}
	for i, a := range args {
		s.Shapes[i], s.DTypes[i] = a.Shape(), a.DType()
		if onTape && !a.RequiresGrad() {
			if s.NoGrad == nil {
				s.NoGrad = make([]bool, len(args))
			}
			s.NoGrad[i] = true
		}
	}
	return s
}

// CallInputs names the variables a call of sym binds, in the order
// Compile's signature and the Executable's calls take them: every input
// but the constants.
func CallInputs(sym *Symbol) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for _, n := range sym.Graph().Inputs() {
		if n.Value != nil {
			continue
		}
		if seen[n.Name] {
			return nil, fmt.Errorf("graph: two variables are named %q", n.Name)
		}
		seen[n.Name] = true
		names = append(names, n.Name)
	}
	return names, nil
}

// Executable is a graph compiled for one Signature, ready to run many
// times: MXNet's CachedOp for one set of inputs. Compiling infers every
// shape, builds the gradient graph, runs the passes over forward and
// backward together, plans the buffers and numbers every value, so a
// call runs kernel after kernel with no inference and no maps.
//
// Call runs it as one node of the eager autograd tape, so Record and
// Backward flow through the whole graph. Forward and Backward run it
// directly, without the tape. An Executable does not compile again: a
// caller that meets another signature compiles another (a HybridBlock
// keeps them, keyed by signature).
//
// With PassOptions.Inference (on by default), calls outside Record and
// outside training run a second program, compiled on the first such call
// with FoldBatchNorm among its passes and no backward part; the program
// of the other calls never folds.
type Executable struct {
	p      *program
	inputs []string // the variables callers bind, in order (constants excluded)
	static bool     // StaticAlloc

	// infer is the program of calls outside Record and training, made by
	// compileInfer on first use; compileInfer is nil when the passes
	// leave Inference out.
	inferOnce    sync.Once
	infer        *program
	inferErr     error
	compileInfer func() (*program, error)

	mu   sync.Mutex
	hook *hookSpec
	// training and frame are the latest Forward's mode and values, which
	// Backward reads; backwardRan says that a Backward has run on them
	// already.
	training    bool
	frame       []ops.Value
	backwardRan bool
}

// Compile compiles sym for calls of signature sig.
func Compile(sym *Symbol, sig Signature, opts CompileOptions) (*Executable, error) {
	inputs, err := CallInputs(sym)
	if err != nil {
		return nil, err
	}
	if len(sig.Shapes) != len(inputs) || len(sig.DTypes) != len(inputs) || sig.NoGrad != nil && len(sig.NoGrad) != len(inputs) {
		return nil, fmt.Errorf("graph: the graph takes %d inputs (%s); the signature has %d shapes and %d dtypes", len(inputs), strings.Join(inputs, ", "), len(sig.Shapes), len(sig.DTypes))
	}
	passes := InferencePassOptions()
	if opts.Passes != nil {
		passes = *opts.Passes
	}
	main := passes
	main.Inference = false
	entries := sym.Entries()
	p, err := compile(entries, inputs, sig.Shapes, sig.DTypes, sig.NoGrad, &main, opts.Hooked)
	if err != nil {
		return nil, err
	}
	e := &Executable{p: p, inputs: inputs, static: opts.StaticAlloc}
	if passes.Inference && !opts.Hooked {
		shapes, dtypes := slices.Clone(sig.Shapes), slices.Clone(sig.DTypes)
		e.compileInfer = func() (*program, error) {
			return compile(entries, inputs, shapes, dtypes, nil, &passes, false)
		}
	}
	return e, nil
}

// program returns the program of a call: the inference one for calls
// outside the tape and training, when there is one.
func (e *Executable) program(onTape, training bool) (*program, error) {
	if onTape || training || e.compileInfer == nil {
		return e.p, nil
	}
	e.inferOnce.Do(func() { e.infer, e.inferErr = e.compileInfer() })
	return e.infer, e.inferErr
}

// InputNames names the variables a call binds, in the order Call and
// Forward take their values.
func (e *Executable) InputNames() []string { return append([]string(nil), e.inputs...) }

// NumOutputs is the number of outputs of a call.
func (e *Executable) NumOutputs() int { return len(e.p.outSlot) }

// SetOpHook makes every op of the graph report its output (and, with
// monitorAll, its inputs) to fn as it runs; nil removes the hook. An
// Executable compiled without CompileOptions.Hooked reports its fused
// ops as one.
func (e *Executable) SetOpHook(fn OpHook, monitorAll bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if fn == nil {
		e.hook = nil
		return
	}
	e.hook = &hookSpec{fn: fn, all: monitorAll}
}

func (e *Executable) opHook() *hookSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hook
}

// check refuses arguments of another signature than the one compiled:
// other shapes or dtypes, or, on the tape, a gradient that the program
// leaves out.
func (e *Executable) check(args []*eager.NDArray, onTape bool) error {
	if !e.p.accepts(args, onTape) {
		return fmt.Errorf("graph: the graph was compiled for inputs %s; got %s (compile it again for these)", e.describe(), describeArgs(e.inputs, args))
	}
	return nil
}

// describeArgs names the inputs with the shapes the arrays have.
func describeArgs(names []string, args []*eager.NDArray) string {
	parts := make([]string, len(args))
	for i, a := range args {
		name := fmt.Sprintf("input %d", i)
		if i < len(names) {
			name = names[i]
		}
		parts[i] = fmt.Sprintf("%s %v", name, ShapeString(a.Shape(), a.DType()))
	}
	return strings.Join(parts, ", ")
}

func (e *Executable) describe() string {
	p := e.p
	parts := make([]string, len(p.varSlot))
	for i, s := range p.varSlot {
		parts[i] = fmt.Sprintf("%s %v", e.inputs[i], ShapeString(p.shapes[s], p.dtypes[s]))
	}
	return strings.Join(parts, ", ")
}

// Call runs the graph on the inputs (in InputNames order). Inside Record,
// when some input needs a gradient, the call is one node of the autograd
// tape (eager.RecordCall): Backward flows through it into the inputs, and
// the outputs are new arrays owned by the caller. Any other call runs in
// the current training mode and keeps nothing: with StaticAlloc its
// outputs are the executable's own buffers, valid until the next call, as
// in MXNet, and the call allocates nothing; without, they are new arrays.
func (e *Executable) Call(args ...*eager.NDArray) ([]*eager.NDArray, error) {
	onTape := eager.Taped(args)
	if err := e.check(args, onTape); err != nil {
		return nil, err
	}
	training := eager.IsTraining()
	p, err := e.program(onTape, training)
	if err != nil {
		return nil, err
	}
	// A call on the tape keeps its values for its backward, in planned
	// buffers, even with StaticAlloc, until the tape releases it, and its
	// frame then goes to a later call on the tape. A call outside the
	// tape without StaticAlloc keeps nothing once its outputs are copied
	// out, so its frame serves the next such call at once.
	prof := eager.ActiveProfiler()
	if prof != nil {
		prof.Begin(eager.GraphCall, eager.ModeHybridized)
	}
	var frame []ops.Value
	dirty, fresh := true, false
	switch {
	case onTape:
		frame, dirty = p.tapeFrame()
		fresh = !dirty
	case e.static:
		fresh = p.static == nil
		frame = e.staticFrame(p)
	default:
		frame, fresh = p.borrowFrame()
	}
	p.bind(frame, args)
	r, unlock := p.randFor()
	err = p.run(frame, 0, p.nForward, training, r, e.opHook(), dirty, nil)
	unlock()
	if prof != nil {
		e.profileEnd(p, prof, onTape, fresh)
	}
	switch {
	case onTape:
		if err != nil {
			p.returnTapeFrame(frame)
			return nil, err
		}
		out := p.copyOut(frame)
		eager.RecordCall(&tapeCall{e: e, frame: frame, recycled: dirty, training: training}, args, out)
		return out, nil
	case e.static:
		if err != nil {
			return nil, err
		}
		if p == e.p {
			e.remember(frame, training)
		}
		return p.arrays(frame, p.outSlot, &p.outArrays), nil
	default:
		defer p.returnFrame(frame)
		if err != nil {
			return nil, err
		}
		return p.copyOut(frame), nil
	}
}

// profileEnd closes a call's profiler span with the bytes of its memory
// plan and what the call allocated: its frame when it was new, and the
// outputs it copies out (all but a StaticAlloc call outside the tape).
func (e *Executable) profileEnd(p *program, prof eager.Profiler, onTape, fresh bool) {
	forwardOnly := !onTape && !e.static
	planned := p.bufferBytes(forwardOnly)
	var copied int64
	if onTape || !e.static {
		for _, s := range p.outSlot {
			copied += int64(p.shapes[s].Size()) * int64(p.dtypes[s].Size())
		}
	}
	m := eager.SpanMemory{Allocated: copied, Planned: planned, Peak: planned + copied}
	if fresh {
		m.Allocated += planned
	}
	prof.End(m)
}

// staticFrame returns the one frame of StaticAlloc of program p (e's or
// its inference one), made on first use: a program that only ever runs
// on the tape never needs it.
func (e *Executable) staticFrame(p *program) []ops.Value {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p.static == nil {
		p.allocateStatic()
	}
	return p.static
}

// remember keeps a forward's values for Backward.
func (e *Executable) remember(frame []ops.Value, training bool) {
	e.mu.Lock()
	e.training, e.frame, e.backwardRan = training, frame, false
	e.mu.Unlock()
}

// Forward runs the graph on the inputs (in InputNames order) without the
// autograd tape and returns its outputs. With StaticAlloc the outputs (the
// slice and its arrays) are the executable's own buffers, valid until the
// next call, and a call allocates nothing; the values needed by Backward
// are kept either way.
func (e *Executable) Forward(training bool, args ...*eager.NDArray) ([]*eager.NDArray, error) {
	if err := e.check(args, false); err != nil {
		return nil, err
	}
	p := e.p
	var frame []ops.Value
	if e.static {
		frame = e.staticFrame(p)
	} else {
		frame = p.allocate(false) // Backward may follow
	}
	p.bind(frame, args)
	r, unlock := p.randFor()
	err := p.run(frame, 0, p.nForward, training, r, e.opHook(), e.static, nil)
	unlock()
	if err != nil {
		return nil, err
	}
	e.remember(frame, training)
	return p.arrays(frame, p.outSlot, &p.outArrays), nil
}

// Backward runs the gradient graph after Forward, with one head gradient
// per output, and returns the gradient of each input (nil for inputs that
// get none: integer inputs, auxiliary states and inputs whose gradients
// the signature leaves out). With StaticAlloc the gradients are the
// executable's own buffers, valid until the next call, and a call
// allocates nothing.
func (e *Executable) Backward(headGrads ...*eager.NDArray) ([]*eager.NDArray, error) {
	e.mu.Lock()
	frame, training, again := e.frame, e.training, e.backwardRan
	e.backwardRan = true
	e.mu.Unlock()
	if frame == nil {
		return nil, fmt.Errorf("graph: Backward needs a Forward first")
	}
	p := e.p
	if err := p.backward(frame, headGrads, training, again, e.opHook(), again || p.static != nil, nil); err != nil {
		return nil, err
	}
	return p.arrays(frame, p.gradSlot, &p.gradArrays), nil
}

// tapeCall is one call on the autograd tape: its frame holds the
// forward's values until the tape releases it. recycled says that the
// frame came from an earlier call, and backwardRan that a backward has
// run on it (the tape's retainGraph).
type tapeCall struct {
	e           *Executable
	frame       []ops.Value
	training    bool
	recycled    bool
	backwardRan bool
}

// Backward runs the program's backward part on the call's values and
// returns the input gradients. They lie in the call's frame (graph
// outputs, which no step overwrites) until the tape releases the call or
// runs its backward again: the tape copies what it keeps longer, so a
// training step copies each gradient once, into its Grad buffer.
func (c *tapeCall) Backward(outGrads []*eager.NDArray) ([]*eager.NDArray, error) {
	return c.BackwardEach(outGrads, nil)
}

// BackwardEach is Backward that also hands each input's gradient to each
// (when not nil) as soon as the step computing it has run, while the
// steps for the inputs nearer the start are still to run (eager's
// StreamingCall: gradient hooks fire inside a hybridized block).
// Gradients that no backward step computes are only returned.
func (c *tapeCall) BackwardEach(outGrads []*eager.NDArray, each func(j int, g *eager.NDArray)) ([]*eager.NDArray, error) {
	if c.frame == nil {
		return nil, fmt.Errorf("graph: the recorded call was released")
	}
	p := c.e.p
	again := c.backwardRan
	c.backwardRan = true
	grads := make([]*eager.NDArray, len(p.gradSlot))
	var after func(step int)
	if each != nil && p.gradAt != nil {
		after = func(step int) {
			for _, j := range p.gradAt[step] {
				grads[j] = eager.FromValue(c.frame[p.gradSlot[j]])
				each(j, grads[j])
			}
		}
	}
	if err := p.backward(c.frame, outGrads, c.training, again, c.e.opHook(), c.recycled || again, after); err != nil {
		return nil, err
	}
	for i, s := range p.gradSlot {
		if s >= 0 && grads[i] == nil {
			grads[i] = eager.FromValue(c.frame[s])
		}
	}
	return grads, nil
}

// Release gives the call's frame to the next call on the tape.
func (c *tapeCall) Release() {
	if c.frame != nil {
		c.e.p.returnTapeFrame(c.frame)
		c.frame = nil
	}
}

// copyValue returns a new array holding v's values.
func copyValue(v ops.Value) *eager.NDArray {
	c := ops.NewValue(v.Shape, v.DType)
	ops.CopyData(c.Data, v.Data)
	return eager.FromValue(c)
}
