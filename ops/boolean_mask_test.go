package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/ops"
)

func TestBooleanMask(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 4, 3)
	mask := eager.Array([]float32{1, 0, 1, 1})
	checkArray(t, "rows", F.BooleanMask(x, mask, 0), ops.Shape{3, 3}, []float64{0, 1, 2, 6, 7, 8, 9, 10, 11}, 0)
	checkArray(t, "columns", F.BooleanMask(x, eager.Array([]int32{0, 2, 0}), -1), ops.Shape{4, 1}, []float64{1, 4, 7, 10}, 0)

	// The gradient reaches the selected rows.
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() { y = nd(F.Sum(F.BooleanMask(x, mask, 0))) })
	g, err := eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{x}, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	checkArray(t, "gradient", g[0], ops.Shape{4, 3}, []float64{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1}, 0)

	wantErr(t, "length", panicErr(func() { F.BooleanMask(x, eager.Array([]float32{1, 0}), 0) }), "_contrib_boolean_mask", "index 2", "axis 0")
	wantErr(t, "empty", panicErr(func() { F.BooleanMask(x, eager.Array([]float32{0, 0, 0, 0}), 0) }), "_contrib_boolean_mask", "none")
	// Traced, it says it runs only eagerly.
	tr := graph.NewTracer()
	wantErr(t, "traced", panicErr(func() {
		tr.F().BooleanMask(graph.Var("x", ops.Shape{4, 3}, ops.Float32), graph.Var("m", ops.Shape{4}, ops.Float32), 0)
	}), "_contrib_boolean_mask", "runs only eagerly")
}
