package ops

import (
	"fmt"

	"github.com/hybridgo/hybridgo/accel"
)

// RNN is MXNet's fused recurrent layer: a stack of vanilla RNN, LSTM or
// GRU layers, each run over the whole sequence in one or both directions,
// with all weights and biases in one packed vector. _backward_RNN is its
// gradient (backpropagation through time).
//
// The packed parameter vector holds, as MXNet lays it out, first the
// weights of every layer and direction — for layer l and direction d (0
// forward, 1 reverse) the input-to-hidden matrix (gates*state_size x the
// layer's input size) and then the hidden-to-hidden matrix (gates*state_size
// x state_size) — and after all weights the biases in the same order: the
// input-to-hidden bias, then the hidden-to-hidden bias. Gates are stacked
// in MXNet's order, which is also PyTorch's: LSTM input, forget, cell,
// output; GRU reset, update, new.

// RNNAttrs are the attributes of RNN and _backward_RNN.
type RNNAttrs struct {
	StateSize         int      `attr:"state_size" doc:"the size of the hidden state of each layer"`
	NumLayers         int      `attr:"num_layers" doc:"the number of stacked layers"`
	Bidirectional     bool     `attr:"bidirectional" default:"False" doc:"run each layer forward and backward in time and concatenate the two"`
	Mode              string   `attr:"mode" enum:"rnn_relu,rnn_tanh,lstm,gru" doc:"the recurrent cell: rnn_relu, rnn_tanh, lstm or gru"`
	P                 float64  `attr:"p" default:"0" doc:"dropout rate on the outputs of each layer but the last, in training mode"`
	StateOutputs      bool     `attr:"state_outputs" default:"False" doc:"also output the final hidden state (and, for lstm, the final cell state)"`
	ProjectionSize    OptInt   `attr:"projection_size" default:"None" doc:"LSTM projection size; not supported"`
	LstmStateClipMin  OptFloat `attr:"lstm_state_clip_min" default:"None" doc:"lower clip of LSTM cell states; not supported"`
	LstmStateClipMax  OptFloat `attr:"lstm_state_clip_max" default:"None" doc:"upper clip of LSTM cell states; not supported"`
	LstmStateClipNan  bool     `attr:"lstm_state_clip_nan" default:"False" doc:"clip NaN cell states; ignored without a clip range"`
	UseSequenceLength bool     `attr:"use_sequence_length" default:"False" doc:"take a sequence_length input; not supported"`
}

var opRNN, opRNNGrad, opRNNParamConcat *Op

func init() {
	opRNN = Register(Def[RNNAttrs]{
		Name: "RNN", Kind: "other",
		Doc: "A fused stack of recurrent layers (mode rnn_relu, rnn_tanh, lstm or gru) over data laid out TNC (sequence, batch, features), " +
			"with num_layers layers of state_size units, run in both directions when bidirectional. parameters is one vector in MXNet's " +
			"layout: the i2h and h2h weights of each layer and direction in turn, then their biases in the same order; gates in the order " +
			"i, f, g, o (lstm) and r, z, n (gru). state (and state_cell for lstm) hold the initial states, num_layers*directions x batch x state_size. " +
			"The output is sequence x batch x directions*state_size; with state_outputs the final states follow. Dropout with rate p is applied " +
			"between layers in training mode. A hidden last output keeps what the gradient needs.",
		InputNames: func(a *RNNAttrs) []string {
			if a.Mode == "lstm" {
				return []string{"data", "parameters", "state", "state_cell"}
			}
			return []string{"data", "parameters", "state"}
		},
		NumOutputs:     func(a *RNNAttrs) int { return a.visible() + 1 },
		VisibleOutputs: func(a *RNNAttrs) int { return a.visible() },
		Random:         true,
		Check:          func(a *RNNAttrs) error { return a.check() },
		Shape:          rnnShape,
		Kernel:         rnnKernel,
		Grad: func(f F, a *RNNAttrs, in, out, g []Tensor) []Tensor {
			args := append([]Tensor{}, in...)
			args = append(args, out[len(out)-1])
			for i := 0; i < a.visible(); i++ {
				gi := g[i]
				if gi == nil {
					gi = f.ZerosLike(out[i])
				}
				args = append(args, gi)
			}
			return f.Invoke(opRNNGrad, a, args...)
		},
		Samples: []Sample{
			rnnSample("lstm", 3, 1, false, false, 3, 2, 4),
			rnnSample("lstm", 2, 2, true, true, 3, 2, 3),
			rnnSample("gru", 3, 2, false, true, 4, 2, 2),
			rnnSample("gru", 2, 1, true, false, 3, 1, 2),
			rnnSample("rnn_tanh", 3, 2, true, true, 3, 2, 2),
			// relu is not smooth at 0, which random inputs do not hit.
			rnnSample("rnn_relu", 4, 1, false, true, 2, 3, 2),
			{Attrs: map[string]string{"state_size": "2", "num_layers": "2", "mode": "lstm", "p": "0.5"},
				Inputs: []Shape{{2, 2, 2}, {RNNParamSize("lstm", 2, 2, 2, 1)}, {2, 2, 2}, {2, 2, 2}}},
		},
	})

	registerRNNParamConcat()

	opRNNGrad = Register(Def[RNNAttrs]{
		Name: "_backward_RNN", Kind: "other",
		Doc: "The gradient of RNN (backpropagation through time): the gradients of data, parameters, state and (lstm) state_cell, " +
			"from RNN's inputs, its hidden saved output and the gradients of its visible outputs.",
		InputNames: func(a *RNNAttrs) []string {
			names := []string{"data", "parameters", "state"}
			if a.Mode == "lstm" {
				names = append(names, "state_cell")
			}
			names = append(names, "saved", "ograd")
			if a.StateOutputs {
				names = append(names, "ograd_state")
				if a.Mode == "lstm" {
					names = append(names, "ograd_state_cell")
				}
			}
			return names
		},
		NumOutputs: func(a *RNNAttrs) int {
			if a.Mode == "lstm" {
				return 4
			}
			return 3
		},
		Check: func(a *RNNAttrs) error { return a.check() },
		Shape: func(a *RNNAttrs, in []Shape) ([]Shape, error) {
			ni := a.numInputs()
			fwd, err := rnnShape(a, in[:ni])
			if err != nil {
				return nil, err
			}
			rest := in[ni:]
			for i, want := range append(fwd[len(fwd)-1:], fwd[:len(fwd)-1]...) {
				got, err := sameShape(rest[i], want)
				if err != nil {
					return nil, Errorf("input %d is %v, but RNN's matching output is %v", ni+i, rest[i], want)
				}
				rest[i] = got
			}
			outs := make([]Shape, ni)
			for i := range outs {
				outs[i] = in[i].Clone()
			}
			return outs, nil
		},
		Kernel: rnnGradKernel,
		Grad: func(F, *RNNAttrs, []Tensor, []Tensor, []Tensor) []Tensor {
			panic(&Error{Op: "_backward_RNN", Msg: "the second-order gradient of RNN is not supported"})
		},
		Samples: []Sample{
			rnnGradSample("lstm", 3, 1, false, false, 3, 2, 4),
			rnnGradSample("gru", 2, 2, true, true, 2, 1, 2),
			rnnGradSample("rnn_tanh", 2, 1, false, false, 2, 2, 2),
		},
	})
}

// rnnSample is a deterministic sample of RNN (p=0): state size h, l
// layers, bidirectional or not, with or without state outputs, on data
// t x n x i.
func rnnSample(mode string, h, l int, bi, states bool, t, n, i int) Sample {
	a := map[string]string{"mode": mode, "state_size": fmt.Sprint(h), "num_layers": fmt.Sprint(l),
		"bidirectional": pyBool(bi), "state_outputs": pyBool(states)}
	d := 1
	if bi {
		d = 2
	}
	in := []Shape{{t, n, i}, {RNNParamSize(mode, i, h, l, d)}, {l * d, n, h}}
	if mode == "lstm" {
		in = append(in, Shape{l * d, n, h})
	}
	return Sample{Attrs: a, Inputs: in, Deterministic: true}
}

// rnnGradSample is a sample of _backward_RNN matching rnnSample's.
func rnnGradSample(mode string, h, l int, bi, states bool, t, n, i int) Sample {
	s := rnnSample(mode, h, l, bi, states, t, n, i)
	a, _ := opRNN.ParseAttrs(s.Attrs)
	outs, _ := rnnShape(a.(*RNNAttrs), append([]Shape{}, s.Inputs...))
	s.Inputs = append(s.Inputs, outs[len(outs)-1])
	s.Inputs = append(s.Inputs, outs[:len(outs)-1]...)
	s.Deterministic, s.NoGradCheck = false, true
	return s
}

// registerRNNParamConcat registers _rnn_param_concat, the Concat that
// Gluon's recurrent layers join their parameters with (MXNet lets its
// shape rule infer an unknown input from the output; here the layers
// know their parameters' shapes before they join them).
func registerRNNParamConcat() {
	opRNNParamConcat = Register(Def[ConcatAttrs]{
		Name: "_rnn_param_concat", Kind: "shape",
		Doc:        "Concat as Gluon's recurrent layers use it to join their flattened weights and biases into the RNN op's parameter vector.",
		InputNames: func(a *ConcatAttrs) []string { return argNames(a.NumArgs) },
		Check:      func(a *ConcatAttrs) error { return checkNumArgs(a.NumArgs) },
		Shape:      func(a *ConcatAttrs, in []Shape) ([]Shape, error) { return opConcat.shape(a, in) },
		Kernel: func(env *Env, a *ConcatAttrs, in, out []Value) error {
			if len(out[0].Shape) != 1 || out[0].DType != in[0].DType {
				return opConcat.kernel(env, a, in, out)
			}
			// Vectors, as Gluon joins them: one copy each.
			switch dst := out[0].Data.(type) {
			case []float32:
				joinVectors(dst, in)
			case []float64:
				joinVectors(dst, in)
			default:
				return opConcat.kernel(env, a, in, out)
			}
			return nil
		},
		Grad: func(f F, a *ConcatAttrs, in, out, g []Tensor) []Tensor { return opConcat.grad(f, a, in, out, g) },
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "3", "dim": "0"}, Inputs: []Shape{{6}, {4}, {2}}},
			{Attrs: map[string]string{"num_args": "2", "dim": "0"}, Inputs: []Shape{{2, 3}, {1, 3}}},
		},
	})
}

// joinVectors copies the inputs, vectors of dst's element type, one
// after another into dst.
func joinVectors[T accel.Float](dst []T, in []Value) {
	off := 0
	for _, v := range in {
		off += copy(dst[off:], v.Data.([]T))
	}
}

// visible is the number of outputs a caller sees.
func (a *RNNAttrs) visible() int {
	switch {
	case !a.StateOutputs:
		return 1
	case a.Mode == "lstm":
		return 3
	}
	return 2
}

// numInputs is the number of RNN's inputs.
func (a *RNNAttrs) numInputs() int {
	if a.Mode == "lstm" {
		return 4
	}
	return 3
}

func (a *RNNAttrs) check() error {
	switch {
	case a.StateSize <= 0:
		return Errorf("state_size=%d must be positive", a.StateSize)
	case a.NumLayers <= 0:
		return Errorf("num_layers=%d must be positive", a.NumLayers)
	case a.P < 0 || a.P >= 1:
		return Errorf("p=%v is not in [0, 1)", a.P)
	case a.ProjectionSize.Valid:
		return Errorf("projection_size is not supported (LSTM with projection)")
	case a.LstmStateClipMin.Valid || a.LstmStateClipMax.Valid:
		return Errorf("lstm_state_clip_min and lstm_state_clip_max are not supported")
	case a.UseSequenceLength:
		return Errorf("use_sequence_length is not supported: pad the sequences to one length (SequenceMask can mask the outputs)")
	}
	return nil
}

// rnnGeom holds the sizes of one RNN call.
type rnnGeom struct {
	mode    string
	G       int // gates per unit: 1, 4 (lstm) or 3 (gru)
	L, D    int // layers and directions
	T, N, I int // sequence length, batch, input features
	H       int // state size
	dropout bool
}

func rnnGeomOf(a *RNNAttrs, data Shape) rnnGeom {
	g := rnnGeom{mode: a.Mode, G: 1, L: a.NumLayers, D: 1, H: a.StateSize, dropout: a.P > 0}
	switch a.Mode {
	case "lstm":
		g.G = 4
	case "gru":
		g.G = 3
	}
	if a.Bidirectional {
		g.D = 2
	}
	if len(data) == 3 {
		g.T, g.N, g.I = data[0], data[1], data[2]
	}
	return g
}

// RNNParamSize is the length of the packed parameter vector of an RNN op
// with the given mode (rnn_relu, rnn_tanh, lstm, gru), input size, state
// size, layer count and directions (1 or 2).
func RNNParamSize(mode string, inputSize, stateSize, numLayers, directions int) int {
	a := RNNAttrs{Mode: mode, StateSize: stateSize, NumLayers: numLayers, Bidirectional: directions == 2}
	return rnnGeomOf(&a, Shape{1, 1, inputSize}).paramSize()
}

func (g rnnGeom) inSize(l int) int {
	if l == 0 {
		return g.I
	}
	return g.D * g.H
}

func (g rnnGeom) gh() int { return g.G * g.H }

func (g rnnGeom) paramSize() int {
	n := 0
	for l := 0; l < g.L; l++ {
		n += g.D * g.gh() * (g.inSize(l) + g.H + 2)
	}
	return n
}

// weights returns the offsets of the i2h and h2h weights of layer l,
// direction d in the packed vector.
func (g rnnGeom) weights(l, d int) (wx, wh int) {
	off := 0
	for k := 0; k < l; k++ {
		off += g.D * g.gh() * (g.inSize(k) + g.H)
	}
	off += d * g.gh() * (g.inSize(l) + g.H)
	return off, off + g.gh()*g.inSize(l)
}

// biases returns the offsets of the i2h and h2h biases of layer l, direction d.
func (g rnnGeom) biases(l, d int) (bx, bh int) {
	off := 0
	for k := 0; k < g.L; k++ {
		off += g.D * g.gh() * (g.inSize(k) + g.H)
	}
	off += (l*g.D + d) * 2 * g.gh()
	return off, off + g.gh()
}

// The saved output holds, for each layer and direction, the gates after
// their activations at every step (T x N x G*H) and, for lstm the cell
// states and for gru the hidden part of the new gate (T x N x H each);
// (and, for lstm, the tanh of the cell states after them); then each
// layer's output (T x N x D*H); then, when p > 0, each upper
// layer's input after dropout and its dropout mask.

func (g rnnGeom) extra() int {
	switch g.mode {
	case "lstm":
		return 2 // the cell states, then their tanh
	case "gru":
		return 1
	}
	return 0
}

func (g rnnGeom) perDir() int { return g.T * g.N * g.H * (g.G + g.extra()) }
func (g rnnGeom) seqOut() int { return g.T * g.N * g.D * g.H }

func (g rnnGeom) gatesOff(l, d int) int { return (l*g.D + d) * g.perDir() }
func (g rnnGeom) yOff(l int) int        { return g.L*g.D*g.perDir() + l*g.seqOut() }
func (g rnnGeom) xinOff(l int) int      { return g.yOff(g.L) + (l-1)*2*g.seqOut() }

func (g rnnGeom) savedSize() int {
	n := g.yOff(g.L)
	if g.dropout {
		n += 2 * (g.L - 1) * g.seqOut()
	}
	return n
}

func rnnShape(a *RNNAttrs, in []Shape) ([]Shape, error) {
	data := in[0]
	if len(data) != 3 {
		return nil, Errorf("data %v must be 3-D: sequence x batch x features (TNC)", data)
	}
	g := rnnGeomOf(a, data)
	if g.I > 0 {
		p, err := sameShape(in[1], Shape{g.paramSize()})
		if err != nil {
			return nil, Errorf("parameters %v should hold %d values for %s with input size %d, state_size %d, %d layer(s) and %d direction(s)",
				in[1], g.paramSize(), a.Mode, g.I, g.H, g.L, g.D)
		}
		in[1] = p
	} else if in[1] != nil && len(in[1]) != 1 {
		return nil, Errorf("parameters %v must be a vector", in[1])
	}
	want := Shape{g.L * g.D, g.N, g.H}
	for i := 2; i < len(in); i++ {
		s, err := sameShape(in[i], want)
		if err != nil {
			return nil, Errorf("%s %v should be %v (layers*directions x batch x state_size)", a.names()[i], in[i], want)
		}
		in[i] = s
		if g.N == 0 {
			g.N = s[1]
			want[1] = s[1]
		}
	}
	out := []Shape{{g.T, g.N, g.D * g.H}}
	if a.StateOutputs {
		out = append(out, want.Clone())
		if a.Mode == "lstm" {
			out = append(out, want.Clone())
		}
	}
	saved := Shape{g.savedSize()}
	if g.T == 0 || g.N == 0 {
		saved = Shape{0}
	}
	return append(out, saved), nil
}

func (a *RNNAttrs) names() []string {
	return []string{"data", "parameters", "state", "state_cell"}
}

func rnnKernel(env *Env, a *RNNAttrs, in, out []Value) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	g := rnnGeomOf(a, in[0].Shape)
	training := env.Training && g.dropout
	if training && env.Rand == nil {
		return Errorf("no random source for dropout (p=%v): RNN must be run by an interpreter that supplies one", a.P)
	}
	var rnd func() float64
	if training {
		rnd = env.Rand.Float64
	}
	switch x := in[0].Data.(type) {
	case []float32:
		rnnForward(g, a.P, rnd, x, rnnSlices[float32](in[1:]), rnnSlices[float32](out))
	case []float64:
		rnnForward(g, a.P, rnd, x, rnnSlices[float64](in[1:]), rnnSlices[float64](out))
	}
	return nil
}

func rnnSlices[T accel.Float](vs []Value) [][]T {
	s := make([][]T, len(vs))
	for i, v := range vs {
		s[i] = v.Data.([]T)
	}
	return s
}

// sigmoidRow and tanhRow apply the gates' nonlinearities in place
// (accel.Sigmoid and accel.Tanh: in float32 a rational function, a few
// ulp from the exact values).
func sigmoidRow[T accel.Float](x []T) { accel.Sigmoid(x, x) }

func tanhRow[T accel.Float](x []T) { accel.Tanh(x, x) }

// packRNNWeight packs a weight for accel.GemmPackedB as the k x n matrix
// B: wᵀ (w stored n x k) when trans, else w (stored k x n). Give the
// result back with accel.PutScratch.
func packRNNWeight[T accel.Float](w []T, k, n int, trans bool) *[]T {
	wp := accel.PanelWidth[T]()
	need := accel.PackedBLen[T](k, n)
	bp := accel.GetScratch[T](need)
	dst := (*bp)[:need]
	clear(dst)
	for j := 0; j < n; j++ {
		panel, col := dst[(j/wp)*wp*k:], j%wp
		for p := 0; p < k; p++ {
			if trans {
				panel[p*wp+col] = w[j*k+p]
			} else {
				panel[p*wp+col] = w[p*n+j]
			}
		}
	}
	return bp
}

// rnnForward runs the stack. in holds parameters, state and (lstm)
// state_cell; out the visible outputs and, last, the saved values. rnd
// draws the dropout masks; nil means no dropout (prediction mode).
func rnnForward[T accel.Float](g rnnGeom, p float64, rnd func() float64, x []T, in, out [][]T) {
	w, h0 := in[0], in[1]
	var c0 []T
	if g.mode == "lstm" {
		c0 = in[2]
	}
	res := out[len(out)-1]
	var hy, cy []T
	if len(out) > 2 {
		hy = out[1]
		if len(out) > 3 {
			cy = out[2]
		}
	}
	T_, N, H, D, GH := g.T, g.N, g.H, g.D, g.gh()
	DH := D * H
	if T_ == 0 || N == 0 {
		if hy != nil {
			copy(hy, h0)
		}
		if cy != nil {
			copy(cy, c0)
		}
		return
	}
	hhp := accel.GetScratch[T](N * GH)
	defer accel.PutScratch(hhp)
	hh := (*hhp)[:N*GH]
	xin := x
	for l := 0; l < g.L; l++ {
		in := g.inSize(l)
		y := res[g.yOff(l):][:g.seqOut()]
		for d := 0; d < D; d++ {
			wo, who := g.weights(l, d)
			wx, wh := w[wo:][:GH*in], w[who:][:GH*H]
			bxo, bho := g.biases(l, d)
			bx, bh := w[bxo:][:GH], w[bho:][:GH]
			gates := res[g.gatesOff(l, d):][:T_*N*GH]
			ext := res[g.gatesOff(l, d)+T_*N*GH:][:T_*N*H*g.extra()]
			// The input projections of all steps in one product.
			accel.Gemm(false, true, T_*N, GH, in, 1, xin, in, wx, in, 0, gates, GH)
			for r := 0; r < T_*N; r++ {
				row := gates[r*GH:][:GH]
				for j := range row {
					b := bx[j]
					if g.mode != "gru" || j < 2*H {
						b += bh[j]
					}
					row[j] += b
				}
			}
			sd := (l*D + d) * N * H
			// Whᵀ is packed once for the products of all steps.
			whp := packRNNWeight(wh, H, GH, true)
			for s := 0; s < T_; s++ {
				t, tp := s, s-1
				if d == 1 {
					t, tp = T_-1-s, T_-s
				}
				hprev, ldh := h0[sd:], H
				if s > 0 {
					hprev, ldh = y[tp*N*DH+d*H:], DH
				}
				accel.GemmPackedB(false, N, GH, H, hprev, ldh, *whp, 0, hh, GH, nil)
				gt := gates[t*N*GH:][:N*GH]
				yt := y[t*N*DH+d*H:]
				switch g.mode {
				case "lstm":
					cprev := c0[sd:]
					if s > 0 {
						cprev = ext[tp*N*H:]
					}
					ct := ext[t*N*H:][:N*H]
					for n := 0; n < N; n++ {
						gr, hr := gt[n*GH:][:GH], hh[n*GH:][:GH]
						for j := range gr {
							gr[j] += hr[j]
						}
						sigmoidRow(gr[:2*H])
						tanhRow(gr[2*H : 3*H])
						sigmoidRow(gr[3*H:])
						cp, cr, yr := cprev[n*H:][:H], ct[n*H:][:H], yt[n*DH:][:H]
						tc := ext[T_*N*H+t*N*H+n*H:][:H]
						for j := range cr {
							c := gr[H+j]*cp[j] + gr[j]*gr[2*H+j]
							cr[j], tc[j] = c, c
						}
						tanhRow(tc)
						for j := range yr {
							yr[j] = gr[3*H+j] * tc[j]
						}
					}
				case "gru":
					ht := ext[t*N*H:][:N*H]
					for n := 0; n < N; n++ {
						gr, hr := gt[n*GH:][:GH], hh[n*GH:][:GH]
						for j := range 2 * H {
							gr[j] += hr[j]
						}
						sigmoidRow(gr[:2*H])
						hn := ht[n*H:][:H]
						for j := range hn {
							hn[j] = hr[2*H+j] + bh[2*H+j]
							gr[2*H+j] += gr[j] * hn[j]
						}
						tanhRow(gr[2*H:])
						yr, hp := yt[n*DH:][:H], hprev[n*ldh:][:H]
						for j := range yr {
							z := gr[H+j]
							yr[j] = (1-z)*gr[2*H+j] + z*hp[j]
						}
					}
				default:
					relu := g.mode == "rnn_relu"
					for n := 0; n < N; n++ {
						gr, hr, yr := gt[n*GH:][:GH], hh[n*GH:][:GH], yt[n*DH:][:H]
						for j := range yr {
							v := gr[j] + hr[j]
							if relu {
								v = max(v, 0)
							}
							yr[j] = v
						}
						if !relu {
							tanhRow(yr)
						}
					}
				}
			}
			accel.PutScratch(whp)
			last := T_ - 1
			if d == 1 {
				last = 0
			}
			for n := 0; n < N; n++ {
				if hy != nil {
					copy(hy[sd+n*H:][:H], y[last*N*DH+n*DH+d*H:][:H])
				}
				if cy != nil {
					copy(cy[sd+n*H:][:H], ext[last*N*H+n*H:][:H])
				}
			}
		}
		if l < g.L-1 {
			if g.dropout {
				next := res[g.xinOff(l+1):][:g.seqOut()]
				mask := res[g.xinOff(l+1)+g.seqOut():][:g.seqOut()]
				keep := T(1 / (1 - p))
				for k := range mask {
					m := keep
					switch {
					case rnd == nil:
						m = 1
					case rnd() < p:
						m = 0
					}
					mask[k] = m
					next[k] = y[k] * m
				}
				xin = next
			} else {
				xin = y
			}
		} else {
			copy(out[0], y)
		}
	}
}

func rnnGradKernel(_ *Env, a *RNNAttrs, in, out []Value) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	g := rnnGeomOf(a, in[0].Shape)
	switch x := in[0].Data.(type) {
	case []float32:
		rnnBackward(g, a.StateOutputs, x, rnnSlices[float32](in[1:]), rnnSlices[float32](out))
	case []float64:
		rnnBackward(g, a.StateOutputs, x, rnnSlices[float64](in[1:]), rnnSlices[float64](out))
	}
	return nil
}

// rnnBackward runs backpropagation through time. in holds parameters,
// state, (lstm) state_cell, the saved values, the output's gradient and,
// with state outputs, the final states' gradients; out gets the gradients
// of data, parameters, state and (lstm) state_cell.
func rnnBackward[T accel.Float](g rnnGeom, stateOutputs bool, x []T, in, out [][]T) {
	lstm := g.mode == "lstm"
	w, h0 := in[0], in[1]
	k := 2
	var c0 []T
	if lstm {
		c0 = in[2]
		k = 3
	}
	res, dout := in[k], in[k+1]
	var dhy, dcy []T
	if stateOutputs {
		dhy = in[k+2]
		if lstm {
			dcy = in[k+3]
		}
	}
	dx, dw, dh0 := out[0], out[1], out[2]
	var dc0 []T
	if lstm {
		dc0 = out[3]
	}
	clear(dw)
	T_, N, H, D, GH := g.T, g.N, g.H, g.D, g.gh()
	DH := D * H
	if T_ == 0 || N == 0 {
		clear(dx)
		if dhy != nil {
			copy(dh0, dhy)
		} else {
			clear(dh0)
		}
		if dc0 != nil {
			if dcy != nil {
				copy(dc0, dcy)
			} else {
				clear(dc0)
			}
		}
		return
	}
	scratch := func(n int) []T { return make([]T, n) }
	dgx := scratch(T_ * N * GH)
	dgh := dgx
	if g.mode == "gru" {
		dgh = scratch(T_ * N * GH)
	}
	var dyBuf, dxBuf []T
	if g.L > 1 {
		dyBuf, dxBuf = scratch(g.seqOut()), scratch(g.seqOut())
	}
	dy := dout
	for l := g.L - 1; l >= 0; l-- {
		in := g.inSize(l)
		xin := x
		if l > 0 {
			if g.dropout {
				xin = res[g.xinOff(l):][:g.seqOut()]
			} else {
				xin = res[g.yOff(l-1):][:g.seqOut()]
			}
		}
		dxin := dx
		if l > 0 {
			dxin = dxBuf
		}
		y := res[g.yOff(l):][:g.seqOut()]
		for d := 0; d < D; d++ {
			wo, who := g.weights(l, d)
			wx, wh := w[wo:][:GH*in], w[who:][:GH*H]
			dwx, dwh := dw[wo:][:GH*in], dw[who:][:GH*H]
			bxo, bho := g.biases(l, d)
			dbx, dbh := dw[bxo:][:GH], dw[bho:][:GH]
			gates := res[g.gatesOff(l, d):][:T_*N*GH]
			ext := res[g.gatesOff(l, d)+T_*N*GH:][:T_*N*H*g.extra()]
			sd := (l*D + d) * N * H
			dhn := dh0[sd:][:N*H]
			if dhy != nil {
				copy(dhn, dhy[sd:][:N*H])
			} else {
				clear(dhn)
			}
			var dcn []T
			if lstm {
				dcn = dc0[sd:][:N*H]
				if dcy != nil {
					copy(dcn, dcy[sd:][:N*H])
				} else {
					clear(dcn)
				}
			}
			// Wh is packed once for the products of all steps.
			whp := packRNNWeight(wh, GH, H, false)
			for s := T_ - 1; s >= 0; s-- {
				t, tp := s, s-1
				if d == 1 {
					t, tp = T_-1-s, T_-s
				}
				hprev, ldh := h0[sd:], H
				if s > 0 {
					hprev, ldh = y[tp*N*DH+d*H:], DH
				}
				gt := gates[t*N*GH:][:N*GH]
				yt := y[t*N*DH+d*H:]
				dyt := dy[t*N*DH+d*H:]
				gx := dgx[t*N*GH:][:N*GH]
				switch g.mode {
				case "lstm":
					cprev := c0[sd:]
					if s > 0 {
						cprev = ext[tp*N*H:]
					}
					for n := 0; n < N; n++ {
						gr, gxr := gt[n*GH:][:GH], gx[n*GH:][:GH]
						tcRow := ext[T_*N*H+t*N*H+n*H:][:H]
						for j := 0; j < H; j++ {
							dh := float64(dyt[n*DH+j] + dhn[n*H+j])
							i, f, c, o := float64(gr[j]), float64(gr[H+j]), float64(gr[2*H+j]), float64(gr[3*H+j])
							tc := float64(tcRow[j])
							dc := float64(dcn[n*H+j]) + dh*o*(1-tc*tc)
							gxr[j] = T(dc * c * i * (1 - i))
							gxr[H+j] = T(dc * float64(cprev[n*H+j]) * f * (1 - f))
							gxr[2*H+j] = T(dc * i * (1 - c*c))
							gxr[3*H+j] = T(dh * tc * o * (1 - o))
							dcn[n*H+j] = T(dc * f)
						}
					}
					accel.GemmPackedB(false, N, H, GH, gx, GH, *whp, 0, dhn, H, nil)
				case "gru":
					gh := dgh[t*N*GH:][:N*GH]
					hn := ext[t*N*H:]
					for n := 0; n < N; n++ {
						gr, gxr, ghr := gt[n*GH:][:GH], gx[n*GH:][:GH], gh[n*GH:][:GH]
						for j := 0; j < H; j++ {
							dh := float64(dyt[n*DH+j] + dhn[n*H+j])
							r, z, nv := float64(gr[j]), float64(gr[H+j]), float64(gr[2*H+j])
							dpn := dh * (1 - z) * (1 - nv*nv)
							dr := dpn * float64(hn[n*H+j]) * r * (1 - r)
							dz := dh * (float64(hprev[n*ldh+j]) - nv) * z * (1 - z)
							gxr[j], gxr[H+j], gxr[2*H+j] = T(dr), T(dz), T(dpn)
							ghr[j], ghr[H+j], ghr[2*H+j] = T(dr), T(dz), T(dpn*r)
							dhn[n*H+j] = T(dh * z)
						}
					}
					accel.GemmPackedB(false, N, H, GH, gh, GH, *whp, 1, dhn, H, nil)
				default:
					relu := g.mode == "rnn_relu"
					for n := 0; n < N; n++ {
						gxr := gx[n*GH:][:GH]
						for j := 0; j < H; j++ {
							dh := dyt[n*DH+j] + dhn[n*H+j]
							h := yt[n*DH+j]
							if relu {
								if h <= 0 {
									dh = 0
								}
							} else {
								dh *= 1 - h*h
							}
							gxr[j] = dh
						}
					}
					accel.GemmPackedB(false, N, H, GH, gx, GH, *whp, 0, dhn, H, nil)
				}
			}
			accel.PutScratch(whp)
			// Weight and bias gradients over all steps at once.
			accel.Gemm(true, false, GH, in, T_*N, 1, dgx, GH, xin, in, 1, dwx, in)
			first, rest, prevRows := 0, N*GH, y[d*H:]
			if d == 1 {
				first, rest, prevRows = (T_-1)*N*GH, 0, y[N*DH+d*H:]
			}
			accel.Gemm(true, false, GH, H, N, 1, dgh[first:], GH, h0[sd:], H, 1, dwh, H)
			if T_ > 1 {
				accel.Gemm(true, false, GH, H, (T_-1)*N, 1, dgh[rest:], GH, prevRows, DH, 1, dwh, H)
			}
			for r := 0; r < T_*N; r++ {
				accel.Axpy(1, dgx[r*GH:][:GH], dbx)
				accel.Axpy(1, dgh[r*GH:][:GH], dbh)
			}
			beta := T(0)
			if d == 1 {
				beta = 1
			}
			accel.Gemm(false, false, T_*N, in, GH, 1, dgx, GH, wx, in, beta, dxin, in)
		}
		if l > 0 {
			if g.dropout {
				mask := res[g.xinOff(l)+g.seqOut():][:g.seqOut()]
				for k := range dyBuf {
					dyBuf[k] = dxBuf[k] * mask[k]
				}
			} else {
				copy(dyBuf, dxBuf)
			}
			dy = dyBuf
		}
	}
}

// RNN runs MXNet's fused recurrent op on inputs data (TNC), parameters
// (the packed vector, see RNNParamSize), state and, for lstm, state_cell.
// It returns the output and, with ops.Attr{"state_outputs", true}, the
// final states. Options: "bidirectional", "p" (dropout between layers).
func (f F) RNN(inputs []Tensor, mode string, stateSize, numLayers int, attrs ...Attr) []Tensor {
	given := append([]Attr{{"mode", mode}, {"state_size", stateSize}, {"num_layers", numLayers}}, attrs...)
	a := mustAttrs(opRNN, given)
	if want := a.(*RNNAttrs).numInputs(); len(inputs) != want {
		panic(&Error{Op: "RNN", Msg: fmt.Sprintf("mode %s takes %d inputs (%v), got %d", mode, want, opRNN.InputNames(a), len(inputs))})
	}
	return f.Invoke(opRNN, a, inputs...)
}

// RNNParamConcat joins flattened weights and biases along dim 0 into an
// RNN op's parameter vector, as Gluon's recurrent layers do
// (_rnn_param_concat in model files).
func (f F) RNNParamConcat(xs ...Tensor) Tensor {
	return f.callA(opRNNParamConcat, &ConcatAttrs{NumArgs: len(xs), Dim: 0}, xs...)
}
