package rnn_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/nn/rnn"
	"github.com/hybridgo/hybridgo/ops"
)

// copyWeights gives a cell the weights of layer l, direction d of a layer.
func copyWeights(t *testing.T, layer *rnn.Layer, prefix string, cell rnn.Cell) {
	t.Helper()
	ps := map[string]*nn.Parameter{}
	switch c := cell.(type) {
	case *rnn.LSTMCell:
		ps = map[string]*nn.Parameter{"i2h_weight": c.I2HWeight, "h2h_weight": c.H2HWeight, "i2h_bias": c.I2HBias, "h2h_bias": c.H2HBias}
	case *rnn.GRUCell:
		ps = map[string]*nn.Parameter{"i2h_weight": c.I2HWeight, "h2h_weight": c.H2HWeight, "i2h_bias": c.I2HBias, "h2h_bias": c.H2HBias}
	case *rnn.RNNCell:
		ps = map[string]*nn.Parameter{"i2h_weight": c.I2HWeight, "h2h_weight": c.H2HWeight, "i2h_bias": c.I2HBias, "h2h_bias": c.H2HBias}
	}
	for name, p := range ps {
		if err := p.SetData(layer.Param(prefix + name).Data().Copy()); err != nil {
			t.Fatal(err)
		}
	}
}

// unrolled is a block that unrolls a cell over its input (TNC).
type unrolled struct {
	nn.HybridBlock
	Cell  rnn.Cell
	steps int
}

func newUnrolled(c rnn.Cell, steps int) *unrolled {
	u := &unrolled{Cell: c, steps: steps}
	u.BindN(u, "unrolled")
	return u
}

func (u *unrolled) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	outs, states := rnn.Unroll(F, u.Cell, u.steps, xs[0], nil, rnn.UnrollOptions{Layout: "TNC", MergeOutputs: true})
	return append(outs, states...)
}

// TestCellsEqualLayer unrolls stacked and bidirectional cells given a
// fused layer's weights and compares outputs and final states, eagerly
// and hybridized.
func TestCellsEqualLayer(t *testing.T) {
	const T, N, I, H = 4, 3, 5, 6
	for _, c := range []struct {
		name  string
		layer func() *rnn.Layer
		cell  func(in int) rnn.Cell
		bi    bool
	}{
		{"lstm", func() *rnn.Layer { return rnn.NewLSTM(H, rnn.Options{NumLayers: 2, InputSize: I}) },
			func(in int) rnn.Cell { return rnn.NewLSTMCell(H, rnn.CellOptions{InputSize: in}) }, false},
		{"gru", func() *rnn.Layer { return rnn.NewGRU(H, rnn.Options{NumLayers: 2, InputSize: I}) },
			func(in int) rnn.Cell { return rnn.NewGRUCell(H, rnn.CellOptions{InputSize: in}) }, false},
		{"rnn_tanh", func() *rnn.Layer { return rnn.NewRNN(H, rnn.Options{NumLayers: 2, InputSize: I, Activation: "tanh"}) },
			func(in int) rnn.Cell { return rnn.NewRNNCell(H, rnn.CellOptions{InputSize: in}) }, false},
		{"rnn_relu", func() *rnn.Layer { return rnn.NewRNN(H, rnn.Options{NumLayers: 2, InputSize: I}) },
			func(in int) rnn.Cell { return rnn.NewRNNCell(H, rnn.CellOptions{InputSize: in, Activation: "relu"}) }, false},
		{"lstm bidirectional", func() *rnn.Layer { return rnn.NewLSTM(H, rnn.Options{Bidirectional: true, InputSize: I}) },
			func(in int) rnn.Cell { return rnn.NewLSTMCell(H, rnn.CellOptions{InputSize: in}) }, true},
		{"gru bidirectional", func() *rnn.Layer { return rnn.NewGRU(H, rnn.Options{Bidirectional: true, InputSize: I}) },
			func(in int) rnn.Cell { return rnn.NewGRUCell(H, rnn.CellOptions{InputSize: in}) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			eager.Seed(4)
			layer := c.layer()
			if err := layer.Initialize(nn.InitializeOptions{Init: nn.Uniform(0.5)}); err != nil {
				t.Fatal(err)
			}
			var cell rnn.Cell
			var order []int // the layer's state rows, in the cells' state order
			if c.bi {
				l, r := c.cell(I), c.cell(I)
				copyWeights(t, layer, "l0_", l)
				copyWeights(t, layer, "r0_", r)
				cell = rnn.NewBidirectionalCell(l, r)
				order = []int{0, 1}
			} else {
				a, b := c.cell(I), c.cell(H)
				copyWeights(t, layer, "l0_", a)
				copyWeights(t, layer, "l1_", b)
				cell = rnn.NewSequentialRNNCell(a, b)
				order = []int{0, 1}
			}
			x := uniform(T, N, I)
			states := layer.BeginState(N)
			want := layer.ForwardN(append([]ops.Tensor{x.AsType(ops.Float32)}, tensors(states)...)...)
			u := newUnrolled(cell, T)
			for _, hybrid := range []bool{false, true} {
				if hybrid {
					u.Hybridize()
				}
				got := u.ForwardN(x.AsType(ops.Float32))
				closeTo(t, "output", got[0].Float64s(), want[0].Float64s(), 1e-5)
				// The cells' states: per cell (or direction), h (and c).
				perCell := len(got[1:]) / len(order)
				for k, row := range order {
					for s := 0; s < perCell; s++ {
						layerState := want[1+s].Float64s()[row*N*H : (row+1)*N*H]
						closeTo(t, "state", got[1+k*perCell+s].Float64s(), layerState, 1e-5)
					}
				}
			}
			if g := u.LastGraph(); g == nil || !strings.Contains(strings.Join(g.GetInternals().ListOutputs(), " "), "fullyconnected") {
				t.Errorf("the hybridized cells' graph is not the unrolled steps")
			}
		})
	}
}

// TestModifierCells checks DropoutCell, ResidualCell and ZoneoutCell.
func TestModifierCells(t *testing.T) {
	const T, N, H = 3, 2, 4
	eager.Seed(5)
	base := rnn.NewGRUCell(H)
	res := rnn.NewResidualCell(base)
	if err := res.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.RandomNormal(N, T, H)
	plain, _ := rnn.Unroll(eager.F, base, T, x, nil, rnn.UnrollOptions{MergeOutputs: true})
	withRes, _ := rnn.Unroll(eager.F, res, T, x, nil, rnn.UnrollOptions{MergeOutputs: true})
	closeTo(t, "residual", withRes[0].Float64s(), eager.F.Add(plain[0], x).Float64s(), 1e-6)

	// Outside training, dropout and zoneout change nothing.
	seq := rnn.NewSequentialRNNCell(rnn.NewDropoutCell(0.5), rnn.NewZoneoutCell(base, 0.5, 0.5))
	outs, states := rnn.Unroll(eager.F, seq, T, x, nil)
	if len(outs) != T || len(states) != 1 {
		t.Fatalf("%d outputs and %d states, want %d and 1", len(outs), len(states), T)
	}
	stacked := eager.F.Stack(1, outs...)
	closeTo(t, "predict mode", stacked.Float64s(), plain[0].Float64s(), 1e-6)
	// In training they do.
	eager.TrainMode(func() { outs, _ = rnn.Unroll(eager.F, seq, T, x, nil) })
	if d := eager.F.Stack(1, outs...).Float64s(); close(d, plain[0].Float64s()) {
		t.Errorf("training mode: dropout and zoneout changed nothing")
	}
	if got := len(rnn.BeginState(seq, 7)); got != 1 {
		t.Errorf("BeginState: %d states, want 1", got)
	}
}

func close(a, b []float64) bool {
	for i := range a {
		if d := a[i] - b[i]; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return true
}

func TestCellErrors(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { rnn.NewLSTMCell(0) }, "rnn.NewLSTMCell: hiddenSize=0"},
		{func() { rnn.NewRNNCell(3, rnn.CellOptions{Activation: "gelu"}) }, `Activation "gelu"`},
		{func() {
			c := rnn.NewBidirectionalCell(rnn.NewGRUCell(2), rnn.NewGRUCell(2))
			c.Initialize()
			c.ForwardN(eager.Zeros(1, 3), eager.Zeros(1, 2), eager.Zeros(1, 2))
		}, "cannot be stepped"},
		{func() {
			c := rnn.NewGRUCell(2)
			c.Initialize()
			rnn.Unroll(eager.F, c, 4, eager.Zeros(2, 3, 5), nil)
		}, "do not hold 4 steps"},
		{func() {
			c := rnn.NewLSTMCell(2)
			c.Initialize()
			c.ForwardN(eager.Zeros(2, 3), eager.Zeros(2, 2))
		}, "takes the input and 2 state(s)"},
	} {
		err := func() (err any) {
			defer func() { err = recover() }()
			c.f()
			return nil
		}()
		if err == nil || !strings.Contains(err.(error).Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}
