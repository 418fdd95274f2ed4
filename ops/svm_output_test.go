package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestSVMOutputGradient(t *testing.T) {
	F := eager.F
	for _, c := range []struct {
		linear bool
		want   []float64
	}{{false, []float64{-1, 1, 6, 0, 0, 0}}, {true, []float64{-1, 1, 1, 0, 0, 0}}} {
		x := eager.Array([]float64{0.5, -0.5, 2, 3, -1.5, -4}, 2, 3)
		label := eager.Array([]float64{0, 0}, 2)
		x.AttachGrad()
		var y *eager.NDArray
		eager.Record(func() { y = nd(F.SVMOutput(x, label, ops.Attr{"use_linear", c.linear})) })
		checkArray(t, "SVMOutput forward", y, ops.Shape{2, 3}, x.Float64s(), 0)
		g, err := eager.Grad([]*eager.NDArray{y}, []*eager.NDArray{x}, nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		checkArray(t, "SVMOutput gradient", g[0], ops.Shape{2, 3}, c.want, 1e-12)
	}
}
