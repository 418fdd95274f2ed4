package rnn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Cell is one step of a recurrent network, Gluon's RecurrentCell: a
// hybrid block whose ForwardN takes the step's input and the states and
// returns the step's output and the new states. Unroll runs it over a
// sequence.
type Cell interface {
	// ForwardN runs one step: xs is the input (batch x features) followed
	// by the states; the result is the output followed by the new states.
	ForwardN(xs ...ops.Tensor) []ops.Tensor
	// StateShapes are the shapes of the states for a batch.
	StateShapes(batch int) []ops.Shape
	// Name is the block's name.
	Name() string
}

// unroller is a cell that unrolls itself rather than step by step
// (BidirectionalCell, SequentialRNNCell).
type unroller interface {
	unroll(F ops.F, length int, inputs []ops.Tensor, states []ops.Tensor, axis int) ([]ops.Tensor, []ops.Tensor)
}

// resetter is a cell that keeps something across the steps of one
// unroll (ZoneoutCell's previous output).
type resetter interface{ reset() }

// BeginState returns zero states for a batch, in the cell's dtype
// (float32 unless given), as Gluon's begin_state does.
func BeginState(c Cell, batch int, dtype ...ops.DType) []*eager.NDArray {
	dt := ops.Float32
	if len(dtype) > 0 {
		dt = dtype[0]
	}
	var states []*eager.NDArray
	for _, s := range c.StateShapes(batch) {
		states = append(states, eager.ZerosOf(dt, s...))
	}
	return states
}

// UnrollOptions are the options of Unroll.
type UnrollOptions struct {
	Layout string // "NTC" (the default, as in Gluon) or "TNC"
	// MergeOutputs stacks the steps' outputs into one tensor along the
	// layout's time axis; otherwise Unroll returns one output per step.
	MergeOutputs bool
}

// Unroll runs cell over length steps of inputs (one tensor laid out as
// the options say) from states (zeros when nil), with F: eager.F, or the
// F a HybridForward receives, which records the unrolled steps into the
// graph when the block is hybridized. It returns the outputs (one per
// step, or one merged tensor with MergeOutputs) and the final states,
// as Gluon's cell.unroll does.
func Unroll(F ops.F, cell Cell, length int, inputs ops.Tensor, states []ops.Tensor, opts ...UnrollOptions) ([]ops.Tensor, []ops.Tensor) {
	o := nn.OneOption("rnn.Unroll", opts)
	if o.Layout == "" {
		o.Layout = "NTC"
	}
	axis := 1
	switch o.Layout {
	case "NTC":
	case "TNC":
		axis = 0
	default:
		panic(fmt.Errorf("rnn.Unroll: Layout %q is not NTC or TNC", o.Layout))
	}
	shape := inputs.Shape()
	if len(shape) != 3 || shape[axis] != length {
		panic(fmt.Errorf("rnn.Unroll %s: inputs %v do not hold %d steps laid out %s", cell.Name(), shape, length, o.Layout))
	}
	steps := F.Split(inputs, length, axis, ops.SqueezeAxis())
	if states == nil {
		states = zeroStates(F, cell, steps[0])
	}
	outs, states := unrollSteps(F, cell, length, steps, states, axis)
	if o.MergeOutputs {
		return []ops.Tensor{F.Stack(axis, outs...)}, states
	}
	return outs, states
}

// zeroStates returns the cell's states as zeros for the batch of x (a
// step, batch x features), built from x (slice_axis, zeros_like, tile)
// rather than by _zeros, so that a traced graph holds no batch size.
func zeroStates(F ops.F, cell Cell, x ops.Tensor) []ops.Tensor {
	var states []ops.Tensor
	var z ops.Tensor
	for _, s := range cell.StateShapes(x.Shape()[0]) {
		if z == nil {
			z = F.ZerosLike(F.SliceAxis(x, 1, 0, 1)) // batch x 1
		}
		reps := make([]int, len(s))
		for i := range reps {
			reps[i] = 1
		}
		reps[len(s)-1] = s[len(s)-1]
		states = append(states, F.Tile(z, reps...))
	}
	return states
}

// unrollSteps runs cell over the steps (each batch x features).
func unrollSteps(F ops.F, cell Cell, length int, steps, states []ops.Tensor, axis int) ([]ops.Tensor, []ops.Tensor) {
	if u, ok := cell.(unroller); ok {
		return u.unroll(F, length, steps, states, axis)
	}
	if r, ok := cell.(resetter); ok {
		r.reset()
	}
	outs := make([]ops.Tensor, length)
	for t, x := range steps {
		res := cell.ForwardN(append([]ops.Tensor{x}, states...)...)
		outs[t], states = res[0], res[1:]
	}
	return outs, states
}

// checkStep checks a step's inputs: the input and n states.
func checkStep(name string, xs []ops.Tensor, n int) {
	if len(xs) != 1+n {
		panic(fmt.Errorf("%s: a step takes the input and %d state(s), got %d tensors", name, n, len(xs)))
	}
	if len(xs[0].Shape()) != 2 {
		panic(fmt.Errorf("%s: the step's input is %v; it must be batch x features (unroll a sequence with rnn.Unroll)", name, xs[0].Shape()))
	}
}

// params are Gluon's four parameters of RNNCell, LSTMCell and GRUCell,
// which each keeps in its own exported fields (that is where blocks find
// their parameters).
type params struct {
	i2hWeight, h2hWeight, i2hBias, h2hBias *nn.Parameter
}

// CellOptions are the options of RNNCell, LSTMCell and GRUCell.
type CellOptions struct {
	// Activation is RNNCell's non-linearity, "tanh" (the default) or "relu".
	Activation string
	// InputSize is the number of input features; 0 infers it.
	InputSize                                              int
	I2HWeightInit, H2HWeightInit, I2HBiasInit, H2HBiasInit nn.Initializer
}

func newParams(ctor string, hidden, gates int, o CellOptions) params {
	if hidden <= 0 {
		panic(fmt.Errorf("%s: hiddenSize=%d must be positive", ctor, hidden))
	}
	if o.InputSize < 0 {
		panic(fmt.Errorf("%s: InputSize=%d must not be negative", ctor, o.InputSize))
	}
	zero := func(i nn.Initializer) nn.Initializer {
		if i == nil {
			return nn.Zero()
		}
		return i
	}
	p := params{
		i2hWeight: nn.NewParameter("i2h_weight", ops.Shape{gates * hidden, o.InputSize}),
		h2hWeight: nn.NewParameter("h2h_weight", ops.Shape{gates * hidden, hidden}),
		i2hBias:   nn.NewParameter("i2h_bias", ops.Shape{gates * hidden}),
		h2hBias:   nn.NewParameter("h2h_bias", ops.Shape{gates * hidden})}
	p.i2hWeight.Init, p.h2hWeight.Init = o.I2HWeightInit, o.H2HWeightInit
	p.i2hBias.Init, p.h2hBias.Init = zero(o.I2HBiasInit), zero(o.H2HBiasInit)
	return p
}

// projections returns x·W_i2hᵀ + b_i2h and h·W_h2hᵀ + b_h2h, n units each.
func projections(F ops.F, n int, x, h ops.Tensor, i2hW, h2hW, i2hB, h2hB *nn.Parameter) (ops.Tensor, ops.Tensor) {
	i2h := F.FullyConnected(x, nn.Param(F, i2hW), nn.Param(F, i2hB), n)
	h2h := F.FullyConnected(h, nn.Param(F, h2hW), nn.Param(F, h2hB), n)
	return i2h, h2h
}

// RNNCell is an Elman RNN step (Gluon's rnn.RNNCell):
// h' = act(x·W_i2hᵀ + b_i2h + h·W_h2hᵀ + b_h2h).
type RNNCell struct {
	nn.HybridBlock
	I2HWeight, H2HWeight, I2HBias, H2HBias *nn.Parameter
	hidden                                 int
	activation                             string
}

// NewRNNCell makes an RNNCell with hiddenSize units.
func NewRNNCell(hiddenSize int, opts ...CellOptions) *RNNCell {
	o := nn.OneOption("rnn.NewRNNCell", opts)
	if o.Activation == "" {
		o.Activation = "tanh"
	}
	if o.Activation != "tanh" && o.Activation != "relu" {
		panic(fmt.Errorf("rnn.NewRNNCell: Activation %q is not tanh or relu", o.Activation))
	}
	p := newParams("rnn.NewRNNCell", hiddenSize, 1, o)
	c := &RNNCell{I2HWeight: p.i2hWeight, H2HWeight: p.h2hWeight, I2HBias: p.i2hBias, H2HBias: p.h2hBias,
		hidden: hiddenSize, activation: o.Activation}
	c.BindN(c)
	return c
}

// StateShapes is one state, batch x hidden.
func (c *RNNCell) StateShapes(batch int) []ops.Shape { return []ops.Shape{{batch, c.hidden}} }

// HybridForwardN runs one step on xs = input, h.
func (c *RNNCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	checkStep(c.Name(), xs, 1)
	i2h, h2h := projections(F, c.hidden, xs[0], xs[1], c.I2HWeight, c.H2HWeight, c.I2HBias, c.H2HBias)
	h := F.Activation(F.Add(i2h, h2h), c.activation)
	return []ops.Tensor{h, h}
}

// LSTMCell is a long short-term memory step (Gluon's rnn.LSTMCell), with
// gates i, f, g, o stacked in that order in its weights.
type LSTMCell struct {
	nn.HybridBlock
	I2HWeight, H2HWeight, I2HBias, H2HBias *nn.Parameter
	hidden                                 int
}

// NewLSTMCell makes an LSTMCell with hiddenSize units.
func NewLSTMCell(hiddenSize int, opts ...CellOptions) *LSTMCell {
	p := newParams("rnn.NewLSTMCell", hiddenSize, 4, nn.OneOption("rnn.NewLSTMCell", opts))
	c := &LSTMCell{I2HWeight: p.i2hWeight, H2HWeight: p.h2hWeight, I2HBias: p.i2hBias, H2HBias: p.h2hBias, hidden: hiddenSize}
	c.BindN(c)
	return c
}

// StateShapes are the hidden and the cell state, batch x hidden each.
func (c *LSTMCell) StateShapes(batch int) []ops.Shape {
	return []ops.Shape{{batch, c.hidden}, {batch, c.hidden}}
}

// HybridForwardN runs one step on xs = input, h, c.
func (c *LSTMCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	checkStep(c.Name(), xs, 2)
	i2h, h2h := projections(F, 4*c.hidden, xs[0], xs[1], c.I2HWeight, c.H2HWeight, c.I2HBias, c.H2HBias)
	g := F.Split(F.Add(i2h, h2h), 4, 1)
	in, forget := F.Sigmoid(g[0]), F.Sigmoid(g[1])
	transform, out := F.Tanh(g[2]), F.Sigmoid(g[3])
	nextC := F.Add(F.Mul(forget, xs[2]), F.Mul(in, transform))
	nextH := F.Mul(out, F.Tanh(nextC))
	return []ops.Tensor{nextH, nextH, nextC}
}

// GRUCell is a gated recurrent unit step (Gluon's rnn.GRUCell), with
// gates r, z, n stacked in that order:
// n = tanh(x_n + r*(h_n)), h' = (1-z)*n + z*h.
type GRUCell struct {
	nn.HybridBlock
	I2HWeight, H2HWeight, I2HBias, H2HBias *nn.Parameter
	hidden                                 int
}

// NewGRUCell makes a GRUCell with hiddenSize units.
func NewGRUCell(hiddenSize int, opts ...CellOptions) *GRUCell {
	p := newParams("rnn.NewGRUCell", hiddenSize, 3, nn.OneOption("rnn.NewGRUCell", opts))
	c := &GRUCell{I2HWeight: p.i2hWeight, H2HWeight: p.h2hWeight, I2HBias: p.i2hBias, H2HBias: p.h2hBias, hidden: hiddenSize}
	c.BindN(c)
	return c
}

// StateShapes is one state, batch x hidden.
func (c *GRUCell) StateShapes(batch int) []ops.Shape { return []ops.Shape{{batch, c.hidden}} }

// HybridForwardN runs one step on xs = input, h.
func (c *GRUCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	checkStep(c.Name(), xs, 1)
	h := xs[1]
	i2h, h2h := projections(F, 3*c.hidden, xs[0], h, c.I2HWeight, c.H2HWeight, c.I2HBias, c.H2HBias)
	xi, hi := F.Split(i2h, 3, 1), F.Split(h2h, 3, 1)
	reset := F.Sigmoid(F.Add(xi[0], hi[0]))
	update := F.Sigmoid(F.Add(xi[1], hi[1]))
	next := F.Tanh(F.Add(xi[2], F.Mul(reset, hi[2])))
	out := F.Add(F.Mul(F.RminusScalar(update, 1), next), F.Mul(update, h))
	return []ops.Tensor{out, out}
}

// SequentialRNNCell stacks cells: each step's output feeds the next
// cell, and the states are all the cells' states in order.
type SequentialRNNCell struct {
	nn.HybridBlock
	Cells []Cell `nn:"inline"`
}

// NewSequentialRNNCell stacks the cells.
func NewSequentialRNNCell(cells ...Cell) *SequentialRNNCell {
	s := &SequentialRNNCell{Cells: cells}
	s.BindN(s)
	return s
}

// StateShapes are the cells' states, in order.
func (s *SequentialRNNCell) StateShapes(batch int) []ops.Shape {
	var shapes []ops.Shape
	for _, c := range s.Cells {
		shapes = append(shapes, c.StateShapes(batch)...)
	}
	return shapes
}

// HybridForwardN runs one step through every cell.
func (s *SequentialRNNCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	x, states := xs[0], xs[1:]
	var next []ops.Tensor
	for _, c := range s.Cells {
		n := len(c.StateShapes(0))
		if len(states) < n {
			panic(fmt.Errorf("%s: too few states for %s", s.Name(), c.Name()))
		}
		res := c.ForwardN(append([]ops.Tensor{x}, states[:n]...)...)
		x, states = res[0], states[n:]
		next = append(next, res[1:]...)
	}
	return append([]ops.Tensor{x}, next...)
}

func (s *SequentialRNNCell) unroll(F ops.F, length int, steps, states []ops.Tensor, axis int) ([]ops.Tensor, []ops.Tensor) {
	var final []ops.Tensor
	for _, c := range s.Cells {
		n := len(c.StateShapes(0))
		var out []ops.Tensor
		steps, out = unrollSteps(F, c, length, steps, states[:n], axis)
		states = states[n:]
		final = append(final, out...)
	}
	return steps, final
}

// BidirectionalCell runs one cell forward and another backward in time
// over a sequence and concatenates their outputs at each step (Gluon's
// rnn.BidirectionalCell). It only unrolls: a single step has no meaning.
type BidirectionalCell struct {
	nn.HybridBlock
	L, R Cell
}

// NewBidirectionalCell pairs a forward and a reverse cell.
func NewBidirectionalCell(l, r Cell) *BidirectionalCell {
	b := &BidirectionalCell{L: l, R: r}
	b.BindN(b)
	return b
}

// StateShapes are the forward cell's states, then the reverse cell's.
func (b *BidirectionalCell) StateShapes(batch int) []ops.Shape {
	return append(b.L.StateShapes(batch), b.R.StateShapes(batch)...)
}

// HybridForwardN refuses a single step, as Gluon's does.
func (b *BidirectionalCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	panic(fmt.Errorf("%s: a BidirectionalCell cannot be stepped; unroll it with rnn.Unroll", b.Name()))
}

func (b *BidirectionalCell) unroll(F ops.F, length int, steps, states []ops.Tensor, axis int) ([]ops.Tensor, []ops.Tensor) {
	n := len(b.L.StateShapes(0))
	lOut, lStates := unrollSteps(F, b.L, length, steps, states[:n], axis)
	rev := make([]ops.Tensor, length)
	for t := range steps {
		rev[t] = steps[length-1-t]
	}
	rOut, rStates := unrollSteps(F, b.R, length, rev, states[n:], axis)
	outs := make([]ops.Tensor, length)
	for t := range outs {
		outs[t] = F.Concat(1, lOut[t], rOut[length-1-t])
	}
	return outs, append(lStates, rStates...)
}

// DropoutCell applies dropout to its input at each step (Gluon's
// rnn.DropoutCell); it has no states.
type DropoutCell struct {
	nn.HybridBlock
	rate float64
	axes []int
}

// NewDropoutCell makes a DropoutCell with the given rate, sharing the
// mask along axes if any.
func NewDropoutCell(rate float64, axes ...int) *DropoutCell {
	if rate < 0 || rate >= 1 {
		panic(fmt.Errorf("rnn.NewDropoutCell: rate=%v is not in [0, 1)", rate))
	}
	d := &DropoutCell{rate: rate, axes: axes}
	d.BindN(d)
	return d
}

// StateShapes is empty: a DropoutCell has no states.
func (d *DropoutCell) StateShapes(int) []ops.Shape { return nil }

// HybridForwardN drops elements of the step's input in training mode.
func (d *DropoutCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	x := xs[0]
	if d.rate > 0 {
		var attrs []ops.Attr
		if len(d.axes) > 0 {
			attrs = append(attrs, ops.Attr{Name: "axes", Value: d.axes})
		}
		x = F.Dropout(x, d.rate, attrs...)
	}
	return append([]ops.Tensor{x}, xs[1:]...)
}

// ResidualCell adds the step's input to its base cell's output (Gluon's
// rnn.ResidualCell).
type ResidualCell struct {
	nn.HybridBlock
	Base Cell
}

// NewResidualCell wraps base.
func NewResidualCell(base Cell) *ResidualCell {
	r := &ResidualCell{Base: base}
	r.BindN(r)
	return r
}

// StateShapes are the base cell's.
func (r *ResidualCell) StateShapes(batch int) []ops.Shape { return r.Base.StateShapes(batch) }

// HybridForwardN runs the base cell and adds the input to its output.
func (r *ResidualCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	res := r.Base.ForwardN(xs...)
	return append([]ops.Tensor{F.Add(res[0], xs[0])}, res[1:]...)
}

// ZoneoutCell keeps, in training mode, each element of its base cell's
// output and states at its previous value with probability
// zoneoutOutputs and zoneoutStates (Gluon's rnn.ZoneoutCell).
type ZoneoutCell struct {
	nn.HybridBlock
	Base                          Cell
	zoneoutOutputs, zoneoutStates float64
	prev                          ops.Tensor
}

// NewZoneoutCell wraps base.
func NewZoneoutCell(base Cell, zoneoutOutputs, zoneoutStates float64) *ZoneoutCell {
	for _, p := range []float64{zoneoutOutputs, zoneoutStates} {
		if p < 0 || p >= 1 {
			panic(fmt.Errorf("rnn.NewZoneoutCell: probability %v is not in [0, 1)", p))
		}
	}
	z := &ZoneoutCell{Base: base, zoneoutOutputs: zoneoutOutputs, zoneoutStates: zoneoutStates}
	z.BindN(z)
	return z
}

// StateShapes are the base cell's.
func (z *ZoneoutCell) StateShapes(batch int) []ops.Shape { return z.Base.StateShapes(batch) }

func (z *ZoneoutCell) reset() { z.prev = nil }

// HybridForwardN runs the base cell and mixes its new output and states
// with the previous ones.
func (z *ZoneoutCell) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	res := z.Base.ForwardN(xs...)
	out, states := res[0], res[1:]
	mask := func(p float64, like ops.Tensor) ops.Tensor { return F.Dropout(F.OnesLike(like), p) }
	prev := z.prev
	if prev == nil || !sameKind(prev, out) {
		prev = F.ZerosLike(out)
	}
	if z.zoneoutOutputs > 0 {
		out = F.Where(mask(z.zoneoutOutputs, out), out, prev)
	}
	if z.zoneoutStates > 0 {
		for i, s := range states {
			states[i] = F.Where(mask(z.zoneoutStates, s), s, xs[1+i])
		}
	}
	z.prev = out
	return append([]ops.Tensor{out}, states...)
}

// sameKind reports whether a and b are both arrays or both symbols, so
// that an output kept from an eager run is not mixed into a trace.
func sameKind(a, b ops.Tensor) bool {
	_, ea := a.(*eager.NDArray)
	_, eb := b.(*eager.NDArray)
	return ea == eb
}
