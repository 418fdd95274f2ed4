package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// ctcBrute returns -log p(label | x) for one sequence x (t, a) by summing
// over every path of t classes that collapses to label (repeats merged,
// then blanks dropped).
func ctcBrute(x []float64, t, a, blank int, label []int) float64 {
	prob := make([]float64, t*a)
	for i := range t {
		sum := 0.0
		for k := range a {
			sum += math.Exp(x[i*a+k])
		}
		for k := range a {
			prob[i*a+k] = math.Exp(x[i*a+k]) / sum
		}
	}
	path := make([]int, t)
	total := 0.0
	var walk func(i int, p float64)
	walk = func(i int, p float64) {
		if i == t {
			var got []int
			for j, c := range path {
				if c != blank && (j == 0 || path[j-1] != c) {
					got = append(got, c)
				}
			}
			if len(got) != len(label) {
				return
			}
			for j := range got {
				if got[j] != label[j] {
					return
				}
			}
			total += p
			return
		}
		for k := range a {
			path[i] = k
			walk(i+1, p*prob[i*a+k])
		}
	}
	walk(0, 1)
	return -math.Log(total)
}

// TestCTCLossBruteForce checks the loss of tiny cases against the sum over
// all alignments, with each padding and length convention, and the hidden
// gradient output against central differences of the loss.
func TestCTCLossBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const tn, bn, an = 4, 3, 3
	x := make([]float64, tn*bn*an)
	for i := range x {
		x[i] = r.Float64()*2 - 1
	}
	seq := func(b int) []float64 { // sequence b as (t, a)
		s := make([]float64, 0, tn*an)
		for i := range tn {
			s = append(s, x[(i*bn+b)*an:(i*bn+b+1)*an]...)
		}
		return s
	}
	op := ops.MustLookup("CTCLoss")
	for _, c := range []struct {
		attrs          map[string]string
		label          []float64
		dataLen        []float64
		labelLen       []float64
		blank          int
		wantSeq        [][]int
		wantDataLength []int
	}{
		{attrs: map[string]string{}, label: []float64{1, 2, 0, 1, 1, 0, 2, 0, 0}, blank: 0,
			wantSeq: [][]int{{1, 2}, {1, 1}, {2}}, wantDataLength: []int{4, 4, 4}},
		{attrs: map[string]string{"blank_label": "last"}, label: []float64{0, 1, -1, 1, 1, -1, -1, -1, -1}, blank: 2,
			wantSeq: [][]int{{0, 1}, {1, 1}, {}}, wantDataLength: []int{4, 4, 4}},
		{attrs: map[string]string{"use_data_lengths": "True", "use_label_lengths": "True", "blank_label": "last"},
			label: []float64{0, 1, 0, 1, 0, 1, 1, 1, 1}, dataLen: []float64{3, 4, 2}, labelLen: []float64{1, 3, 0}, blank: 2,
			wantSeq: [][]int{{0}, {1, 0, 1}, {}}, wantDataLength: []int{3, 4, 2}},
	} {
		attrs := parse(t, op, c.attrs)
		in := []*eager.NDArray{eager.Array(x, tn, bn, an), eager.Array(c.label, bn, 3)}
		if c.dataLen != nil {
			in = append(in, eager.Array(c.dataLen, bn))
		}
		if c.labelLen != nil {
			in = append(in, eager.Array(c.labelLen, bn))
		}
		out, err := eager.Run(op, attrs, in...)
		if err != nil {
			t.Fatal(err)
		}
		loss := out[0].Float64s()
		for b := range bn {
			want := ctcBrute(seq(b), c.wantDataLength[b], an, c.blank, c.wantSeq[b])
			if !optest.Close(loss[b], want, 1e-9, 1e-12) {
				t.Errorf("%v: sequence %d: loss %v, brute force %v", c.attrs, b, loss[b], want)
			}
			// The gradient, against central differences of the brute force.
			g := out[1].Float64s()
			s := seq(b)
			for i := range tn {
				for k := range an {
					want := 0.0
					if i < c.wantDataLength[b] {
						const eps = 1e-6
						j := i*an + k
						orig := s[j]
						s[j] = orig + eps
						hi := ctcBrute(s, c.wantDataLength[b], an, c.blank, c.wantSeq[b])
						s[j] = orig - eps
						lo := ctcBrute(s, c.wantDataLength[b], an, c.blank, c.wantSeq[b])
						s[j] = orig
						want = (hi - lo) / (2 * eps)
					}
					if got := g[(i*bn+b)*an+k]; !optest.Close(got, want, 1e-5, 1e-7) {
						t.Errorf("%v: sequence %d: d/dx[%d, %d] = %v, central difference %v", c.attrs, b, i, k, got, want)
					}
				}
			}
		}
	}

	// A label that no alignment fits gives +inf; a bad class is refused.
	F := eager.F
	lossInf := F.CTCLoss(eager.Array([]float64{0, 0, 0, 0}, 2, 1, 2), eager.Array([]float64{1, 1}, 1, 2), nil, nil)
	if v := nd(lossInf).Float64s()[0]; !math.IsInf(v, 1) {
		t.Errorf("label 1 1 in 2 steps: loss %v, want +inf", v)
	}
	err := panicErr(func() {
		F.CTCLoss(eager.Array([]float64{0, 0, 0, 0}, 2, 1, 2), eager.Array([]float64{3, 0}, 1, 2), nil, nil)
	})
	wantErr(t, "class out of range", err, "label[0, 0]=3")
}
