package ops_test

import (
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
