package ops_test

import (
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestImageToTensorAndNormalize(t *testing.T) {
	F := eager.F
	// A 1x2 image of 3 channels: pixel 0 is (0, 51, 255), pixel 1 (255, 0, 102).
	img := eager.Array([]uint8{0, 51, 255, 255, 0, 102}, 1, 2, 3)
	x := F.ImageToTensor(img)
	checkArray(t, "to_tensor", x, ops.Shape{3, 1, 2}, []float64{0, 1, 0.2, 0, 1, 0.4}, 1e-6)
	if d := nd(x).DType(); d != ops.Float32 {
		t.Errorf("to_tensor gives %v, want float32", d)
	}
	y := F.ImageNormalize(x, []float64{0.5, 0, 1}, []float64{0.5, 0.2, 2})
	checkArray(t, "normalize", y, ops.Shape{3, 1, 2}, []float64{-1, 1, 1, 0, 0, -0.3}, 1e-6)

	// Gradients: to_tensor moves the gradient back and divides by 255;
	// normalize divides by std.
	f := eager.Array([]float32{0, 51, 255, 255, 0, 102}, 1, 2, 3)
	f.AttachGrad()
	var out *eager.NDArray
	eager.Record(func() {
		out = nd(F.Sum(F.Mul(F.ImageNormalize(F.ImageToTensor(f), []float64{0}, []float64{0.5}),
			eager.Array([]float32{1, 2, 3, 4, 5, 6}, 3, 1, 2))))
	})
	g, err := eager.Grad([]*eager.NDArray{out}, []*eager.NDArray{f}, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	// Pixel p, channel c gets weight (c·2 + p + 1)·2/255.
	checkArray(t, "gradient", g[0], ops.Shape{1, 2, 3}, []float64{2. / 255, 6. / 255, 10. / 255, 4. / 255, 8. / 255, 12. / 255}, 1e-6)
}
