package ops

import (
	"math"
	"testing"
)

// TestRNNActivations32 checks the float32 sigmoid and tanh of the RNN
// kernels against the math package's, over a sweep of the inputs and
// near 0, where tanh must be relatively exact.
func TestRNNActivations32(t *testing.T) {
	var xs []float32
	for x := -90.0; x <= 90; x += 0.001 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 1e-6, -1e-6, 1e-3, 0.05)
	sg, th := append([]float32(nil), xs...), append([]float32(nil), xs...)
	sigmoidRow(sg)
	tanhRow(th)
	for i, x := range xs {
		if got, want := float64(sg[i]), 1/(1+math.Exp(-float64(x))); math.Abs(got-want) > 3e-7 {
			t.Fatalf("sigmoid(%v) = %v, want %v", x, got, want)
		}
		got, want := float64(th[i]), math.Tanh(float64(x))
		if math.Abs(got-want) > 3e-7 || math.Abs(got) > 1 {
			t.Fatalf("tanh(%v) = %v, want %v", x, got, want)
		}
		if math.Abs(float64(x)) < 0.1 && math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("tanh(%v) = %v, want %v: not relatively exact near 0", x, got, want)
		}
	}
}
