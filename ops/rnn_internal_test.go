package ops

import (
	"math"
	"testing"
)

// TestRNNActivations32 checks the float32 sigmoid and tanh of the RNN
// kernels against the math package's.
func TestRNNActivations32(t *testing.T) {
	for x := -90.0; x <= 90; x += 0.001 {
		x32 := float32(x)
		if got, want := float64(sigmoid32(x32)), 1/(1+math.Exp(-float64(x32))); math.Abs(got-want) > 3e-7 {
			t.Fatalf("sigmoid32(%v) = %v, want %v", x32, got, want)
		}
		if got, want := float64(tanh32(x32)), math.Tanh(float64(x32)); math.Abs(got-want) > 3e-7 || math.Abs(got) > 1 {
			t.Fatalf("tanh32(%v) = %v, want %v", x32, got, want)
		}
	}
	for _, x := range []float32{1e-6, -1e-6, 1e-3, 0.05} {
		if got, want := float64(tanh32(x)), math.Tanh(float64(x)); math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("tanh32(%v) = %v, want %v: not relatively exact near 0", x, got, want)
		}
	}
}
