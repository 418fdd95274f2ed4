package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestLRNValues(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{1, 2, 3}).Reshape(1, 3, 1, 1)
	y := F.LRN(x, 3, ops.Attr{"alpha", 3}, ops.Attr{"beta", 1}, ops.Attr{"knorm", 1})
	checkArray(t, "LRN", y, ops.Shape{1, 3, 1, 1}, []float64{1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-12)
	expectPanic(t, "even nsize", func() { F.LRN(x, 2) }, "nsize=2")
}
