package graph

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// CachedOpOptions are the flags Hybridize passes on.
type CachedOpOptions struct {
	// StaticAlloc keeps every intermediate buffer across calls instead of
	// allocating per call (calls on the tape keep theirs until Backward
	// releases them). Outputs returned by Forward then stay valid only
	// until the next call, and calls must not overlap.
	StaticAlloc bool
	// StaticShape refuses input shapes and dtypes other than the first
	// call's instead of compiling again. It requires StaticAlloc.
	StaticShape bool
	// Passes are the optimisations run on each compiled graph; nil means
	// DefaultPassOptions (all of them).
	Passes *PassOptions
}

// CachedOp runs a graph fast, many times: MXNet's CachedOp. Each set of
// input shapes and dtypes is compiled once into a program (shapes
// inferred, gradient graph built, values numbered) and cached.
//
// Call runs it as one op of the eager autograd tape, so Record and
// Backward flow through the whole graph. Forward and Backward run it
// directly, without the tape.
type CachedOp struct {
	outs   []Entry
	inputs []string // the variables callers bind, in order (constants excluded)
	opts   CachedOpOptions

	mu    sync.Mutex
	progs map[string]*program
	last  *program // the latest call's program: the next call's first guess
	// shapes is the key of the first call's input shapes and dtypes,
	// to which StaticShape holds the op.
	shapes string
	// fwd, fwdTraining and frame are the latest Forward's program, mode
	// and values, which Backward reads; backwardRan says that a Backward
	// has run on them already.
	fwd         *program
	fwdTraining bool
	frame       []ops.Value
	backwardRan bool
	hook        *hookSpec

	callOp *ops.Op // the op that stands for one call on the tape
	backOp *ops.Op // its gradient
}

// NewCachedOp prepares sym to run; nothing is compiled until the first call.
func NewCachedOp(sym *Symbol, opts CachedOpOptions) (*CachedOp, error) {
	if opts.StaticShape && !opts.StaticAlloc {
		return nil, fmt.Errorf("graph: StaticShape requires StaticAlloc")
	}
	c := &CachedOp{outs: sym.Entries(), opts: opts, progs: map[string]*program{}}
	seen := map[string]bool{}
	for _, n := range sym.Graph().Inputs() {
		if n.Value != nil {
			continue
		}
		if seen[n.Name] {
			return nil, fmt.Errorf("graph: two variables are named %q", n.Name)
		}
		seen[n.Name] = true
		c.inputs = append(c.inputs, n.Name)
	}
	c.defineOps()
	return c, nil
}

// InputNames names the variables a call binds, in the order Call,
// Forward and the ops expect their values.
func (c *CachedOp) InputNames() []string { return append([]string(nil), c.inputs...) }

// NumOutputs is the number of outputs of a call.
func (c *CachedOp) NumOutputs() int { return len(c.outs) }

// SetOpHook makes every op of the graph report its output (and, with
// monitorAll, its inputs) to fn as it runs; nil removes the hook.
func (c *CachedOp) SetOpHook(fn OpHook, monitorAll bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fn == nil {
		c.hook = nil
		return
	}
	c.hook = &hookSpec{fn: fn, all: monitorAll}
}

// program returns the compiled program for these inputs, compiling it on
// first use of their shapes and dtypes. onTape says that the call goes on
// the autograd tape: its program then leaves out the gradients of the
// inputs that need none.
func (c *CachedOp) program(args []*eager.NDArray, onTape bool) (*program, error) {
	if len(args) != len(c.inputs) {
		return nil, fmt.Errorf("graph: the cached graph takes %d inputs (%s), got %d", len(c.inputs), strings.Join(c.inputs, ", "), len(args))
	}
	// The common case: the same shapes and dtypes as the last call.
	c.mu.Lock()
	hooked := c.hook != nil
	if p := c.last; p != nil && p.accepts(args, onTape) && p.hooked == hooked {
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()
	shapes := make([]ops.Shape, len(args))
	dtypes := make([]ops.DType, len(args))
	var b strings.Builder
	for i, a := range args {
		shapes[i], dtypes[i] = a.Shape(), a.DType()
		fmt.Fprintf(&b, "%v %v;", shapes[i], dtypes[i])
	}
	shapeKey := b.String()
	noGrad := noGradOf(args, onTape)
	for i, skip := range noGrad {
		if skip {
			fmt.Fprintf(&b, " nograd %d", i)
		}
	}
	if hooked {
		b.WriteString(" hooked")
	}
	key := b.String()
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.progs[key]; ok {
		c.last = p
		return p, nil
	}
	// Programs for the same shapes that differ in their hook or in the
	// gradients they leave out are allowed with StaticShape.
	if c.opts.StaticShape && c.shapes != "" && shapeKey != c.shapes {
		return nil, fmt.Errorf("graph: this graph was hybridized with StaticShape for inputs %s; got %s (hybridize again without StaticShape to accept other shapes)",
			c.describe(c.last), describeArgs(c.inputs, args))
	}
	passes := c.opts.Passes
	if passes == nil {
		d := DefaultPassOptions()
		passes = &d
	}
	p, err := compile(c.outs, c.inputs, shapes, dtypes, noGrad, passes, hooked)
	if err != nil {
		return nil, err
	}
	if c.shapes == "" {
		c.shapes = shapeKey
	}
	c.progs[key] = p
	c.last = p
	return p, nil
}

// describeArgs names the inputs with the shapes the arrays have.
func describeArgs(names []string, args []*eager.NDArray) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprintf("%s %v", names[i], a.Shape())
	}
	return strings.Join(parts, ", ")
}

func (c *CachedOp) describe(p *program) string {
	var parts []string
	for i, s := range p.varSlot {
		parts = append(parts, fmt.Sprintf("%s %v", c.inputs[i], p.shapes[s]))
	}
	return strings.Join(parts, ", ")
}

// bind puts the inputs into a new frame of p.
func (c *CachedOp) bind(p *program, args []*eager.NDArray) []ops.Value {
	frame := p.newFrame() // Backward may follow
	for i, a := range args {
		frame[p.varSlot[i]] = a.Value()
	}
	return frame
}

// randFor returns the shared random generator when p draws random
// numbers, with the function that releases it.
func randFor(p *program) (*rand.Rand, func()) {
	if !p.random {
		return nil, func() {}
	}
	return eager.LockRand()
}

// Forward runs the graph on the inputs (in InputNames order) without the
// autograd tape and returns its outputs. With StaticAlloc the outputs (the
// slice and its arrays) are the op's own buffers, valid until the next
// call, and once the program is planned a call allocates nothing; the
// values needed by Backward are kept either way.
func (c *CachedOp) Forward(training bool, args ...*eager.NDArray) ([]*eager.NDArray, error) {
	p, err := c.program(args, false)
	if err != nil {
		return nil, err
	}
	return c.forward(p, training, args)
}

func (c *CachedOp) forward(p *program, training bool, args []*eager.NDArray) ([]*eager.NDArray, error) {
	if c.opts.StaticAlloc {
		// Made on first use: a program that only ever runs on the tape
		// (training) never needs them.
		c.mu.Lock()
		if p.static == nil {
			p.allocateStatic()
		}
		c.mu.Unlock()
	}
	frame := c.bind(p, args)
	dirty := p.static != nil
	r, unlock := randFor(p)
	err := p.run(frame, 0, p.nForward, training, r, c.hook, dirty)
	unlock()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.fwd, c.fwdTraining, c.frame, c.backwardRan = p, training, frame, false
	c.mu.Unlock()
	return p.arrays(frame, p.outSlot, &p.outArrays), nil
}

// Backward runs the gradient graph after Forward, with one head gradient
// per output, and returns the gradient of each input (nil for inputs that
// get none: integer inputs and auxiliary states). With StaticAlloc the
// gradients are the op's own buffers, valid until the next call, and a
// call allocates nothing.
func (c *CachedOp) Backward(headGrads ...*eager.NDArray) ([]*eager.NDArray, error) {
	c.mu.Lock()
	p, frame, training, again := c.fwd, c.frame, c.fwdTraining, c.backwardRan
	c.backwardRan = true
	c.mu.Unlock()
	if frame == nil {
		return nil, fmt.Errorf("graph: Backward needs a Forward first")
	}
	if p.gradErr != nil {
		return nil, fmt.Errorf("graph: this graph cannot be differentiated: %w", p.gradErr)
	}
	if len(headGrads) != len(p.headSlot) {
		return nil, fmt.Errorf("graph: Backward takes %d head gradients (one per output), got %d", len(p.headSlot), len(headGrads))
	}
	for i, h := range headGrads {
		if s := p.headSlot[i]; !h.Value().Shape.Equal(p.shapes[s]) {
			return nil, fmt.Errorf("graph: head gradient %d has shape %v, output %d has %v", i, h.Shape(), i, p.shapes[s])
		}
		frame[p.headSlot[i]] = headGrads[i].Value()
	}
	if again {
		if err := p.rerunForward(frame, training); err != nil {
			return nil, fmt.Errorf("graph: %w", err)
		}
	}
	if err := p.run(frame, p.nForward, len(p.steps), true, nil, c.hook, again || p.static != nil); err != nil {
		return nil, err
	}
	return p.arrays(frame, p.gradSlot, &p.gradArrays), nil
}

// callAttrs is the attribute value of one call: the program chosen for
// its inputs, whether the call goes on the tape and, once run there, its
// training mode and the frame its backward reads. recycled says that the
// frame came from an earlier call, and backwardRan that a backward has
// run on it (the tape's retainGraph).
type callAttrs struct {
	c           *CachedOp
	prog        *program
	onTape      bool
	training    bool
	frame       []ops.Value
	recycled    bool
	backwardRan bool
}

// Call runs the graph as one op of the eager autograd tape: inside
// Record, Backward flows through it into the inputs, and the outputs are
// new arrays owned by the caller. Outside Record, a graph built with
// StaticAlloc runs as Forward does (in the current training mode): the
// outputs are then the op's own buffers, valid until the next call, as in
// MXNet, and the call allocates nothing.
//
// A call inside Record none of whose inputs needs a gradient is not
// recorded by the tape, and runs as a call outside Record does.
func (c *CachedOp) Call(args ...*eager.NDArray) ([]*eager.NDArray, error) {
	onTape := false
	if eager.IsRecording() {
		for _, a := range args {
			onTape = onTape || a.RequiresGrad()
		}
	}
	p, err := c.program(args, onTape)
	if err != nil {
		return nil, err
	}
	if c.opts.StaticAlloc && !onTape {
		return c.forward(p, eager.IsTraining(), args)
	}
	return eager.Run(c.callOp, &callAttrs{c: c, prog: p, onTape: onTape}, args...)
}

// defineOps makes the op that stands for a call on the tape, and its
// gradient, which runs the program's backward part.
func (c *CachedOp) defineOps() {
	c.backOp = ops.Define(ops.Def[callAttrs]{
		Name: "_backward_CachedOp", Doc: "The gradient of a cached graph call.",
		InputNames: func(a *callAttrs) []string {
			names := make([]string, len(a.prog.headSlot))
			for i := range names {
				names[i] = fmt.Sprintf("head_grad%d", i)
			}
			return names
		},
		NumOutputs: func(a *callAttrs) int { return len(a.prog.gradSlot) },
		Shape: func(a *callAttrs, _ []ops.Shape) ([]ops.Shape, error) {
			out := make([]ops.Shape, len(a.prog.gradSlot))
			for i, s := range a.prog.gradSlot {
				out[i] = a.prog.shapes[a.prog.varSlot[i]]
				if s >= 0 {
					out[i] = a.prog.shapes[s]
				}
			}
			return out, nil
		},
		DType: func(a *callAttrs, _ []ops.DType) ([]ops.DType, error) {
			out := make([]ops.DType, len(a.prog.gradSlot))
			for i := range out {
				out[i] = a.prog.dtypes[a.prog.varSlot[i]]
			}
			return out, nil
		},
		Kernel: func(env *ops.Env, a *callAttrs, in, out []ops.Value) error {
			p := a.prog
			if a.frame == nil {
				return fmt.Errorf("the forward of this call has not run")
			}
			frame := a.frame // the tape's backward runs once at a time per call
			for i, h := range in {
				frame[p.headSlot[i]] = h
			}
			again := a.backwardRan
			a.backwardRan = true
			if again {
				if err := p.rerunForward(frame, a.training); err != nil {
					return err
				}
			}
			if err := p.run(frame, p.nForward, len(p.steps), true, nil, a.c.hook, a.recycled || again); err != nil {
				return err
			}
			for i, s := range p.gradSlot {
				if s >= 0 {
					ops.CopyData(out[i].Data, frame[s].Data)
				} else {
					ops.ClearData(out[i].Data) // no gradient flows to this input
				}
			}
			return nil
		},
	})
	c.callOp = ops.Define(ops.Def[callAttrs]{
		Name: "_CachedOp", Doc: "A call of a cached graph.",
		InputNames: func(a *callAttrs) []string { return a.c.inputs },
		NumOutputs: func(a *callAttrs) int { return len(a.c.outs) },
		Shape: func(a *callAttrs, _ []ops.Shape) ([]ops.Shape, error) {
			out := make([]ops.Shape, len(a.prog.outSlot))
			for i, s := range a.prog.outSlot {
				out[i] = a.prog.shapes[s]
			}
			return out, nil
		},
		DType: func(a *callAttrs, _ []ops.DType) ([]ops.DType, error) {
			out := make([]ops.DType, len(a.prog.outSlot))
			for i, s := range a.prog.outSlot {
				out[i] = a.prog.dtypes[s]
			}
			return out, nil
		},
		Kernel: func(env *ops.Env, a *callAttrs, in, out []ops.Value) error {
			p := a.prog
			// A call on the tape keeps its own values for its backward,
			// in planned buffers, even with StaticAlloc, until the tape
			// releases it (Release below), and its frame goes to a later
			// call on the tape. Any other call keeps nothing once its
			// outputs are copied out, so its frame is reused at once.
			recorded := a.onTape
			var frame []ops.Value
			dirty := true
			if recorded {
				var recycled bool
				frame, recycled = p.tapeFrame()
				dirty = recycled
			} else {
				frame = p.borrowFrame()
				defer p.returnFrame(frame)
			}
			for i, v := range in {
				frame[p.varSlot[i]] = v
			}
			r := env.Rand
			if p.random && r == nil {
				var unlock func()
				r, unlock = eager.LockRand()
				defer unlock()
			}
			if err := p.run(frame, 0, p.nForward, env.Training, r, a.c.hook, dirty); err != nil {
				if recorded {
					p.returnTapeFrame(frame)
				}
				return err
			}
			for i, s := range p.outSlot {
				ops.CopyData(out[i].Data, frame[s].Data)
			}
			if recorded {
				a.frame, a.recycled, a.training = frame, dirty, env.Training
			}
			return nil
		},
		Release: func(a *callAttrs) {
			if a.frame != nil {
				a.prog.returnTapeFrame(a.frame)
				a.frame = nil
			}
		},
		Grad: func(f ops.F, a *callAttrs, in, out, outGrad []ops.Tensor) []ops.Tensor {
			if a.prog.gradErr != nil {
				panic(&ops.Error{Op: "_CachedOp", Msg: "the cached graph cannot be differentiated: " + a.prog.gradErr.Error()})
			}
			grads := f.Invoke(a.c.backOp, a, outGrad...)
			res := make([]ops.Tensor, len(in))
			for i, s := range a.prog.gradSlot {
				if s >= 0 {
					res[i] = grads[i]
				}
			}
			return res
		},
	})
}
