package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// embWeight is a 4x2 table whose row r holds (10r, 10r+1).
func embWeight() *eager.NDArray {
	return eager.Array([]float32{0, 1, 10, 11, 20, 21, 30, 31}, 4, 2)
}

func TestEmbeddingLookup(t *testing.T) {
	tests := []struct {
		name    string
		indices *eager.NDArray
		shape   ops.Shape
		want    []float64
	}{
		{"float32 indices", eager.Array([]float32{0, 3, 1, 1}, 2, 2), ops.Shape{2, 2, 2}, []float64{0, 1, 30, 31, 10, 11, 10, 11}},
		{"int32 indices", eager.Array([]int32{2, 0, 3}), ops.Shape{3, 2}, []float64{20, 21, 0, 1, 30, 31}},
		{"int64 indices", eager.Array([]int{1}), ops.Shape{1, 2}, []float64{10, 11}},
		{"fractions truncate", eager.Array([]float64{2.9, 0.5}), ops.Shape{2, 2}, []float64{20, 21, 0, 1}},
		{"out of range clips", eager.Array([]float32{-1, 7, 4}), ops.Shape{3, 2}, []float64{0, 1, 30, 31, 30, 31}},
	}
	for _, tc := range tests {
		checkArray(t, tc.name, eager.F.Embedding(tc.indices, embWeight(), 4, 2), tc.shape, tc.want, 0)
	}
	// The output takes the weight's dtype.
	w64 := eager.F.Cast(embWeight(), ops.Float64)
	if out := eager.F.Embedding(eager.Array([]int32{1}), w64, 4, 2); out.DType() != ops.Float64 {
		t.Errorf("float64 weight: output dtype %v", out.DType())
	}
}

func TestEmbeddingGradient(t *testing.T) {
	w := embWeight()
	w.AttachGrad()
	idx := eager.Array([]float32{1, 3, 1, 1, 9}, 5) // 9 clips to row 3
	var y *eager.NDArray
	eager.Record(func() { y = nd(eager.F.Sum(eager.F.Embedding(idx, w, 4, 2))) })
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "dweight", w.Grad(), ops.Shape{4, 2}, []float64{0, 0, 3, 3, 0, 0, 2, 2}, 0)
}

func TestEmbeddingFillsWeightShape(t *testing.T) {
	op := ops.MustLookup("Embedding")
	a := parse(t, op, map[string]string{"input_dim": "100", "output_dim": "8"})
	for _, w := range []ops.Shape{{}, {0, 0}, {100, 0}} {
		out, filled, err := op.InferShape(a, []ops.Shape{{0, 5}, w})
		if err != nil || !out[0].Equal(ops.Shape{0, 5, 8}) || !filled[1].Equal(ops.Shape{100, 8}) {
			t.Errorf("weight %v: out %v filled %v err %v", w, out, filled, err)
		}
	}
	dt, err := op.InferDType(a, []ops.DType{ops.Int32, ops.Unknown})
	if err != nil || dt[0] != ops.Float32 {
		t.Errorf("dtype from the attribute: %v %v", dt, err)
	}
}

func TestEmbeddingErrors(t *testing.T) {
	idx := eager.Array([]int32{0, 1})
	err := panicErr(func() { eager.F.Embedding(idx, eager.Zeros(5, 2), 4, 2) })
	wantErr(t, "weight rows", err, "Embedding", "weight 5x2", "input_dim=4", "output_dim=2")
	err = panicErr(func() { eager.F.Embedding(idx, eager.Zeros(4, 2, 1), 4, 2) })
	wantErr(t, "weight 3-D", err, "Embedding", "4x2x1", "2-D")
	err = panicErr(func() { eager.F.Embedding(idx, eager.Zeros(4, 2), 0, 2) })
	wantErr(t, "input_dim", err, "Embedding", "input_dim=0")
}
