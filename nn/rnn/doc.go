// Package rnn is Gluon's gluon.rnn: recurrent layers that run a whole
// sequence as one fused op, and cells that run one step and unroll.
//
// # Layers
//
// NewRNN, NewLSTM and NewGRU make a Layer with Gluon's arguments: the
// hidden size, then Options, whose zero value is Gluon's defaults (one
// layer, layout TNC, no dropout, one direction, input size inferred):
//
//	lstm := rnn.NewLSTM(256, rnn.Options{NumLayers: 2, Dropout: 0.2})
//	lstm.Initialize()
//	out := lstm.Forward(x) // x: sequence x batch x features (TNC)
//
// Forward takes the sequence alone and starts from zero states. ForwardN
// takes the initial states after it, as BeginState makes them (hidden
// and cell for an LSTM, hidden for RNN and GRU, each
// layers*directions x batch x hidden), and then also returns the final
// states, as Gluon's layer(inputs, states) does:
//
//	states := lstm.BeginState(batch)
//	outs := lstm.ForwardN(x, states[0], states[1]) // out, h, c
//
// The zero states are made from the data (zeros_like of a slice of it,
// tiled), so that a hybridized layer's graph, and an exported model,
// take any batch size.
//
// Layout "NTC" takes and returns batch-major sequences. Bidirectional
// runs each layer both ways and concatenates the two, so the output has
// 2*hidden features. Dropout applies between layers in training mode.
//
// # Parameters and the fused op
//
// A layer's parameters are Gluon's, with Gluon's names, in its order:
// for each layer and direction (l for forward, r for reverse) the
// input-to-hidden weight, the hidden-to-hidden weight and their biases
// (l0_i2h_weight, l0_h2h_weight, l0_i2h_bias, l0_h2h_bias, r0_i2h_weight,
// …), after the layer's prefix ("lstm0_l0_i2h_weight"). Gates are
// stacked in MXNet's order, which is PyTorch's too: i, f, g, o for an
// LSTM and r, z, n for a GRU, so weights copy across from torch.nn.LSTM
// and GRU unchanged (weight_ih_l0 is l0_i2h_weight, weight_hh_l0_reverse
// is r0_h2h_weight). The first layer's i2h weights have an unknown input
// size until the first forward, unless Options.InputSize gives it.
//
// Every forward flattens the parameters and joins them with
// _rnn_param_concat into one vector, all weights first, then all biases,
// and runs MXNet's fused RNN op on it (ops.F.RNN). A hybridized layer's
// graph therefore holds the same nodes as one MXNet 1.9's Gluon exports:
// Export writes a symbol file MXNet loads, and nn.SymbolBlockImports
// loads the layer's files back, and MXNet's, whose initial states are
// _zeros of shape (layers, 0, hidden) with the batch left for the RNN op
// to infer (eagerly, the first op that uses such an array gives it its
// shape; in a graph, the consumer's shape rule fills it).
//
// # Cells
//
// A Cell runs one step: its ForwardN takes the step's input (batch x
// features) and the states, and returns the step's output and the new
// states. NewRNNCell, NewLSTMCell and NewGRUCell are Gluon's RNNCell,
// LSTMCell and GRUCell, with the same four parameters (i2h_weight,
// h2h_weight, i2h_bias, h2h_bias) and the same gate order as the layers,
// so a cell given a layer's l0_ weights computes that layer's first
// layer. NewSequentialRNNCell stacks cells, NewBidirectionalCell runs one
// cell forward and one backward in time, and NewDropoutCell,
// NewResidualCell and NewZoneoutCell modify a step as Gluon's do.
//
// Unroll runs a cell over a sequence, as Gluon's cell.unroll: the inputs
// laid out NTC (Gluon's default for cells) or TNC, the initial states
// (zeros when nil, or BeginState's), and MergeOutputs to stack the steps'
// outputs into one tensor:
//
//	cell := rnn.NewSequentialRNNCell(rnn.NewLSTMCell(100), rnn.NewLSTMCell(100))
//	outs, states := rnn.Unroll(F, cell, 35, x, nil, rnn.UnrollOptions{Layout: "TNC", MergeOutputs: true})
//
// Unroll takes the F it runs with: eager.F, or the F of the HybridForward
// it is called from. A hybridized block that unrolls a cell traces every
// step into its graph, ops and all (Gluon's unrolled graph), where a
// Layer is one RNN node; the layer is the faster of the two, the cells
// the more flexible.
package rnn
