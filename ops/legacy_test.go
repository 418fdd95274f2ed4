package ops_test

import (
	"math/rand/v2"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// TestLegacyLayersMatch checks the older spellings against the layers they
// are versions of.
func TestLegacyLayersMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	randArray := func(shape ...int) *eager.NDArray {
		xs := make([]float64, ops.Shape(shape).Size())
		for i := range xs {
			xs[i] = r.Float64()*2 - 1
		}
		return eager.Array(xs, shape...)
	}
	run := func(name string, attrs map[string]string, in ...*eager.NDArray) []float64 {
		t.Helper()
		op := ops.MustLookup(name)
		out, err := eager.Run(op, parse(t, op, attrs), in...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out[0].Float64s()
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		if i := optest.FirstDiff(got, want, 1e-12, 1e-12); i >= 0 {
			t.Errorf("%s: element %d: %v, want %v", what, i, got[i], want[i])
		}
	}

	x := randArray(2, 3, 5, 5)
	w, b := randArray(4, 3, 3, 3), randArray(4)
	conv := map[string]string{"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)", "stride": "(2, 2)"}
	same("Convolution_v1", run("Convolution_v1", conv, x, w, b), run("Convolution", conv, x, w, b))

	// Pooling_v1's avg divides by the kernel's area, padding included.
	avg := map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pad": "(1, 1)", "pool_type": "avg"}
	same("Pooling_v1 avg", run("Pooling_v1", avg, x), run("Pooling", avg, x))
	// In the full convention a window past the padded border still
	// divides by the whole area: the sum over 9.
	full := map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pooling_convention": "full"}
	y := randArray(1, 1, 6, 6)
	sum := run("Pooling", map[string]string{"kernel": "(3, 3)", "stride": "(2, 2)", "pooling_convention": "full", "pool_type": "sum"}, y)
	for i := range sum {
		sum[i] /= 9
	}
	full["pool_type"] = "avg"
	same("Pooling_v1 avg full", run("Pooling_v1", full, y), sum)
	op := ops.MustLookup("Pooling_v1")
	_, err := op.ParseAttrs(map[string]string{"kernel": "(3, 3)", "pad": "(1, 1)"})
	wantErr(t, "Pooling_v1 max with pad", err, "zeros")

	// The BatchNorm versions, in inference mode (the moving statistics).
	gamma, beta := randArray(3), randArray(3)
	mean, variance := randArray(3), eager.Array([]float64{0.5, 1, 2}, 3)
	bnAttrs := map[string]string{"fix_gamma": "False"}
	want := run("BatchNorm", bnAttrs, x, gamma, beta, mean, variance)
	same("BatchNorm_v1", run("BatchNorm_v1", bnAttrs, x, gamma, beta, mean, variance), want)
	same("_contrib_SyncBatchNorm", run("_contrib_SyncBatchNorm", map[string]string{"fix_gamma": "False", "key": "k", "ndev": "4"}, x, gamma, beta, mean, variance), want)
	relu := append([]float64(nil), want...)
	for i, v := range relu {
		relu[i] = max(v, 0)
	}
	same("_contrib_BatchNormWithReLU", run("_contrib_BatchNormWithReLU", bnAttrs, x, gamma, beta, mean, variance), relu)
}
