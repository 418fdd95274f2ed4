package ops

import (
	"math"
	"testing"
)

// TestRNNActivations32 checks the float32 exp, sigmoid and tanh of the
// RNN kernels against the math package's.
func TestRNNActivations32(t *testing.T) {
	for x := -90.0; x <= 90; x += 0.001 {
		x32 := float32(x)
		want := math.Exp(float64(x32))
		if got := float64(exp32(x32)); x32 > -80 && x32 < 88 && math.Abs(got-want) > 3e-7*want {
			t.Fatalf("exp32(%v) = %v, want %v", x32, got, want)
		}
		if got, want := float64(sigmoid32(x32)), 1/(1+math.Exp(-float64(x32))); math.Abs(got-want) > 3e-7 {
			t.Fatalf("sigmoid32(%v) = %v, want %v", x32, got, want)
		}
		if got, want := float64(tanh32(x32)), math.Tanh(float64(x32)); math.Abs(got-want) > 3e-7 {
			t.Fatalf("tanh32(%v) = %v, want %v", x32, got, want)
		}
	}
}

func BenchmarkExp32(b *testing.B) {
	s := float32(0)
	for i := 0; i < b.N; i++ {
		s += exp32(float32(i%1000)*0.01 - 5)
	}
	_ = s
}

func BenchmarkMathExp(b *testing.B) {
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += math.Exp(float64(i%1000)*0.01 - 5)
	}
	_ = s
}
