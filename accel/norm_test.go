package accel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNormStatistics checks ShiftedSums, ShiftScale,
// GradStatistics and GradCombine on float32 rows of every length around
// the vector kernels' blocks of 32 and 16, against sums and shifts taken
// one element at a time.
func TestNormStatistics(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for n := range 100 {
		for _, size := range []int{n, 1000 + n} {
			x := make([]float32, size)
			for i := range x {
				x[i] = float32(r.NormFloat64()*3 + 10) // a mean far from zero
			}
			k := 9.5 // near the mean
			s1, s2 := 0.0, 0.0
			for _, v := range x {
				d := float64(v) - k
				s1, s2 = s1+d, s2+d*d
			}
			if got1, got2 := ShiftedSums(x, k); math.Abs(got1-s1) > 1e-9*(1+math.Abs(s1)) || math.Abs(got2-s2) > 1e-9*(1+s2) {
				t.Fatalf("%d elements: ShiftedSums = %v, %v, want %v, %v", size, got1, got2, s1, s2)
			}
			mu := k + s1/float64(max(1, size))
			y := make([]float32, size+1)
			y[size] = -7
			const m, s, b = 10.5, 0.25, -1
			ShiftScale(y[:size], x, m, s, b)
			for i, v := range x {
				if want := (v-m)*s + b; math.Abs(float64(y[i]-want)) > 1e-6 {
					t.Fatalf("%d elements: ShiftScale y[%d] = %v, want %v", size, i, y[i], want)
				}
			}
			if y[size] != -7 {
				t.Fatalf("%d elements: ShiftScale wrote past its length", size)
			}
			g := make([]float32, size)
			sg, sgx := 0.0, 0.0
			for i := range g {
				g[i] = float32(r.NormFloat64())
				sg += float64(g[i])
				sgx += float64(g[i]) * (float64(x[i]) - mu)
			}
			if got, gotx := GradStatistics(g, x, mu); math.Abs(got-sg) > 1e-9*(1+math.Abs(sg)) || math.Abs(gotx-sgx) > 1e-9*(1+math.Abs(sgx)) {
				t.Fatalf("%d elements: GradStatistics = %v, %v, want %v, %v", size, got, gotx, sg, sgx)
			}
			const a, bb, c = 0.5, -0.125, 2
			GradCombine(y[:size], g, x, a, bb, m, c)
			for i := range g {
				if want := a*g[i] + bb*(x[i]-m) + c; math.Abs(float64(y[i]-want)) > 1e-5 {
					t.Fatalf("%d elements: GradCombine dx[%d] = %v, want %v", size, i, y[i], want)
				}
			}
			if y[size] != -7 {
				t.Fatalf("%d elements: GradCombine wrote past its length", size)
			}
		}
	}
}

// TestBatchNormFold checks the folded scale and shift against the
// definition in float64, with and without gamma and the layer's bias, on
// lengths around the vector width.
func TestBatchNormFold(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, n := range []int{1, 15, 16, 17, 33, 960} {
		gamma, beta, mean, bias := randSlice[float32](r, n), randSlice[float32](r, n), randSlice[float32](r, n), randSlice[float32](r, n)
		variance := make([]float32, n)
		for i := range variance {
			variance[i] = float32(r.Float64() * 3)
		}
		for _, g := range [][]float32{gamma, nil} {
			for _, b := range [][]float32{bias, nil} {
				scale, shift := make([]float32, n), make([]float32, n)
				BatchNormFold(scale, shift, g, beta, mean, variance, b, 1e-5)
				for i := range n {
					s := 1 / math.Sqrt(float64(variance[i])+1e-5)
					if g != nil {
						s *= float64(g[i])
					}
					sh := float64(beta[i]) - float64(mean[i])*s
					if b != nil {
						sh += float64(b[i]) * s
					}
					if math.Abs(float64(scale[i])-s) > 1e-6*(1+math.Abs(s)) || math.Abs(float64(shift[i])-sh) > 1e-5*(1+math.Abs(sh)) {
						t.Fatalf("n=%d gamma %v bias %v: [%d] = %v, %v, want %v, %v", n, g != nil, b != nil, i, scale[i], shift[i], s, sh)
					}
				}
			}
		}
	}
}
