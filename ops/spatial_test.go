package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// TestSpatialTransformerIdentity checks that the identity transform and a
// zero flow give the data back, a shift by one pixel moves it (zeros
// coming in), and SpatialTransformer is BilinearSampler of
// GridGenerator's grid.
func TestSpatialTransformerIdentity(t *testing.T) {
	F := eager.F
	xs := make([]float64, 2*3*4*5)
	for i := range xs {
		xs[i] = math.Sin(float64(i))
	}
	x := eager.Array(xs, 2, 3, 4, 5)
	identity := eager.Array([]float64{1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0}, 2, 6)
	checkArray(t, "identity", F.SpatialTransformer(x, identity, 4, 5), ops.Shape{2, 3, 4, 5}, xs, 1e-12)
	flow := F.ZerosLike(eager.Array(make([]float64, 2*2*4*5), 2, 2, 4, 5))
	checkArray(t, "zero flow", F.BilinearSampler(x, F.GridGenerator(flow, "warp")), ops.Shape{2, 3, 4, 5}, xs, 1e-12)

	// x' = x + 0.5 in normalised units over 5 columns is one pixel: the
	// output column j reads input column j+1, the last one 0.
	shift := eager.Array([]float64{1, 0, 0.5, 0, 1, 0, 1, 0, 0.5, 0, 1, 0}, 2, 6)
	got := nd(F.SpatialTransformer(x, shift, 4, 5)).Float64s()
	for i, v := range got {
		j := i % 5
		want := 0.0
		if j < 4 {
			want = xs[i+1]
		}
		if math.Abs(v-want) > 1e-12 {
			t.Fatalf("shifted: element %d is %v, want %v", i, v, want)
		}
	}

	loc := eager.Array([]float64{0.8, 0.1, 0.05, -0.2, 0.9, 0.1, 1.1, 0, -0.1, 0.3, 0.7, 0}, 2, 6)
	st := nd(F.SpatialTransformer(x, loc, 3, 3)).Float64s()
	bs := nd(F.BilinearSampler(x, F.GridGenerator(loc, "affine", ops.Attr{"target_shape", []int{3, 3}}))).Float64s()
	if i := optest.FirstDiff(st, bs, 1e-12, 1e-12); i >= 0 {
		t.Errorf("SpatialTransformer differs from BilinearSampler of GridGenerator at %d", i)
	}
}
