package accel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAxpyFloat32 checks Axpy on float32 (the vector kernel where the
// CPU has one) on lengths around its blocks of 32, bit for bit against
// the product rounded before the sum.
func TestAxpyFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{1, 31, 32, 33, 64, 95, 1 << 15, 1<<16 + 7} {
		x, y := randSlice[float32](r, n), randSlice[float32](r, n+1)
		y[n] = 7
		const alpha = float32(-0.3)
		want := make([]float32, n)
		for i := range want {
			want[i] = y[i] + float32(alpha*x[i])
		}
		Axpy(alpha, x, y)
		for i := range want {
			if y[i] != want[i] {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
		if y[n] != 7 {
			t.Fatalf("n=%d: Axpy wrote past x's length", n)
		}
	}
}

func TestVec(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, n := range []int{0, 1, 3, 4, 5, 1023, 1024, 1025, 70001} {
		x := randSlice[float64](r, n)
		y := randSlice[float64](r, n)

		var sum, dot float64
		for i := range x {
			sum += x[i]
			dot += x[i] * y[i]
		}
		if got := Sum(x); math.Abs(got-sum) > 1e-9 {
			t.Fatalf("n=%d: Sum = %v, want %v", n, got, sum)
		}
		if got := Dot(x, y); math.Abs(got-dot) > 1e-9 {
			t.Fatalf("n=%d: Dot = %v, want %v", n, got, dot)
		}

		want := make([]float64, n)
		for i := range want {
			want[i] = y[i] + 0.5*x[i]
		}
		Axpy(0.5, x, y)
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("n=%d: Axpy y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
		for i := range want {
			want[i] = -3 * x[i]
		}
		Scale(-3, x)
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("n=%d: Scale x[%d] = %v, want %v", n, i, x[i], want[i])
			}
		}
	}
}

// TestSumAccuracy: a float32 naive loop over a million 0.1s drifts far from
// 1e5; the blocked pairwise sum stays close.
func TestSumAccuracy(t *testing.T) {
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = 0.1
	}
	want := 0.1 * float64(len(x))
	if got := float64(Sum(x)); math.Abs(got-want)/want > 1e-5 {
		t.Fatalf("Sum = %v, want %v", got, want)
	}
}

func TestSumDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	x := randSlice[float32](r, 1<<18)
	first := Sum(x)
	for range 20 {
		if s := Sum(x); s != first {
			t.Fatalf("Sum changed between calls: %v then %v", first, s)
		}
	}
}

func testReluGrad[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, n := range []int{0, 5, 8, 37, 1 << 16} {
		g, y := make([]T, n), make([]T, n)
		for i := range g {
			g[i], y[i] = T(r.Float64()*2-1), T(r.Float64()*2-1)
			switch i % 11 {
			case 3:
				g[i] = T(math.Inf(1))
			case 5:
				g[i] = T(math.NaN())
			case 7:
				y[i] = 0
			case 9:
				y[i] = T(math.NaN())
			}
		}
		out := make([]T, n)
		ReluGrad(g, y, out)
		for i := range g {
			var m T
			if y[i] > 0 {
				m = 1
			}
			want := g[i] * m
			if !(out[i] == want || (out[i] != out[i] && want != want)) {
				t.Fatalf("n=%d: out[%d] = %v, want %v (g %v, y %v)", n, i, out[i], want, g[i], y[i])
			}
		}
	}
}

func TestReluGradFloat32(t *testing.T) { testReluGrad[float32](t) }
func TestReluGradFloat64(t *testing.T) { testReluGrad[float64](t) }

func testRelu[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, n := range []int{0, 5, 8, 37, 1 << 16} {
		x := make([]T, n)
		for i := range x {
			x[i] = T(r.Float64()*2 - 1)
			if i%13 == 4 {
				x[i] = T(math.NaN())
			}
		}
		y := make([]T, n)
		Relu(x, y)
		for i, v := range x {
			want := max(v, 0)
			if !(y[i] == want || (y[i] != y[i] && want != want)) {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want)
			}
		}
		Relu(x, x) // in place
		for i := range x {
			if !(x[i] == y[i] || (x[i] != x[i] && y[i] != y[i])) {
				t.Fatalf("n=%d: in place [%d] = %v, want %v", n, i, x[i], y[i])
			}
		}
	}
}

func TestReluFloat32(t *testing.T) { testRelu[float32](t) }
func TestReluFloat64(t *testing.T) { testRelu[float64](t) }

func TestClamp(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 100, vecGrain*2 + 3} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%13) - 6
		}
		if n > 3 {
			x[3] = float32(math.NaN())
		}
		y := make([]float32, n)
		Clamp(x, y, -2, 4.5)
		for i, v := range x {
			want := min(max(v, -2), 4.5)
			if v != v {
				want = v
			}
			if !(y[i] == want || y[i] != y[i] && want != want) {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want)
			}
		}
		Clamp(x, x, -2, 4.5) // in place
		for i := range x {
			if !(x[i] == y[i] || x[i] != x[i] && y[i] != y[i]) {
				t.Fatalf("n=%d in place: x[%d] = %v, want %v", n, i, x[i], y[i])
			}
		}
	}
}

func TestScaleRows(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, rows := range []int{1, 3, 16} {
		for _, k := range []int{1, 7, 8, 9, 75} {
			src := randSlice[float32](r, rows*k)
			scale := randSlice[float32](r, rows)
			dst := make([]float32, rows*k)
			ScaleRows(dst, src, scale)
			for i := range rows {
				for j := range k {
					if want := src[i*k+j] * scale[i]; dst[i*k+j] != want {
						t.Fatalf("%dx%d: [%d, %d] = %v, want %v", rows, k, i, j, dst[i*k+j], want)
					}
				}
			}
			ScaleRows(src, src, scale) // in place
			for i := range dst {
				if src[i] != dst[i] {
					t.Fatalf("%dx%d in place: [%d] = %v, want %v", rows, k, i, src[i], dst[i])
				}
			}
		}
	}
}

// TestTanhSigmoid checks Tanh and Sigmoid in float32 against math, across
// lengths that exercise the vector loop and its tail, and in place.
func TestTanhSigmoid(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 33, 1000} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%41-20) * 0.37
		}
		x[0] = 1e-6
		th, sg := make([]float32, n), make([]float32, n)
		Tanh(x, th)
		Sigmoid(x, sg)
		for i, v := range x {
			if want := math.Tanh(float64(v)); math.Abs(float64(th[i])-want) > 3e-7+1e-6*math.Abs(want) {
				t.Fatalf("n=%d: tanh(%v) = %v, want %v", n, v, th[i], want)
			}
			if want := 1 / (1 + math.Exp(-float64(v))); math.Abs(float64(sg[i])-want) > 3e-7 {
				t.Fatalf("n=%d: sigmoid(%v) = %v, want %v", n, v, sg[i], want)
			}
		}
		Tanh(x, x)
		for i := range x {
			if x[i] != th[i] {
				t.Fatalf("n=%d: in place [%d] = %v, want %v", n, i, x[i], th[i])
			}
		}
	}
	nan := []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}
	Tanh(nan, nan)
	if nan[0] == nan[0] {
		t.Errorf("tanh(NaN) = %v", nan[0])
	}
}

// TestArith checks every operation of Arith, in both types and at lengths
// around the vector width, against Go's operators bit for bit, with
// infinities, NaNs, zeros of both signs and subnormals among the values.
func TestArith(t *testing.T) {
	testArith[float32](t)
	testArith[float64](t)
}

func testArith[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	special := []T{T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()), 0, T(math.Copysign(0, -1)), T(math.SmallestNonzeroFloat32), 1e-40, -3}
	for _, op := range []ArithOp{ArithAdd, ArithSub, ArithMul, ArithDiv} {
		for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 67} {
			a, b := randSlice[T](r, n), randSlice[T](r, n)
			for i := range a {
				if i%5 == 1 {
					a[i] = special[r.IntN(len(special))]
				}
				if i%3 == 2 {
					b[i] = special[r.IntN(len(special))]
				}
			}
			got := make([]T, n)
			Arith(op, got, a, b)
			for i := range got {
				var want T
				switch op {
				case ArithAdd:
					want = a[i] + b[i]
				case ArithSub:
					want = a[i] - b[i]
				case ArithMul:
					want = a[i] * b[i]
				case ArithDiv:
					want = a[i] / b[i]
				}
				same := got[i] == want || got[i] != got[i] && want != want
				if !same || math.Signbit(float64(got[i])) != math.Signbit(float64(want)) && want == want {
					t.Fatalf("op %d, n %d, element %d: %v op %v = %v, want %v", op, n, i, a[i], b[i], got[i], want)
				}
			}
		}
	}
}

// TestFill checks Fill at lengths around the vector width, in both types.
func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 33} {
		f32 := make([]float32, n+1)
		Fill(f32[:n], -2.5)
		f64 := make([]float64, n)
		Fill(f64, 3)
		for i := range n {
			if f32[i] != -2.5 || f64[i] != 3 {
				t.Fatalf("n %d, element %d: %v and %v", n, i, f32[i], f64[i])
			}
		}
		if f32[n] != 0 {
			t.Fatalf("n %d: Fill wrote past its slice", n)
		}
	}
}

// TestSubsample checks Subsample at strides 1 to 3 against the
// definition, for rows shorter and longer than its vector kernel's
// pieces, that it writes nothing past dst and allocates nothing.
func TestSubsample(t *testing.T) {
	for _, stride := range []int{1, 2, 3} {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257, 600} {
			src := make([]float32, max(0, (n-1)*stride+1))
			for i := range src {
				src[i] = float32(i)
			}
			dst := make([]float32, n+1)
			dst[n] = -1
			Subsample(dst[:n], src, stride)
			for j := range n {
				if dst[j] != float32(j*stride) {
					t.Fatalf("stride %d, %d elements: dst[%d] = %v, want %v", stride, n, j, dst[j], j*stride)
				}
			}
			if dst[n] != -1 {
				t.Fatalf("stride %d, %d elements: wrote past dst", stride, n)
			}
			if a := testing.AllocsPerRun(10, func() { Subsample(dst[:n], src, stride) }); a != 0 {
				t.Fatalf("stride %d, %d elements: %v allocations", stride, n, a)
			}
		}
	}
}

// TestDeinterleave checks deinterleave on rows of every length up to 40,
// past the vector kernels' blocks and tails, at both parities of the
// padding, and that it writes only the columns the row fills.
func TestDeinterleave(t *testing.T) {
	for pad := range 2 {
		for n := range 41 {
			row := make([]float32, n)
			for i := range row {
				row[i] = float32(i + 1)
			}
			half := (n + pad + 2) / 2
			even, odd := make([]float32, half+1), make([]float32, half+1)
			for i := range even {
				even[i], odd[i] = -7, -7
			}
			deinterleave(even[:half], odd[:half], row, pad)
			for c := range 2 * (half + 1) {
				got, want := even, float32(-7)
				if c%2 == 1 {
					got = odd
				}
				if i := c - pad; i >= 0 && i < n {
					want = float32(i + 1)
				}
				if got[c/2] != want {
					t.Fatalf("pad %d, %d elements: column %d = %v, want %v", pad, n, c, got[c/2], want)
				}
			}
		}
	}
}
