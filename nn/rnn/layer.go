package rnn

import (
	"fmt"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// Options are the options of the recurrent layers, Gluon's keyword
// arguments. The zero value is Gluon's defaults.
type Options struct {
	NumLayers     int     // stacked layers; 0 means 1
	Layout        string  // "TNC" (the default) or "NTC"
	Dropout       float64 // dropout on the outputs of each layer but the last, in training
	Bidirectional bool
	// InputSize is the number of input features; 0 infers it from the
	// data on the first forward.
	InputSize int
	// Activation is RNN's non-linearity, "relu" (the default) or "tanh".
	Activation string
	// The initializers of the weights and biases; nil weights take the
	// block's initializer, nil biases are zeros (Gluon's defaults).
	I2HWeightInit, H2HWeightInit, I2HBiasInit, H2HBiasInit nn.Initializer
	DType                                                  ops.DType // float32 (the zero value) or float64
}

// Layer is a fused recurrent layer: RNN, LSTM or GRU, as NewRNN, NewLSTM
// and NewGRU make it. It runs as one RNN op.
type Layer struct {
	nn.HybridBlock
	// Params are the layer's parameters in Gluon's order: for each layer
	// and direction (l, then r for the reverse direction) the i2h weight,
	// the h2h weight, the i2h bias and the h2h bias ("l0_i2h_weight").
	Params []*nn.Parameter

	mode    string
	hidden  int
	layers  int
	dirs    int
	gates   int
	layout  string
	dropout float64
	dtype   ops.DType
	byName  map[string]*nn.Parameter
}

// NewRNN makes an Elman RNN layer (Gluon's rnn.RNN) with hiddenSize units
// and activation relu (or Options.Activation "tanh").
func NewRNN(hiddenSize int, opts ...Options) *Layer {
	o := nn.OneOption("rnn.NewRNN", opts)
	switch o.Activation {
	case "", "relu":
		return newLayer("rnn.NewRNN", "rnn_relu", "rnn", hiddenSize, o)
	case "tanh":
		return newLayer("rnn.NewRNN", "rnn_tanh", "rnn", hiddenSize, o)
	}
	panic(fmt.Errorf("rnn.NewRNN: Activation %q is not relu or tanh", o.Activation))
}

// NewLSTM makes a long short-term memory layer (Gluon's rnn.LSTM) with
// hiddenSize units. Its states are the hidden and the cell state.
func NewLSTM(hiddenSize int, opts ...Options) *Layer {
	return newLayer("rnn.NewLSTM", "lstm", "lstm", hiddenSize, nn.OneOption("rnn.NewLSTM", opts))
}

// NewGRU makes a gated recurrent unit layer (Gluon's rnn.GRU) with
// hiddenSize units.
func NewGRU(hiddenSize int, opts ...Options) *Layer {
	return newLayer("rnn.NewGRU", "gru", "gru", hiddenSize, nn.OneOption("rnn.NewGRU", opts))
}

func newLayer(ctor, mode, name string, hidden int, o Options) *Layer {
	fail := func(format string, args ...any) {
		panic(fmt.Errorf("%s: %s", ctor, fmt.Sprintf(format, args...)))
	}
	if hidden <= 0 {
		fail("hiddenSize=%d must be positive", hidden)
	}
	if o.NumLayers == 0 {
		o.NumLayers = 1
	}
	if o.Layout == "" {
		o.Layout = "TNC"
	}
	switch {
	case o.NumLayers < 0:
		fail("NumLayers=%d must be positive", o.NumLayers)
	case o.Layout != "TNC" && o.Layout != "NTC":
		fail("Layout %q is not TNC or NTC", o.Layout)
	case o.Dropout < 0 || o.Dropout >= 1:
		fail("Dropout=%v is not in [0, 1)", o.Dropout)
	case o.InputSize < 0:
		fail("InputSize=%d must not be negative", o.InputSize)
	case o.DType != ops.Float32 && o.DType != ops.Float64:
		fail("DType %v is not float32 or float64", o.DType)
	}
	l := &Layer{mode: mode, hidden: hidden, layers: o.NumLayers, dirs: 1, layout: o.Layout, dropout: o.Dropout,
		dtype: o.DType, byName: map[string]*nn.Parameter{}}
	if o.Bidirectional {
		l.dirs = 2
	}
	l.gates = map[string]int{"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
	gh, ni := l.gates*hidden, o.InputSize
	biasInit := func(i nn.Initializer) nn.Initializer {
		if i == nil {
			return nn.Zero()
		}
		return i
	}
	for i := 0; i < l.layers; i++ {
		for _, d := range []string{"l", "r"}[:l.dirs] {
			for _, p := range []struct {
				name  string
				shape ops.Shape
				init  nn.Initializer
			}{
				{"i2h_weight", ops.Shape{gh, ni}, o.I2HWeightInit},
				{"h2h_weight", ops.Shape{gh, hidden}, o.H2HWeightInit},
				{"i2h_bias", ops.Shape{gh}, biasInit(o.I2HBiasInit)},
				{"h2h_bias", ops.Shape{gh}, biasInit(o.H2HBiasInit)},
			} {
				local := fmt.Sprintf("%s%d_%s", d, i, p.name)
				param := nn.NewParameter(local, p.shape)
				param.Init = p.init
				if o.DType != ops.Float32 {
					param.Cast(o.DType)
				}
				l.Params = append(l.Params, param)
				l.byName[local] = param
			}
		}
		ni = hidden * l.dirs
	}
	l.BindN(l, name)
	return l
}

// Param returns the parameter Gluon names local ("l0_i2h_weight",
// "r1_h2h_bias"), or nil.
func (l *Layer) Param(local string) *nn.Parameter { return l.byName[local] }

// Mode is the RNN op's mode: rnn_relu, rnn_tanh, lstm or gru.
func (l *Layer) Mode() string { return l.mode }

// HiddenSize is the number of hidden units.
func (l *Layer) HiddenSize() int { return l.hidden }

// NumLayers is the number of stacked layers.
func (l *Layer) NumLayers() int { return l.layers }

// Directions is 2 for a bidirectional layer, else 1.
func (l *Layer) Directions() int { return l.dirs }

// Layout is "TNC" or "NTC".
func (l *Layer) Layout() string { return l.layout }

// numStates is 2 for an LSTM (hidden and cell), else 1.
func (l *Layer) numStates() int {
	if l.mode == "lstm" {
		return 2
	}
	return 1
}

// stateShape is the shape of each state: layers*directions x batch x hidden.
func (l *Layer) stateShape(batch int) ops.Shape { return ops.Shape{l.layers * l.dirs, batch, l.hidden} }

// BeginState returns the initial states for a batch: zeros of shape
// layers*directions x batchSize x hiddenSize, two of them (hidden, cell)
// for an LSTM, one otherwise (Gluon's begin_state).
func (l *Layer) BeginState(batchSize int) []*eager.NDArray {
	states := make([]*eager.NDArray, l.numStates())
	for i := range states {
		states[i] = eager.ZerosOf(l.dtype, l.stateShape(batchSize)...)
	}
	return states
}

// HybridForwardN runs the layer on xs[0], the sequence (TNC or NTC as the
// layout says), and xs[1:], the initial states (zeros when absent). It
// returns the output sequence and, when states were given, the final
// states after it, as Gluon's layers do.
func (l *Layer) HybridForwardN(F ops.F, xs []ops.Tensor) []ops.Tensor {
	if len(xs) == 0 {
		panic(fmt.Errorf("%s: no input", l.Name()))
	}
	x := xs[0]
	shape := x.Shape()
	if len(shape) != 3 {
		panic(fmt.Errorf("%s: the input is %v; it must be 3-D (%s)", l.Name(), shape, l.layout))
	}
	if l.layout == "NTC" {
		x = F.Transpose(x, 1, 0, 2)
		shape = x.Shape()
	}
	if err := l.inferInputSize(shape[2]); err != nil {
		panic(fmt.Errorf("%s: %w", l.Name(), err))
	}
	states := xs[1:]
	given := len(states) > 0
	if !given {
		states = make([]ops.Tensor, l.numStates())
		for i := range states {
			states[i] = zerosFrom(F, x, l.layers*l.dirs, l.hidden)
		}
	} else if len(states) != l.numStates() {
		panic(fmt.Errorf("%s: %d states given; %s takes %d (from BeginState)", l.Name(), len(states), l.mode, l.numStates()))
	} else {
		want := l.stateShape(shape[1])
		for i, s := range states {
			if shape[1] > 0 && !s.Shape().Equal(want) {
				panic(fmt.Errorf("%s: state %d is %v; expected %v (layers*directions x batch x hidden)", l.Name(), i, s.Shape(), want))
			}
		}
	}
	args := append([]ops.Tensor{x, l.packed(F)}, states...)
	out := F.RNN(args, l.mode, l.hidden, l.layers, ops.Attr{Name: "bidirectional", Value: l.dirs == 2},
		ops.Attr{Name: "p", Value: l.dropout}, ops.Attr{Name: "state_outputs", Value: true})
	y := out[0]
	if l.layout == "NTC" {
		y = F.Transpose(y, 1, 0, 2)
	}
	if !given {
		return []ops.Tensor{y}
	}
	return append([]ops.Tensor{y}, out[1:]...)
}

// zerosFrom returns zeros shaped rows x batch x hidden for x, a
// sequence laid out TNC, built from x (slice_axis, zeros_like, tile)
// rather than by _zeros: a traced graph then holds no batch size, and
// an exported model takes any batch, here and in MXNet.
func zerosFrom(F ops.F, x ops.Tensor, rows, hidden int) ops.Tensor {
	z := F.ZerosLike(F.SliceAxis(F.SliceAxis(x, 0, 0, 1), 2, 0, 1)) // 1 x batch x 1
	return F.Tile(z, rows, 1, hidden)
}

// inferInputSize fills the input size of the first layer's i2h weights.
func (l *Layer) inferInputSize(n int) error {
	if n == 0 {
		return nil
	}
	for _, d := range []string{"l", "r"}[:l.dirs] {
		p := l.byName[d+"0_i2h_weight"]
		if err := p.SetShape(ops.Shape{l.gates * l.hidden, n}); err != nil {
			return err
		}
	}
	return nil
}

// packed joins the parameters into the RNN op's vector as Gluon does:
// every weight flattened, layer by layer and direction by direction (i2h,
// then h2h), then every bias in the same order, joined by
// _rnn_param_concat.
func (l *Layer) packed(F ops.F) ops.Tensor {
	var parts []ops.Tensor
	for _, kind := range []string{"weight", "bias"} {
		for i := 0; i < l.layers; i++ {
			for _, d := range []string{"l", "r"}[:l.dirs] {
				for _, g := range []string{"i2h", "h2h"} {
					p := l.byName[fmt.Sprintf("%s%d_%s_%s", d, i, g, kind)]
					parts = append(parts, F.Reshape(nn.Param(F, p), -1))
				}
			}
		}
	}
	return F.RNNParamConcat(parts...)
}

// String describes the layer as Gluon prints it: LSTM(10 -> 20, TNC, num_layers=2).
func (l *Layer) String() string {
	kind := map[string]string{"rnn_relu": "RNN", "rnn_tanh": "RNN", "lstm": "LSTM", "gru": "GRU"}[l.mode]
	in := "None"
	if n := l.byName["l0_i2h_weight"].Shape()[1]; n > 0 {
		in = fmt.Sprint(n)
	}
	s := fmt.Sprintf("%s(%s -> %d, %s", kind, in, l.hidden, l.layout)
	if l.layers != 1 {
		s += fmt.Sprintf(", num_layers=%d", l.layers)
	}
	if l.dropout != 0 {
		s += fmt.Sprintf(", dropout=%v", l.dropout)
	}
	if l.dirs == 2 {
		s += ", bidirectional"
	}
	return s + ")"
}
