package ops

import "math"

// CTCLoss: connectionist temporal classification (Graves et al.), the loss
// of a sequence of per-step class scores against a shorter label sequence,
// summed over every alignment by the forward-backward recursions in log
// space. As in MXNet the kernel computes the gradient with respect to the
// scores along with the loss, into a hidden second output, and the
// gradient rule scales it by the incoming gradient of each sequence's loss.

// CTCLossAttrs are the attributes of CTCLoss.
type CTCLossAttrs struct {
	UseDataLengths  bool   `attr:"use_data_lengths" default:"False" doc:"the sequences' lengths are given by the input data_lengths; otherwise every sequence has the data's full length"`
	UseLabelLengths bool   `attr:"use_label_lengths" default:"False" doc:"the labels' lengths are given by the input label_lengths; otherwise a label ends at its first padding value (0 with blank_label first, -1 with last)"`
	BlankLabel      string `attr:"blank_label" default:"first" enum:"first,last" doc:"the class reserved for the blank: first (class 0) or last (class alphabet_size-1)"`
}

var opCTCLoss *Op

func init() {
	opCTCLoss = Register(Def[CTCLossAttrs]{
		Name: "CTCLoss", Aliases: []string{"ctc_loss", "_npx_ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"}, Kind: "loss",
		Doc: "Connectionist temporal classification loss: data (sequence length, batch, alphabet size) holds the " +
			"scores before softmax of each step, label (batch, label length) the class sequences, padded at the end " +
			"(with 0 when blank_label is first, -1 when last, unless use_label_lengths gives the lengths). The result " +
			"(batch) is each sequence's -log p(label | data), p summed over every alignment; it is +inf where no " +
			"alignment fits in the sequence. The optional inputs data_lengths and label_lengths (batch) follow " +
			"use_data_lengths and use_label_lengths. The hidden second output is the gradient of the loss with respect " +
			"to data (0 beyond each sequence's length), which the gradient rule scales; label and the lengths get none.",
		InputNames: func(a *CTCLossAttrs) []string {
			names := []string{"data", "label"}
			if a.UseDataLengths {
				names = append(names, "data_lengths")
			}
			if a.UseLabelLengths {
				names = append(names, "label_lengths")
			}
			return names
		},
		Outputs: 2, VisibleOutputs: func(*CTCLossAttrs) int { return 1 },
		Shape: func(a *CTCLossAttrs, in []Shape) ([]Shape, error) {
			d, l := in[0], in[1]
			if len(d) != 3 {
				return nil, Errorf("data %v must be 3-D (sequence length, batch, alphabet size)", d)
			}
			if len(l) != 2 {
				return nil, Errorf("label %v must be 2-D (batch, label length)", l)
			}
			if d[1] != 0 && l[0] != 0 && d[1] != l[0] {
				return nil, Errorf("data %v and label %v differ in batch size", d, l)
			}
			if d[0] != 0 && l[1] != 0 && l[1] > d[0] {
				return nil, Errorf("label %v is longer than the sequences of data %v", l, d)
			}
			b := max(d[1], l[0])
			for i := 2; i < len(in); i++ {
				if len(in[i]) != 1 || (in[i][0] != 0 && b != 0 && in[i][0] != b) {
					return nil, Errorf("%s %v must be a vector of the batch size %d", a.inputName(i), in[i], b)
				}
			}
			return []Shape{{b}, Shape{d[0], b, d[2]}}, nil
		},
		DType: func(_ *CTCLossAttrs, in []DType) ([]DType, error) {
			d, err := floatData(in[0])
			if err != nil {
				return nil, err
			}
			return []DType{d[0], d[0]}, nil
		},
		Kernel: ctcKernel,
		Grad: func(f F, _ *CTCLossAttrs, in, out, g []Tensor) []Tensor {
			gs := make([]Tensor, len(in))
			gs[0] = f.Mul(out[1], f.Reshape(g[0], 1, -1, 1))
			return gs
		},
		Samples: []Sample{
			{Inputs: []Shape{{7, 2, 4}, {2, 3}}, Ints: map[int]int{1: 4}},
			{Attrs: map[string]string{"blank_label": "last"}, Inputs: []Shape{{5, 3, 3}, {3, 2}}, Ints: map[int]int{1: 2}},
			{Attrs: map[string]string{"use_label_lengths": "True", "blank_label": "last"}, Inputs: []Shape{{7, 2, 5}, {2, 3}, {2}}, Ints: map[int]int{1: 4, 2: 4}},
			{Attrs: map[string]string{"use_data_lengths": "True", "use_label_lengths": "True"}, Inputs: []Shape{{4, 3, 3}, {3, 2}, {3}, {3}}, Ints: map[int]int{1: 3, 2: 5, 3: 1}},
		},
	})
}

// inputName names input i (2 or 3) of CTCLoss.
func (a *CTCLossAttrs) inputName(i int) string {
	if i == 2 && a.UseDataLengths {
		return "data_lengths"
	}
	return "label_lengths"
}

// ctcKernel computes each sequence's loss and the gradient of it.
func ctcKernel(_ *Env, a *CTCLossAttrs, in, out []Value) error {
	x := in[0].Float64s()
	labels := in[1].Float64s()
	tn, bn, an := in[0].Shape[0], in[0].Shape[1], in[0].Shape[2]
	ln := in[1].Shape[1]
	blank, pad := 0, 0.0
	if a.BlankLabel == "last" {
		blank, pad = an-1, -1
	}
	var dataLen, labelLen []float64
	next := 2
	if a.UseDataLengths {
		dataLen = in[next].Float64s()
		next++
	}
	if a.UseLabelLengths {
		labelLen = in[next].Float64s()
	}
	loss := make([]float64, bn)
	grad := make([]float64, tn*bn*an)
	for b := range bn {
		t := tn
		if dataLen != nil {
			t = int(dataLen[b])
			if t < 0 || t > tn || float64(t) != dataLen[b] {
				return Errorf("data_lengths[%d]=%v is not a length in [0, %d]", b, dataLen[b], tn)
			}
		}
		row := labels[b*ln : (b+1)*ln]
		n := ln
		if labelLen != nil {
			n = int(labelLen[b])
			if n < 0 || n > ln || float64(n) != labelLen[b] {
				return Errorf("label_lengths[%d]=%v is not a length in [0, %d]", b, labelLen[b], ln)
			}
		} else {
			for i, v := range row {
				if v == pad {
					n = i
					break
				}
			}
		}
		seq := make([]int, n)
		for i, v := range row[:n] {
			c := int(v)
			if float64(c) != v || c < 0 || c >= an || c == blank {
				return Errorf("label[%d, %d]=%v is not a class in [0, %d) other than the blank %d", b, i, v, an, blank)
			}
			seq[i] = c
		}
		loss[b] = ctcSequence(x, grad, b, bn, an, t, blank, seq)
	}
	CopyData(out[0].Data, FromFloat64s(out[0].DType, loss))
	CopyData(out[1].Data, FromFloat64s(out[1].DType, grad))
	return nil
}

// logAdd returns log(exp(a) + exp(b)).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// ctcSequence returns the loss of sequence b, its first t steps of the
// scores x (T, bn, an), against the labels seq, and writes the gradient of
// the loss with respect to those steps into grad (laid out like x).
func ctcSequence(x, grad []float64, b, bn, an, t, blank int, seq []int) float64 {
	if t == 0 {
		if len(seq) == 0 {
			return 0
		}
		return math.Inf(1)
	}
	// The log-softmax of each step.
	lp := make([]float64, t*an)
	for i := range t {
		xs := x[(i*bn+b)*an : (i*bn+b+1)*an]
		m := math.Inf(-1)
		for _, v := range xs {
			m = max(m, v)
		}
		sum := 0.0
		for _, v := range xs {
			sum += math.Exp(v - m)
		}
		lse := m + math.Log(sum)
		for k, v := range xs {
			lp[i*an+k] = v - lse
		}
	}
	// The label with blanks around and between its classes.
	s := 2*len(seq) + 1
	ext := make([]int, s)
	for i := range ext {
		ext[i] = blank
		if i%2 == 1 {
			ext[i] = seq[i/2]
		}
	}
	skip := func(j int) bool { return j >= 2 && ext[j] != blank && ext[j] != ext[j-2] }
	neg := math.Inf(-1)
	alpha := make([]float64, t*s)
	beta := make([]float64, t*s)
	for i := range alpha {
		alpha[i], beta[i] = neg, neg
	}
	alpha[0] = lp[ext[0]]
	if s > 1 {
		alpha[1] = lp[ext[1]]
	}
	for i := 1; i < t; i++ {
		for j := range s {
			v := alpha[(i-1)*s+j]
			if j >= 1 {
				v = logAdd(v, alpha[(i-1)*s+j-1])
			}
			if skip(j) {
				v = logAdd(v, alpha[(i-1)*s+j-2])
			}
			alpha[i*s+j] = v + lp[i*an+ext[j]]
		}
	}
	last := (t - 1) * s
	beta[last+s-1] = lp[(t-1)*an+ext[s-1]]
	if s > 1 {
		beta[last+s-2] = lp[(t-1)*an+ext[s-2]]
	}
	for i := t - 2; i >= 0; i-- {
		for j := range s {
			v := beta[(i+1)*s+j]
			if j+1 < s {
				v = logAdd(v, beta[(i+1)*s+j+1])
			}
			if j+2 < s && skip(j+2) {
				v = logAdd(v, beta[(i+1)*s+j+2])
			}
			beta[i*s+j] = v + lp[i*an+ext[j]]
		}
	}
	logp := alpha[last+s-1]
	if s > 1 {
		logp = logAdd(logp, alpha[last+s-2])
	}
	if math.IsInf(logp, -1) {
		return math.Inf(1) // no alignment fits: the gradient stays 0
	}
	// d loss / d x[i, k] = softmax(x[i])[k] - sum over the positions j
	// holding k of alpha·beta / (p · y[i, k]).
	occ := make([]float64, an)
	for i := range t {
		for k := range occ {
			occ[k] = neg
		}
		for j := range s {
			occ[ext[j]] = logAdd(occ[ext[j]], alpha[i*s+j]+beta[i*s+j])
		}
		g := grad[(i*bn+b)*an : (i*bn+b+1)*an]
		for k := range g {
			l := lp[i*an+k]
			g[k] = math.Exp(l) - math.Exp(occ[k]-l-logp)
		}
	}
	return -logp
}

// CTCLoss returns the connectionist temporal classification loss of each
// sequence of data (sequence length, batch, alphabet size), scores before
// softmax, against label (batch, label length). dataLengths and
// labelLengths (batch), when not nil, give the lengths of the sequences
// and of the labels (use_data_lengths, use_label_lengths); otherwise a
// label ends at its padding. attrs may set blank_label.
func (f F) CTCLoss(data, label, dataLengths, labelLengths Tensor, attrs ...Attr) Tensor {
	attrs = append(attrs, Attr{"use_data_lengths", dataLengths != nil}, Attr{"use_label_lengths", labelLengths != nil})
	in := []Tensor{data, label}
	if dataLengths != nil {
		in = append(in, dataLengths)
	}
	if labelLengths != nil {
		in = append(in, labelLengths)
	}
	return f.call1(opCTCLoss, attrs, in...)
}
