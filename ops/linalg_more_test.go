package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// spd returns a batch of random symmetric positive-definite n×n matrices.
func spd(r *rand.Rand, batch, n int) []float64 {
	out := make([]float64, 0, batch*n*n)
	for range batch {
		m := make([]float64, n*n)
		for i := range m {
			m[i] = r.Float64()*2 - 1
		}
		for i := range n {
			for j := range n {
				s := 0.0
				for k := range n {
					s += m[i*n+k] * m[j*n+k]
				}
				if i == j {
					s += float64(n)
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// TestLinalgPotrf checks the Cholesky factors of positive-definite
// matrices (which the registry's random samples are not) and their
// gradient against central differences.
func TestLinalgPotrf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const batch, n = 2, 3
	for _, lower := range []bool{true, false} {
		a := eager.Array(spd(r, batch, n), batch, n, n)
		op := ops.MustLookup("linalg_potrf")
		attrs := parse(t, op, map[string]string{"lower": map[bool]string{true: "True", false: "False"}[lower]})
		out, err := eager.Run(op, attrs, a)
		if err != nil {
			t.Fatal(err)
		}
		l := out[0]
		// L·Lᵀ (or Uᵀ·U) gives A back, and L is triangular.
		F := eager.F
		back := F.LinalgGemm2(l, l, ops.TransposeB())
		if !lower {
			back = F.LinalgGemm2(l, l, ops.TransposeA())
		}
		if i := optest.FirstDiff(back.Float64s(), a.Float64s(), 1e-12, 1e-12); i >= 0 {
			t.Errorf("lower=%v: the factor does not give A back (element %d)", lower, i)
		}
		vals := l.Float64s()
		for b := range batch {
			for i := range n {
				for j := range n {
					if v := vals[b*n*n+i*n+j]; (lower && j > i || !lower && j < i) && v != 0 {
						t.Errorf("lower=%v: element (%d, %d) of factor %d is %v, not 0", lower, i, j, b, v)
					}
				}
			}
		}
		// The gradient of Σ w·L.
		w := make([]float64, batch*n*n)
		for i := range w {
			w[i] = r.Float64()*2 - 1
		}
		a.AttachGrad()
		var res []*eager.NDArray
		eager.Record(func() { res, err = eager.Run(op, attrs, a) })
		if err != nil {
			t.Fatal(err)
		}
		grads, err := eager.Grad(res[:1], []*eager.NDArray{a}, []*eager.NDArray{eager.Array(w, batch, n, n)}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		loss := func() float64 {
			o, _ := eager.Run(op, attrs, a)
			s := 0.0
			for i, v := range o[0].Float64s() {
				s += w[i] * v
			}
			return s
		}
		data := a.Data().([]float64)
		analytic := grads[0].Float64s()
		for i := range data {
			orig := data[i]
			data[i] = orig + 1e-6
			plus := loss()
			data[i] = orig - 1e-6
			minus := loss()
			data[i] = orig
			if num := (plus - minus) / 2e-6; !optest.Close(analytic[i], num, 1e-5, 1e-6) {
				t.Errorf("lower=%v: d/dA[%d] is %v, central difference %v", lower, i, analytic[i], num)
			}
		}
	}
	// A matrix that is not positive definite.
	_, err := eager.Run(ops.MustLookup("_linalg_potrf"), nil, eager.Array([]float64{1, 2, 2, 1}, 2, 2))
	wantErr(t, "not positive definite", err, "_linalg_potrf", "not positive definite")
}

// TestLinalgLA checks the linalg operators against MXNet's documented
// examples and against each other.
func TestLinalgLA(t *testing.T) {
	F := eager.F
	A := eager.Array([]float64{1, 2, 3, 4}, 2, 2)
	checkArray(t, "extractdiag", F.LinalgExtractdiag(A), ops.Shape{2}, []float64{1, 4}, 0)
	checkArray(t, "extractdiag offset 1", F.LinalgExtractdiag(A, ops.Attr{"offset", 1}), ops.Shape{1}, []float64{2}, 0)
	checkArray(t, "makediag offset 1", F.LinalgMakediag(eager.Array([]float64{1, 2}, 2), ops.Attr{"offset", 1}), ops.Shape{3, 3},
		[]float64{0, 1, 0, 0, 0, 2, 0, 0, 0}, 0)
	checkArray(t, "extracttrian", F.LinalgExtracttrian(A), ops.Shape{3}, []float64{1, 3, 4}, 0)
	checkArray(t, "extracttrian upper", F.LinalgExtracttrian(A, ops.Attr{"lower", false}), ops.Shape{3}, []float64{1, 2, 4}, 0)
	checkArray(t, "extracttrian offset -1", F.LinalgExtracttrian(A, ops.Attr{"offset", -1}), ops.Shape{1}, []float64{3}, 0)
	v := eager.Array([]float64{1, 2, 3}, 3)
	checkArray(t, "maketrian", F.LinalgMaketrian(v), ops.Shape{2, 2}, []float64{1, 0, 2, 3}, 0)
	checkArray(t, "maketrian upper", F.LinalgMaketrian(v, ops.Attr{"lower", false}), ops.Shape{2, 2}, []float64{1, 2, 0, 3}, 0)
	checkArray(t, "maketrian offset 1", F.LinalgMaketrian(v, ops.Attr{"offset", 1}), ops.Shape{3, 3}, []float64{0, 1, 2, 0, 0, 3, 0, 0, 0}, 0)
	checkArray(t, "maketrian offset -1", F.LinalgMaketrian(v, ops.Attr{"offset", -1}), ops.Shape{3, 3}, []float64{0, 0, 0, 1, 0, 0, 2, 3, 0}, 0)

	B := eager.Array([]float64{1, 4, 2, 3, 2, 3, 1, 4}, 2, 2, 2)
	checkArray(t, "det", F.LinalgDet(B), ops.Shape{2}, []float64{-5, 5}, 1e-12)
	checkArray(t, "det single", F.LinalgDet(A), ops.Shape{1}, []float64{-2}, 1e-12)
	sign, logAbs := F.LinalgSlogdet(B)
	checkArray(t, "slogdet sign", sign, ops.Shape{2}, []float64{-1, 1}, 0)
	checkArray(t, "slogdet logabsdet", logAbs, ops.Shape{2}, []float64{math.Log(5), math.Log(5)}, 1e-12)
	checkArray(t, "inverse", F.LinalgInverse(A), ops.Shape{2, 2}, []float64{-2, 1, 1.5, -0.5}, 1e-12)
	checkArray(t, "sumlogdiag", F.LinalgSumlogdiag(A), ops.Shape{1}, []float64{math.Log(4)}, 1e-12)
	checkArray(t, "syrk", F.LinalgSyrk(A), ops.Shape{2, 2}, []float64{5, 11, 11, 25}, 0)
	checkArray(t, "syrk transpose", F.LinalgSyrk(A, ops.Attr{"transpose", true}, ops.Attr{"alpha", 2}), ops.Shape{2, 2}, []float64{20, 28, 28, 40}, 0)
	checkArray(t, "gemm", F.LinalgGemm(A, A, A, ops.Attr{"beta", 2}), ops.Shape{2, 2}, []float64{9, 14, 21, 30}, 0)

	// trsm undoes trmm, for every placement of the triangle; potri of
	// potrf(S) is S⁻¹.
	L := eager.Array([]float64{2, 9, 9, 1, 3, 9, 4, 5, 6}, 3, 3) // the 9s are outside the lower triangle
	X := eager.Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	for _, tr := range []bool{false, true} {
		for _, lower := range []bool{true, false} {
			T := L
			if !lower {
				T = linalgTranspose(L)
			}
			attrs := []ops.Attr{{"transpose", tr}, {"lower", lower}, {"alpha", 2.0}}
			Y := F.LinalgTrmm(T, X, attrs...)
			back := F.LinalgTrsm(T, Y, append(attrs[:2:2], ops.Attr{"alpha", 0.5})...)
			checkArray(t, "trsm(trmm) left", back, ops.Shape{3, 2}, X.Float64s(), 1e-12)
			Xr := linalgTranspose(X)
			Yr := F.LinalgTrmm(T, Xr, append(attrs, ops.Attr{"rightside", true})...)
			backR := F.LinalgTrsm(T, Yr, append(attrs[:2:2], ops.Attr{"alpha", 0.5}, ops.Attr{"rightside", true})...)
			checkArray(t, "trsm(trmm) right", backR, ops.Shape{2, 3}, Xr.Float64s(), 1e-12)
		}
	}
	S := eager.Array([]float64{4, 2, 2, 3}, 2, 2)
	for _, lower := range []bool{true, false} {
		fac := F.LinalgPotrf(S, ops.Attr{"lower", lower})
		checkArray(t, "potri(potrf)", F.LinalgPotri(fac, ops.Attr{"lower", lower}), ops.Shape{2, 2}, F.LinalgInverse(S).Float64s(), 1e-12)
	}
}

func linalgTranspose(x *eager.NDArray) *eager.NDArray { return nd(eager.F.Transpose(x, 1, 0)) }

// TestLinalgGelqf checks the LQ factorization against MXNet's example.
func TestLinalgGelqf(t *testing.T) {
	q, l := eager.F.LinalgGelqf(eager.Array([]float64{1, 2, 3, 4, 5, 6}, 2, 3))
	checkArray(t, "gelqf Q", q, ops.Shape{2, 3}, []float64{-0.26726124, -0.53452248, -0.80178373, 0.87287156, 0.21821789, -0.43643578}, 1e-7)
	checkArray(t, "gelqf L", l, ops.Shape{2, 2}, []float64{-3.74165739, 0, -8.55235974, 1.96396101}, 1e-7)
}
