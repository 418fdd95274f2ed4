package rnn_test

import (
	"fmt"
	"strings"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn/rnn"
)

func ExampleNewLSTM() {
	lstm := rnn.NewLSTM(20, rnn.Options{NumLayers: 2})
	if err := lstm.Initialize(); err != nil {
		panic(err)
	}
	x := eager.RandomNormal(35, 8, 10) // 35 steps, a batch of 8, 10 features
	fmt.Println(lstm.Forward(x).Shape())
	fmt.Println(lstm)

	// With initial states, the final states come back too.
	states := lstm.BeginState(8)
	outs := lstm.ForwardN(x, states[0], states[1])
	fmt.Println(outs[0].Shape(), outs[1].Shape(), outs[2].Shape())

	// Gluon's parameter names, after the layer's prefix.
	for _, p := range lstm.Params[:4] {
		fmt.Println(strings.TrimPrefix(p.Name(), lstm.Prefix()), p.Shape())
	}
	// Output:
	// 35x8x20
	// LSTM(10 -> 20, TNC, num_layers=2)
	// 35x8x20 2x8x20 2x8x20
	// l0_i2h_weight 80x10
	// l0_h2h_weight 80x20
	// l0_i2h_bias 80
	// l0_h2h_bias 80
}

func ExampleNewGRU() {
	gru := rnn.NewGRU(16, rnn.Options{Layout: "NTC", Bidirectional: true})
	if err := gru.Initialize(); err != nil {
		panic(err)
	}
	gru.Hybridize()
	y := gru.Forward(eager.RandomNormal(4, 12, 3)) // batch 4, 12 steps
	fmt.Println(y.Shape())
	// Output:
	// 4x12x32
}

func ExampleUnroll() {
	cell := rnn.NewSequentialRNNCell(rnn.NewLSTMCell(8), rnn.NewResidualCell(rnn.NewGRUCell(8)))
	if err := cell.Initialize(); err != nil {
		panic(err)
	}
	x := eager.RandomNormal(4, 10, 3) // NTC: batch 4, 10 steps, 3 features
	outs, states := rnn.Unroll(eager.F, cell, 10, x, nil, rnn.UnrollOptions{MergeOutputs: true})
	fmt.Println(outs[0].Shape(), len(states))
	// Output:
	// 4x10x8 3
}
