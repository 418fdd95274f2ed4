package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// dropoutTrain runs Dropout in training mode and returns every output.
func dropoutTrain(t *testing.T, x *eager.NDArray, attrs map[string]string) []ops.Tensor {
	t.Helper()
	op := ops.MustLookup("Dropout")
	var outs []ops.Tensor
	var err error
	eager.TrainMode(func() { outs, err = eager.F.Apply(op, parse(t, op, attrs), x) })
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func TestDropoutMaskStatistics(t *testing.T) {
	const n = 100 * 100
	x := eager.Ones(100, 100)
	for _, p := range []float64{0.1, 0.3, 0.5, 0.8} {
		eager.Seed(7)
		outs := dropoutTrain(t, x, map[string]string{"p": ops.FormatFloat(p)})
		vals, mask := outs[0].Float64s(), outs[1].Float64s()
		dropped := 0
		for i, v := range vals {
			switch {
			case v == 0:
				dropped++
			case math.Abs(v-1/(1-p)) > 1e-5:
				t.Fatalf("p=%v: kept value %v, want 1/(1-p) = %v", p, v, 1/(1-p))
			}
			if mask[i] != v { // x is ones, so out equals the mask
				t.Fatalf("p=%v: mask[%d]=%v but out=%v", p, i, mask[i], v)
			}
		}
		frac := float64(dropped) / n
		// Four standard deviations of a binomial proportion.
		if tol := 4 * math.Sqrt(p*(1-p)/n); math.Abs(frac-p) > tol {
			t.Errorf("p=%v: dropped %.4f of the elements", p, frac)
		}
	}
	// The same seed gives the same mask.
	eager.Seed(3)
	a := dropoutTrain(t, x, nil)[0].Float64s()
	eager.Seed(3)
	b := dropoutTrain(t, x, nil)[0].Float64s()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seeded runs differ at %d", i)
		}
	}
}

func TestDropoutPredictModeIsIdentity(t *testing.T) {
	x := eager.Array([]float32{1, -2, 3, 4, 5, 6}, 2, 3)
	var out ops.Tensor
	eager.PredictMode(func() { out = eager.F.Dropout(x, 0.5) })
	checkArray(t, "predict", out, ops.Shape{2, 3}, x.Float64s(), 0)

	// mode=always drops in prediction mode too.
	eager.Seed(1)
	big := eager.Ones(1000)
	eager.PredictMode(func() { out = eager.F.Dropout(big, 0.5, ops.Attr{Name: "mode", Value: "always"}) })
	zeros := 0
	for _, v := range out.Float64s() {
		if v == 0 {
			zeros++
		}
	}
	if zeros < 400 || zeros > 600 {
		t.Errorf("mode=always in prediction: %d of 1000 dropped", zeros)
	}
}

func TestDropoutEdgeCasesAndAxes(t *testing.T) {
	x := eager.Array([]float32{1, -2, 3, 4, 5, 6}, 2, 3)
	outs := dropoutTrain(t, x, map[string]string{"p": "0"})
	checkArray(t, "p=0", outs[0], ops.Shape{2, 3}, x.Float64s(), 0)
	outs = dropoutTrain(t, x, map[string]string{"p": "1"})
	checkArray(t, "p=1", outs[0], ops.Shape{2, 3}, make([]float64, 6), 0)
	checkArray(t, "p=1 mask", outs[1], ops.Shape{2, 3}, make([]float64, 6), 0)

	// axes=(1,): one mask value per (i, k), shared along axis 1.
	eager.Seed(5)
	outs = dropoutTrain(t, eager.Ones(4, 50, 3), map[string]string{"axes": "(1,)"})
	v := outs[0].Float64s()
	for i := 0; i < 4; i++ {
		for k := 0; k < 3; k++ {
			first := v[i*150+k]
			for j := 1; j < 50; j++ {
				if v[i*150+j*3+k] != first {
					t.Fatalf("axes=(1,): mask differs along axis 1 at (%d, %d, %d)", i, j, k)
				}
			}
		}
	}

	err := panicErr(func() { eager.F.Dropout(x, 1.5) })
	wantErr(t, "p out of range", err, "Dropout", "p=1.5")
	err = panicErr(func() { eager.F.Dropout(x, 0.5, ops.Attr{Name: "axes", Value: []int{2}}) })
	wantErr(t, "bad axis", err, "Dropout", "2x3", "axes=(2,)")
}

func TestDropoutGradientUsesMask(t *testing.T) {
	eager.Seed(11)
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 8)
	x.AttachGrad()
	var y ops.Tensor
	eager.Record(func() { y = eager.F.Dropout(x, 0.5) })
	if err := nd(y).Backward(); err != nil {
		t.Fatal(err)
	}
	out, g := y.Float64s(), x.Grad().Float64s()
	for i := range out {
		want := out[i] / float64(i+1) // the mask value: 0 or 2
		if g[i] != want {
			t.Errorf("grad %v, want the mask (out/x) %v", g, want)
			break
		}
	}
}
