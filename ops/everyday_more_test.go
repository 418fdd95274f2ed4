package ops_test

import (
	"math"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Values of MXNet's older and lesser-known everyday operators, checked
// against MXNet's documented examples and known values.
func TestEverydayMoreValues(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{0, 1, 2, 3, 4, 5}, 2, 3)

	checkArray(t, "gamma", F.Gamma(eager.Array([]float64{0.5, 1, 4}, 3)), ops.Shape{3},
		[]float64{math.Sqrt(math.Pi), 1, 6}, 1e-12)
	checkArray(t, "gammaln", F.Gammaln(eager.Array([]float64{0.5, 1, 4}, 3)), ops.Shape{3},
		[]float64{math.Log(math.Sqrt(math.Pi)), 0, math.Log(6)}, 1e-12)
	checkArray(t, "erfinv", F.Erfinv(eager.Array([]float64{0, math.Erf(0.5), -math.Erf(1.2)}, 3)), ops.Shape{3},
		[]float64{0, 0.5, -1.2}, 1e-12)
	// ψ(1) = -γ, ψ(0.5) = -γ - 2 ln 2, ψ(-0.5) = ψ(0.5) + 2.
	const euler = 0.5772156649015329
	g := eager.Array([]float64{1, 1, 1}, 3)
	checkArray(t, "_backward_gammaln", nd(F.Call("_backward_gammaln", []ops.Tensor{g, eager.Array([]float64{1, 0.5, -0.5}, 3)})[0]),
		ops.Shape{3}, []float64{-euler, -euler - 2*math.Ln2, -euler - 2*math.Ln2 + 2}, 1e-10)

	checkArray(t, "argmax_channel", F.ArgmaxChannel(x), ops.Shape{2}, []float64{2, 2}, 0)
	checkArray(t, "batch_take", F.BatchTake(eager.Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2), eager.Array([]float64{0, 1, 7}, 3)),
		ops.Shape{3}, []float64{1, 4, 6}, 0)
	checkArray(t, "choose_element_0index", nd(F.Call("choose_element_0index", []ops.Tensor{x, eager.Array([]float64{2, 0}, 2)})[0]),
		ops.Shape{2}, []float64{2, 3}, 0)
	checkArray(t, "_square_sum", F.SquareSum(x, ops.Axis(1)), ops.Shape{2}, []float64{5, 50}, 0)
	checkArray(t, "_contrib_div_sqrt_dim", F.DivSqrtDim(eager.Array([]float64{2, 4, 6, 8}, 1, 4)), ops.Shape{1, 4},
		[]float64{1, 2, 3, 4}, 1e-15)
	checkArray(t, "_linspace", F.Linspace(0, 1, 5), ops.Shape{5}, []float64{0, 0.25, 0.5, 0.75, 1}, 0)
	checkArray(t, "_linspace endpoint=False", F.Linspace(0, 1, 4, ops.Attr{"endpoint", false}), ops.Shape{4}, []float64{0, 0.25, 0.5, 0.75}, 0)
	checkArray(t, "_contrib_arange_like", F.ArangeLike(x), ops.Shape{2, 3}, []float64{0, 1, 2, 3, 4, 5}, 0)
	checkArray(t, "_contrib_arange_like axis", F.ArangeLike(x, ops.Attr{"axis", -1}, ops.Attr{"repeat", 2}, ops.Attr{"start", 1}),
		ops.Shape{3}, []float64{1, 1, 2}, 0)

	// SoftmaxActivation: instance mode over all dims after the first,
	// channel mode along axis 1.
	y := eager.Array([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2)
	inst := F.SoftmaxActivation(y).Float64s()
	den := 0.0
	for i := range 4 {
		den += math.Exp(float64(i))
	}
	if math.Abs(inst[1]-math.E/den) > 1e-12 || math.Abs(inst[4]-1/den) > 1e-12 {
		t.Errorf("SoftmaxActivation instance: %v", inst)
	}
	ch := F.SoftmaxActivation(y, ops.Attr{"mode", "channel"}).Float64s()
	if want := 1 / (1 + math.Exp(2)); math.Abs(ch[0]-want) > 1e-12 || math.Abs(ch[2]-(1-want)) > 1e-12 {
		t.Errorf("SoftmaxActivation channel: %v", ch)
	}
	wantErr(t, "SoftmaxActivation channel 2-D", panicErr(func() { F.SoftmaxActivation(x, ops.Attr{"mode", "channel"}) }), "at least 3 dims")

	// amp_cast converts floats only; amp_multicast takes float32 when any
	// input is float32, and leaves float64 and integer inputs alone.
	i32 := F.Cast(x, ops.Int32)
	if d := F.AMPCast(i32, ops.Float64).DType(); d != ops.Int32 {
		t.Errorf("amp_cast of int32: %v", d)
	}
	if d := F.AMPCast(x, ops.Float32).DType(); d != ops.Float32 {
		t.Errorf("amp_cast of float64 to float32: %v", d)
	}
	outs := F.AMPMultiCast([]ops.Tensor{x, F.Cast(x, ops.Float32), i32})
	for i, want := range []ops.DType{ops.Float64, ops.Float32, ops.Int32} {
		if outs[i].DType() != want {
			t.Errorf("amp_multicast output %d: %v, want %v", i, outs[i].DType(), want)
		}
	}
}

// TestROIAlign pools a plane that is linear in its coordinates, where
// bilinear samples are exact: each bin gives the value at the mean of its
// sample points.
func TestROIAlign(t *testing.T) {
	F := eager.F
	xs := make([]float64, 16)
	for i := range xs {
		xs[i] = float64(i) // x[r][c] = 4r + c
	}
	x := eager.Array(xs, 1, 1, 4, 4)
	rois := eager.Array([]float64{0, 0, 0, 3, 3, -1, 0, 0, 3, 3}, 2, 5)
	checkArray(t, "ROIAlign 1x1", F.ROIAlign(x, rois, 1, 1, 1), ops.Shape{2, 1, 1, 1}, []float64{7.5, 0}, 1e-12)
	checkArray(t, "ROIAlign aligned", F.ROIAlign(x, rois, 1, 1, 1, ops.Attr{"aligned", true}), ops.Shape{2, 1, 1, 1}, []float64{5, 0}, 1e-12)
	// 2×2 bins of 1.5 pixels, 2 samples each way: bin (0, 0) averages
	// rows and columns 0.375 and 1.125.
	checkArray(t, "ROIAlign 2x2", F.ROIAlign(x, rois, 2, 2, 1), ops.Shape{2, 1, 2, 2},
		[]float64{3.75, 5.25, 9.75, 11.25, 0, 0, 0, 0}, 1e-12)
	// Position-sensitive: bin (i, j) of output channel 0 reads input
	// channel 2i + j, here the plane plus 100·channel.
	ps := make([]float64, 0, 64)
	for ch := range 4 {
		for _, v := range xs {
			ps = append(ps, v+100*float64(ch))
		}
	}
	checkArray(t, "ROIAlign position_sensitive", F.ROIAlign(eager.Array(ps, 1, 4, 4, 4), rois, 2, 2, 1, ops.Attr{"position_sensitive", true}),
		ops.Shape{2, 1, 2, 2}, []float64{3.75, 105.25, 209.75, 311.25, 0, 0, 0, 0}, 1e-12)
	wantErr(t, "ROIAlign aligned empty region", panicErr(func() {
		F.ROIAlign(x, eager.Array([]float64{0, 2, 2, 2, 3}, 1, 5), 1, 1, 1, ops.Attr{"aligned", true})
	}), "positive size")
}

// TestBoxOps checks box_iou and box_nms against MXNet's documented
// examples, box_nms's gradient included.
func TestBoxOps(t *testing.T) {
	F := eager.F
	x := eager.Array([]float64{0.5, 0.5, 1, 1, 0, 0, 0.5, 0.5}, 2, 4)
	y := eager.Array([]float64{0.25, 0.25, 0.75, 0.75}, 1, 4)
	checkArray(t, "box_iou", F.BoxIoU(x, y), ops.Shape{2, 1}, []float64{1.0 / 7, 1.0 / 7}, 1e-12)
	// The same boxes in center encoding.
	xc := eager.Array([]float64{0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0.5, 0.5}, 2, 4)
	yc := eager.Array([]float64{0.5, 0.5, 0.5, 0.5}, 1, 4)
	checkArray(t, "box_iou center", F.BoxIoU(xc, yc, ops.Attr{"format", "center"}), ops.Shape{2, 1}, []float64{1.0 / 7, 1.0 / 7}, 1e-12)

	boxes := eager.Array([]float64{0, 0.5, 0.1, 0.1, 0.2, 0.2, 1, 0.4, 0.1, 0.1, 0.2, 0.2,
		0, 0.3, 0.1, 0.1, 0.14, 0.14, 2, 0.6, 0.5, 0.5, 0.7, 0.8}, 4, 6)
	attrs := []ops.Attr{{"overlap_thresh", 0.1}, {"coord_start", 2}, {"score_index", 1}, {"id_index", 0}, {"force_suppress", true}}
	boxes.AttachGrad()
	var out *eager.NDArray
	eager.Record(func() { out = nd(F.Call("_contrib_box_non_maximum_suppression", []ops.Tensor{boxes}, attrs...)[0]) })
	checkArray(t, "box_nms", out, ops.Shape{4, 6}, []float64{2, 0.6, 0.5, 0.5, 0.7, 0.8, 0, 0.5, 0.1, 0.1, 0.2, 0.2,
		-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, 1e-7)
	og := make([]float64, 24)
	for i := range og {
		og[i] = 0.1 * float64(i/6+1)
	}
	grads, err := eager.Grad([]*eager.NDArray{out}, []*eager.NDArray{boxes}, []*eager.NDArray{eager.Array(og, 4, 6)}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	checkArray(t, "box_nms gradient", grads[0], ops.Shape{4, 6}, []float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1e-12)
	// Without force_suppress, boxes of other classes survive.
	kept := F.BoxNMS(boxes, attrs[:4]...).Float64s()
	if kept[6*2] != 1 || kept[6*3] != -1 {
		t.Errorf("box_nms by class: %v", kept)
	}
	// corner to center on output.
	conv := F.BoxNMS(boxes, append(attrs, ops.Attr{"out_format", "center"})...).Float64s()
	checkArray(t, "box_nms out_format", eager.Array(conv[:6], 6), ops.Shape{6}, []float64{2, 0.6, 0.6, 0.65, 0.2, 0.3}, 1e-12)
}

// TestUpSamplingBilinear checks MXNet's documented example: ones upsampled
// by ones.
func TestUpSamplingBilinear(t *testing.T) {
	x := eager.Array([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 1, 3, 3)
	w := make([]float64, 16)
	for i := range w {
		w[i] = 1
	}
	out := eager.F.Call("UpSampling", []ops.Tensor{x, eager.Array(w, 1, 1, 4, 4)},
		ops.Attr{"scale", 2}, ops.Attr{"sample_type", "bilinear"}, ops.Attr{"num_filter", 1}, ops.Attr{"num_args", 2})[0]
	row := func(a, b float64) []float64 { return []float64{a, b, b, b, b, a} }
	var want []float64
	for _, r := range [][]float64{row(1, 2), row(2, 4), row(2, 4), row(2, 4), row(2, 4), row(1, 2)} {
		want = append(want, r...)
	}
	checkArray(t, "UpSampling bilinear", nd(out), ops.Shape{1, 1, 6, 6}, want, 0)
	up := ops.MustLookup("UpSampling")
	names := up.InputNames(parse(t, up, map[string]string{"scale": "2", "sample_type": "bilinear", "num_filter": "1", "num_args": "2"}))
	if len(names) != 2 || names[0] != "data" || names[1] != "weight" {
		t.Errorf("bilinear UpSampling's inputs: %v", names)
	}
}
