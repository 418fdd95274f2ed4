package eager

import (
	"fmt"
	"slices"

	"github.com/hybridgo/hybridgo/ops"
)

// GradReq says what Backward does with a variable's gradient buffer.
type GradReq string

// The gradient requests, as MXNet names them.
const (
	GradWrite GradReq = "write" // overwrite the buffer
	GradAdd   GradReq = "add"   // add to the buffer (for gradient accumulation)
	GradNull  GradReq = "null"  // compute no gradient
)

// tapeEntry is one node of the tape: an op (with its attributes) or a
// Call, the arrays it read and the arrays it produced.
type tapeEntry struct {
	op      *ops.Op
	attrs   ops.Attrs
	call    Call // set instead of op for a call recorded with RecordCall
	inputs  []*NDArray
	outputs []*NDArray
	freed   bool // Backward without retainGraph released it
}

// A Call is a computation recorded on the tape as one node although it is
// no single op: a hybridized block's compiled graph. It knows its own
// backward, and keeps what that backward reads until the tape releases it.
type Call interface {
	// Backward returns the gradient of each input (nil where none flows),
	// given the gradient of each output. With retainGraph it may run
	// again, for another Backward. The gradients may share the call's
	// own buffers (a compiled graph's frame) until it is released or its
	// Backward runs again: the tape copies what it keeps longer.
	Backward(outGrads []*NDArray) ([]*NDArray, error)
	// Release says that the tape let go of the call (Backward ran without
	// retainGraph): its Backward will not run again.
	Release()
}

// A StreamingCall is a Call that can hand over each input's gradient as
// soon as it is computed, before its backward has finished (a compiled
// graph's backward runs layer by layer too). Backward uses it to run
// gradient hooks (SetGradHook) inside a hybridized block.
type StreamingCall interface {
	Call
	// BackwardEach is Backward, calling each(j, g) with input j's
	// gradient g as soon as it is known; g is also in the result.
	BackwardEach(outGrads []*NDArray, each func(j int, g *NDArray)) ([]*NDArray, error)
}

// Taped reports whether a computation on in done now goes on the tape:
// recording is on and some input needs a gradient.
func Taped(in []*NDArray) bool {
	if !IsRecording() {
		return false
	}
	for _, a := range in {
		if a.requiresGrad() {
			return true
		}
	}
	return false
}

// RecordCall puts c on the tape as the node that computed out from in.
// Call it only when Taped(in) said so, before anything reads out.
func RecordCall(c Call, in, out []*NDArray) {
	e := &tapeEntry{call: c, inputs: in, outputs: out}
	for i, o := range out {
		o.entry, o.index = e, i
	}
}

// RequiresGrad reports whether Backward would compute a gradient that
// flows into a: it is a variable (AttachGrad with a request other than
// null) or the output of an op recorded on the tape. A hybridized block
// leaves out the gradients of its inputs that do not need one.
func (a *NDArray) RequiresGrad() bool { return a.requiresGrad() }

// requiresGrad reports whether gradients flow into a: it is a variable
// (AttachGrad with a request other than null) or came from a recorded op.
func (a *NDArray) requiresGrad() bool {
	return (a.gradReq != "" && a.gradReq != GradNull) || a.entry != nil
}

// record adds an op to the tape when any input needs a gradient.
func record(op *ops.Op, attrs ops.Attrs, in, out []*NDArray) {
	need := false
	for _, a := range in {
		if a.requiresGrad() {
			need = true
			break
		}
	}
	if !need {
		return
	}
	e := &tapeEntry{op: op, attrs: attrs, inputs: in, outputs: out}
	for i, o := range out {
		o.entry, o.index = e, i
	}
}

// AttachGrad makes a a variable: Backward will compute its gradient into a
// buffer read with Grad. The request is GradWrite unless one is given.
func (a *NDArray) AttachGrad(req ...GradReq) {
	r := GradWrite
	if len(req) > 0 {
		r = req[0]
	}
	if r != GradWrite && r != GradAdd && r != GradNull {
		panic(&ops.Error{Op: "AttachGrad", Msg: fmt.Sprintf("unknown grad request %q (want write, add or null)", r)})
	}
	a.gradReq = r
	a.grad = newArray(a.shape, a.dtype)
	a.entry = nil // a variable starts a new graph
}

// GradReq returns the gradient request set by AttachGrad ("" if none).
func (a *NDArray) GradReq() GradReq { return a.gradReq }

// Grad returns the gradient buffer of a variable (nil before AttachGrad).
func (a *NDArray) Grad() *NDArray { return a.grad }

// Backward computes the gradient of a with respect to every variable it
// depends on and stores it in their Grad buffers. headGrad, if given, is
// the gradient of a itself (ones by default). The tape is released unless
// retainGraph is set.
func (a *NDArray) Backward(headGrad ...*NDArray) error {
	return Backward([]*NDArray{a}, headGrad, false)
}

// SetGradHook has Backward call fn(a) as soon as the gradient of the
// variable a is complete and in its Grad buffer, while the gradients of
// the variables nearer the inputs are still being computed (nil removes
// it). A data-parallel trainer uses it to start sending a layer's
// gradients during the backward pass. Grad (autograd.grad) does not call
// it.
func (a *NDArray) SetGradHook(fn func(*NDArray)) { a.hook = fn }

// Backward computes the gradients of heads (with head gradients headGrads,
// ones where nil or missing) into the Grad buffers of the variables.
func Backward(heads, headGrads []*NDArray, retainGraph bool) error {
	written := map[*NDArray]bool{}
	final := func(v, g *NDArray) {
		if v.entry != nil || v.gradReq == "" || v.gradReq == GradNull || written[v] {
			return
		}
		written[v] = true
		if v.gradReq == GradAdd {
			Pause(func() { g = F.Add(v.grad, g).(*NDArray) })
		}
		if g.dtype != v.grad.dtype {
			Pause(func() { g = F.Cast(g, v.grad.dtype).(*NDArray) })
		}
		ops.CopyData(v.grad.data, g.data)
		if v.hook != nil {
			v.hook(v)
		}
	}
	grads, order, err := backprop(heads, headGrads, false, final)
	if err != nil {
		return err
	}
	for v, g := range grads {
		final(v, g) // while the calls' buffers, which g may share, are held
	}
	if !retainGraph {
		release(order)
	}
	return nil
}

// Grad returns the gradients of heads with respect to variables, without
// touching their Grad buffers (MXNet's autograd.grad). With createGraph,
// the gradient computation is itself recorded, so the result can be
// differentiated again (higher-order gradients).
func Grad(heads, variables, headGrads []*NDArray, createGraph, retainGraph bool) ([]*NDArray, error) {
	for i, v := range variables {
		if v.gradReq == "" {
			return nil, &ops.Error{Op: "Grad", Msg: fmt.Sprintf("variable %d (shape %v) has no gradient attached: call AttachGrad on it before recording", i, v.shape)}
		}
	}
	grads, order, err := backprop(heads, headGrads, createGraph, nil)
	if err != nil {
		return nil, err
	}
	lent := slices.ContainsFunc(order, func(e *tapeEntry) bool { return e.call != nil })
	out := make([]*NDArray, len(variables))
	for i, v := range variables {
		g, ok := grads[v]
		switch {
		case !ok:
			g = newArray(v.shape, v.dtype)
		case lent:
			// g may share a call's buffers, which its next call reuses.
			c := newArray(g.shape, g.dtype)
			CopyFrom(c, g)
			g = c
		}
		out[i] = g
	}
	if !retainGraph && !createGraph {
		release(order)
	}
	return out, nil
}

// backprop runs the tape backwards from heads and returns the gradient of
// every array it reached, variables included, and the entries it ran, in
// order. final, when not nil, is called for each variable with a gradient
// hook as soon as the last entry that reads it has been run. The
// gradients may share the buffers of the entries' calls: the caller
// copies what it keeps before it releases them (release).
func backprop(heads, headGrads []*NDArray, createGraph bool, final func(v, g *NDArray)) (grads map[*NDArray]*NDArray, order []*tapeEntry, err error) {
	defer func() { // gradient rules are written with F, which panics on bad input
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			grads, order, err = nil, nil, e
		}
	}()
	order, err = topoOrder(heads)
	if err != nil {
		return nil, nil, err
	}
	prevRec := SetRecording(createGraph)
	prevTrain := SetTraining(true)
	defer func() {
		SetRecording(prevRec)
		SetTraining(prevTrain)
	}()

	// lastUse is, for each hooked variable, the first entry in order that
	// reads it: the last one the backward pass reaches.
	var lastUse map[*NDArray]int
	if final != nil {
		for i, e := range order {
			for _, a := range e.inputs {
				if a.hook != nil && a.entry == nil {
					if _, ok := lastUse[a]; !ok {
						if lastUse == nil {
							lastUse = map[*NDArray]int{}
						}
						lastUse[a] = i
					}
				}
			}
		}
	}
	grads = map[*NDArray]*NDArray{}
	accumulate := func(a, g *NDArray) {
		if old, ok := grads[a]; ok {
			g = F.Add(old, g).(*NDArray)
		}
		grads[a] = g
	}
	for i, h := range heads {
		if !h.requiresGrad() {
			return nil, nil, &ops.Error{Op: "Backward", Msg: fmt.Sprintf("head %d (shape %v) does not depend on any variable: call AttachGrad on the inputs and compute inside Record", i, h.shape)}
		}
		var g *NDArray
		if i < len(headGrads) && headGrads[i] != nil {
			g = headGrads[i]
			if !g.shape.Equal(h.shape) {
				return nil, nil, &ops.Error{Op: "Backward", Msg: fmt.Sprintf("head gradient %d has shape %v, the head has %v", i, g.shape, h.shape)}
			}
		} else {
			g = F.OnesLike(h).(*NDArray)
		}
		accumulate(h, g)
	}
	for i := len(order) - 1; i >= 0; i-- {
		e := order[i]
		outGrads := make([]*NDArray, len(e.outputs))
		any := false
		for j, o := range e.outputs {
			if g, ok := grads[o]; ok {
				outGrads[j], any = g, true
			}
		}
		if !any {
			continue
		}
		for j, o := range e.outputs {
			if outGrads[j] == nil {
				outGrads[j] = F.ZerosLike(o).(*NDArray)
			}
		}
		var streamed []bool // inputs whose gradient was final inside the call
		var each func(j int, g *NDArray)
		if _, ok := e.call.(StreamingCall); ok && lastUse != nil && !createGraph {
			streamed = make([]bool, len(e.inputs))
			each = func(j int, g *NDArray) {
				a := e.inputs[j]
				if lastUse[a] != i || !a.requiresGrad() || !g.shape.Equal(a.shape) || countOf(e.inputs, a) > 1 {
					return // not final yet: left to the loop below
				}
				accumulate(a, g)
				streamed[j] = true
				final(a, grads[a])
			}
		}
		inGrads, err := e.gradients(outGrads, createGraph, each)
		if err != nil {
			return nil, nil, err
		}
		for j, a := range e.inputs {
			if j >= len(inGrads) || inGrads[j] == nil || !a.requiresGrad() || (streamed != nil && streamed[j]) {
				continue
			}
			g := inGrads[j]
			if !g.shape.Equal(a.shape) {
				return nil, nil, &ops.Error{Op: e.name(), Msg: fmt.Sprintf("gradient rule returned shape %v for input %d of shape %v", g.shape, j, a.shape)}
			}
			accumulate(a, g)
		}
		for _, a := range e.inputs {
			if g, ok := grads[a]; ok && lastUse != nil && lastUse[a] == i {
				final(a, g)
			}
		}
	}
	return grads, order, nil
}

// release lets go of the entries a Backward ran without retainGraph: they
// cannot run again, and their calls' buffers serve later calls.
func release(order []*tapeEntry) {
	for _, e := range order {
		e.freed = true
		if e.call != nil {
			e.call.Release()
		}
	}
}

// countOf counts a in list.
func countOf(list []*NDArray, a *NDArray) int {
	n := 0
	for _, b := range list {
		if b == a {
			n++
		}
	}
	return n
}

// gradients returns the gradient of each of the entry's inputs (nil where
// none flows), given the gradients of its outputs. each, when not nil, is
// handed each input's gradient as soon as a StreamingCall has it.
func (e *tapeEntry) gradients(outGrads []*NDArray, createGraph bool, each func(j int, g *NDArray)) ([]*NDArray, error) {
	if e.call != nil {
		if createGraph {
			// A Call's backward runs compiled code, which the tape cannot
			// record to differentiate again.
			return nil, &ops.Error{Op: "Backward", Msg: "a higher-order gradient (createGraph) cannot flow through a hybridized block's call: run the block without Hybridize for it"}
		}
		if sc, ok := e.call.(StreamingCall); ok && each != nil {
			return sc.BackwardEach(outGrads, each)
		}
		return e.call.Backward(outGrads)
	}
	inT := make([]ops.Tensor, len(e.inputs))
	for j, a := range e.inputs {
		inT[j] = a
	}
	outT := make([]ops.Tensor, len(e.outputs))
	for j, o := range e.outputs {
		outT[j] = o
	}
	gT := make([]ops.Tensor, len(outGrads))
	for j, g := range outGrads {
		gT[j] = g
	}
	res, err := e.op.Gradient(F, e.attrs, inT, outT, gT)
	if err != nil {
		return nil, err
	}
	grads := make([]*NDArray, len(res))
	for j, g := range res {
		if g != nil {
			grads[j] = g.(*NDArray)
		}
	}
	return grads, nil
}

// name names the entry in errors: its op, or "Backward" for a Call.
func (e *tapeEntry) name() string {
	if e.op == nil {
		return "Backward"
	}
	return e.op.Name()
}

// topoOrder lists the tape entries that heads depend on, inputs before the
// entries that consume them.
func topoOrder(heads []*NDArray) ([]*tapeEntry, error) {
	var order []*tapeEntry
	seen := map[*tapeEntry]bool{}
	var visit func(e *tapeEntry) error
	visit = func(e *tapeEntry) error {
		if seen[e] {
			return nil
		}
		if e.freed {
			return &ops.Error{Op: "Backward", Msg: "the recorded graph was released by an earlier Backward; pass retainGraph=true to the first Backward to run it twice"}
		}
		seen[e] = true
		for _, a := range e.inputs {
			if a.entry != nil {
				if err := visit(a.entry); err != nil {
					return err
				}
			}
		}
		order = append(order, e)
		return nil
	}
	for _, h := range heads {
		if h.entry != nil {
			if err := visit(h.entry); err != nil {
				return nil, err
			}
		}
	}
	return order, nil
}
