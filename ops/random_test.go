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
