package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// meanVar returns the mean and variance of xs.
func meanVar(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs))
}

// TestRandomDistributions checks the samplers' means and variances
// against the distributions' (within a few standard errors).
func TestRandomDistributions(t *testing.T) {
	F := eager.F
	eager.Seed(11)
	const n = 20000
	x := eager.Zeros(n)
	for _, tt := range []struct {
		name       string
		draws      ops.Tensor
		mean, vari float64
	}{
		{"gamma", F.RandomGamma(2, 3, n), 6, 18},
		{"gamma alpha < 1", F.RandomGamma(0.5, 2, n), 1, 2},
		{"exponential", F.RandomExponential(2, n), 0.5, 0.25},
		{"poisson", F.RandomPoisson(3, n), 3, 3},
		{"poisson large", F.RandomPoisson(50, n), 50, 50},
		{"negative_binomial", F.RandomNegativeBinomial(3, 0.4, n), 4.5, 4.5 / 0.4},
		{"generalized_negative_binomial", F.RandomGeneralizedNegativeBinomial(4, 0.5, n), 4, 12},
		{"uniform_like", F.RandomUniformLike(x, -1, 3), 1, 16.0 / 12},
		{"normal_like", F.RandomNormalLike(x, 2, 0.5), 2, 0.25},
		{"gamma_like", F.RandomGammaLike(x, 3, 1), 3, 3},
		{"exponential_like", F.RandomExponentialLike(x, 4), 0.25, 1.0 / 16},
		{"poisson_like", F.RandomPoissonLike(x, 20), 20, 20},
		{"negative_binomial_like", F.RandomNegativeBinomialLike(x, 2, 0.5), 2, 4},
		{"generalized_negative_binomial_like", F.RandomGeneralizedNegativeBinomialLike(x, 3, 0), 3, 3},
		{"sample_normal", F.SampleNormal(eager.Array([]float64{5}, 1), eager.Array([]float64{2}, 1), ops.Attr{"shape", ops.Tuple{n}}), 5, 4},
		{"sample_poisson", F.SamplePoisson(eager.Array([]float64{7}, 1), ops.Attr{"shape", ops.Tuple{n}}), 7, 7},
	} {
		m, v := meanVar(tt.draws.Float64s())
		if se := math.Sqrt(tt.vari / n); math.Abs(m-tt.mean) > 5*se || math.Abs(v-tt.vari) > 0.1*tt.vari {
			t.Errorf("%s: mean %v, variance %v; want %v, %v", tt.name, m, v, tt.mean, tt.vari)
		}
	}
	r := F.RandomRandInt(-2, 3, []int{1000})
	if r.DType() != ops.Int32 {
		t.Errorf("randint dtype %v", r.DType())
	}
	seen := map[float64]bool{}
	for _, v := range r.Float64s() {
		seen[v] = true
		if v < -2 || v > 2 || v != math.Trunc(v) {
			t.Fatalf("randint drew %v", v)
		}
	}
	if len(seen) != 5 {
		t.Errorf("randint drew %d distinct values, want 5", len(seen))
	}
	// _sample_: one batch of draws per parameter element, in order.
	s := F.SampleUniform(eager.Array([]float64{0, 10}, 2), eager.Array([]float64{1, 11}, 2), ops.Attr{"shape", ops.Tuple{3}})
	if !s.Shape().Equal(ops.Shape{2, 3}) {
		t.Fatalf("sample_uniform shape %v", s.Shape())
	}
	for i, v := range s.Float64s() {
		if lo := float64(10 * (i / 3)); v < lo || v >= lo+1 {
			t.Errorf("sample_uniform element %d: %v", i, v)
		}
	}
	wantErr(t, "sample_gamma of a negative alpha", panicErr(func() {
		F.SampleGamma(eager.Array([]float64{-1}, 1), eager.Array([]float64{1}, 1))
	}), "alpha", "positive")
}

// TestSampleMultinomialAndShuffle checks the draws' frequencies, the log
// probabilities' gradient, and that shuffle permutes rows.
func TestSampleMultinomialAndShuffle(t *testing.T) {
	F := eager.F
	eager.Seed(5)
	probs := eager.Array([]float64{0.2, 0.5, 0.3, 0.7, 0.1, 0.2}, 2, 3)
	const m = 20000
	out := F.SampleMultinomial(probs, ops.Attr{"shape", ops.Tuple{m}})
	if len(out) != 1 || !out[0].Shape().Equal(ops.Shape{2, m}) || out[0].DType() != ops.Int32 {
		t.Fatalf("sample_multinomial: %d outputs, %v %v", len(out), out[0].Shape(), out[0].DType())
	}
	p := probs.Float64s()
	counts := make([]float64, 6)
	for i, c := range out[0].Float64s() {
		counts[(i/m)*3+int(c)]++
	}
	for i, c := range counts {
		if f := c / m; math.Abs(f-p[i]) > 0.02 {
			t.Errorf("category %d of distribution %d: frequency %v, want %v", i%3, i/3, f, p[i])
		}
	}
	// The gradient of Σ w·log p[draw] is w/p[draw] at each draw.
	probs.AttachGrad()
	var res []ops.Tensor
	eager.Record(func() { res = F.SampleMultinomial(probs, ops.Attr{"shape", ops.Tuple{3}}, ops.Attr{"get_prob", true}) })
	draws, logp := res[0].Float64s(), res[1].Float64s()
	w := []float64{1, 2, 3, 4, 5, 6}
	grads, err := eager.Grad([]*eager.NDArray{nd(res[1])}, []*eager.NDArray{probs}, []*eager.NDArray{eager.Array(w, 2, 3)}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 6)
	for i, d := range draws {
		k := (i/3)*3 + int(d)
		want[k] += w[i] / p[k]
		if math.Abs(logp[i]-math.Log(p[k])) > 1e-12 {
			t.Errorf("log probability %d: %v, want %v", i, logp[i], math.Log(p[k]))
		}
	}
	checkArray(t, "sample_multinomial gradient", grads[0], ops.Shape{2, 3}, want, 1e-12)

	x := eager.Array([]float64{0, 1, 10, 11, 20, 21, 30, 31}, 4, 2)
	got := F.Shuffle(x).Float64s()
	seen := map[float64]bool{}
	for r := range 4 {
		if got[2*r+1] != got[2*r]+1 || seen[got[2*r]] {
			t.Fatalf("shuffle did not permute rows: %v", got)
		}
		seen[got[2*r]] = true
	}
}

// TestSampleUniqueZipfian checks that each row's classes are distinct, in
// range, and that small classes come more often.
func TestSampleUniqueZipfian(t *testing.T) {
	eager.Seed(9)
	samples, tries := eager.F.SampleUniqueZipfian(1000, 200, 10)
	if !samples.Shape().Equal(ops.Shape{200, 10}) || !tries.Shape().Equal(ops.Shape{200}) || samples.DType() != ops.Int64 {
		t.Fatalf("shapes %v, %v, dtype %v", samples.Shape(), tries.Shape(), samples.DType())
	}
	s, n := samples.Float64s(), tries.Float64s()
	small := 0
	for r := range 200 {
		seen := map[float64]bool{}
		for _, c := range s[r*10 : r*10+10] {
			if c < 0 || c >= 1000 || seen[c] {
				t.Fatalf("row %d: %v", r, s[r*10:r*10+10])
			}
			seen[c] = true
			if c < 10 {
				small++
			}
		}
		if n[r] < 10 {
			t.Errorf("row %d took %v draws for 10 classes", r, n[r])
		}
	}
	// P(c < 10) = log(11)/log(1001) ≈ 0.35 per draw; uniform draws would give 0.01.
	if f := float64(small) / 2000; f < 0.2 {
		t.Errorf("classes below 10 make %v of the samples", f)
	}
}
