package ops_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

func TestIndexOpsKnownAnswers(t *testing.T) {
	x32 := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	idx := eager.Array([]float32{0, 1, 1, 2}, 2, 2)
	cond := eager.Array([]float32{0, 1, -1, 0}, 2, 2)
	xa := eager.Array([]float32{1, 2, 3, 4}, 2, 2)
	ya := eager.Array([]float32{5, 6, 7, 8}, 2, 2)
	cases := []struct {
		name  string
		got   func() ops.Tensor
		shape ops.Shape
		want  []float64
	}{
		{"take 1-D", func() ops.Tensor { return eager.F.Take(eager.Array([]float32{4, 5, 6}), idx) }, ops.Shape{2, 2}, []float64{4, 5, 5, 6}},
		{"take rows", func() ops.Tensor { return eager.F.Take(x32, idx) }, ops.Shape{2, 2, 2}, []float64{1, 2, 3, 4, 3, 4, 5, 6}},
		{"take axis 1 clip", func() ops.Tensor { return eager.F.Take(x32, idx, ops.Axis(1)) }, ops.Shape{3, 2, 2},
			[]float64{1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 6}},
		{"take axis 1 wrap", func() ops.Tensor { return eager.F.Take(x32, idx, ops.Axis(1), ops.Attr{Name: "mode", Value: "wrap"}) }, ops.Shape{3, 2, 2},
			[]float64{1, 2, 2, 1, 3, 4, 4, 3, 5, 6, 6, 5}},
		{"take negative clipped", func() ops.Tensor { return eager.F.Take(x32, eager.Array([]int32{-4, 9})) }, ops.Shape{2, 2}, []float64{1, 2, 5, 6}},
		{"take negative wrapped", func() ops.Tensor {
			return eager.F.Take(x32, eager.Array([]int64{-1, 4}), ops.Attr{Name: "mode", Value: "wrap"})
		}, ops.Shape{2, 2}, []float64{5, 6, 3, 4}},
		{"take int64 data", func() ops.Tensor { return eager.F.Take(eager.Array([]int{7, 8, 9}), eager.Array([]float32{2, 0})) }, ops.Shape{2}, []float64{9, 7}},

		{"pick axis 0", func() ops.Tensor { return eager.F.Pick(x32, eager.Array([]float32{0, 1}), ops.Axis(0)) }, ops.Shape{2}, []float64{1, 4}},
		{"pick axis 1", func() ops.Tensor { return eager.F.Pick(x32, eager.Array([]float32{0, 1, 0}), ops.Axis(1)) }, ops.Shape{3}, []float64{1, 4, 5}},
		{"pick default axis, keepdims", func() ops.Tensor {
			return eager.F.Pick(x32, eager.Array([]float32{0, 1, 0}, 3, 1), ops.Keepdims())
		}, ops.Shape{3, 1}, []float64{1, 4, 5}},
		{"pick wrap", func() ops.Tensor {
			return eager.F.Pick(x32, eager.Array([]float32{2, -1, -2}), ops.Attr{Name: "mode", Value: "wrap"})
		}, ops.Shape{3}, []float64{1, 4, 5}},
		{"pick clip", func() ops.Tensor { return eager.F.Pick(x32, eager.Array([]float32{5, -3, 1})) }, ops.Shape{3}, []float64{2, 3, 6}},

		{"one_hot", func() ops.Tensor { return eager.F.OneHot(eager.Array([]float32{1, 0, 2, 0}), 3) }, ops.Shape{4, 3},
			[]float64{0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0}},
		{"one_hot values, dtype", func() ops.Tensor {
			return eager.F.OneHot(eager.Array([]float32{1, 0, 2, 0}), 3, ops.Attr{Name: "on_value", Value: 8.0},
				ops.Attr{Name: "off_value", Value: 1.0}, ops.WithDType(ops.Int32))
		}, ops.Shape{4, 3}, []float64{1, 8, 1, 8, 1, 1, 1, 1, 8, 8, 1, 1}},
		{"one_hot 2-D, out of range", func() ops.Tensor { return eager.F.OneHot(eager.Array([]int32{1, 5, -1, 2}, 2, 2), 3) }, ops.Shape{2, 2, 3},
			[]float64{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},

		{"where", func() ops.Tensor { return eager.F.Where(cond, xa, ya) }, ops.Shape{2, 2}, []float64{5, 2, 3, 8}},
		{"where by rows", func() ops.Tensor { return eager.F.Where(eager.Array([]float32{0, 1}), xa, ya) }, ops.Shape{2, 2}, []float64{5, 6, 3, 4}},
		{"where bool condition, int32 values", func() ops.Tensor {
			return eager.F.Where(eager.Array([]bool{true, false, false}), eager.Array([]int32{1, 2, 3}), eager.Array([]int32{-1, -2, -3}))
		}, ops.Shape{3}, []float64{1, -2, -3}},
	}
	for _, c := range cases {
		var got ops.Tensor
		if err := panicErr(func() { got = c.got() }); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkArray(t, c.name, got, c.shape, c.want, 1e-6)
	}
	if d := eager.F.OneHot(eager.Array([]float32{1}), 2).DType(); d != ops.Float32 {
		t.Errorf("one_hot's default dtype is %v, want float32", d)
	}
	if d := eager.F.ShapeArray(x32).DType(); d != ops.Int64 {
		t.Errorf("shape_array gives %v, want int64", d)
	}
}

func TestIndexOpsGradients(t *testing.T) {
	a := eager.Array([]float64{1, 2, 3})
	a.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() {
		y = eager.F.Sum(eager.F.Take(a, eager.Array([]float64{0, 0, 2, 7}))).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	// Index 7 is clipped to 2, so a[0] and a[2] are each taken twice.
	checkArray(t, "take grad", a.Grad(), ops.Shape{3}, []float64{2, 0, 2}, 1e-6)

	x := eager.Array([]float64{1, 2, 3, 4}, 2, 2)
	z := eager.Array([]float64{5, 6, 7, 8}, 2, 2)
	x.AttachGrad()
	z.AttachGrad()
	eager.Record(func() {
		w := eager.F.Where(eager.Array([]float64{1, 0}), x, z)
		y = eager.F.Sum(eager.F.Mul(w, eager.Array([]float64{1, 2, 3, 4}, 2, 2))).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "where grad x", x.Grad(), ops.Shape{2, 2}, []float64{1, 2, 0, 0}, 1e-6)
	checkArray(t, "where grad y", z.Grad(), ops.Shape{2, 2}, []float64{0, 0, 3, 4}, 1e-6)

	p := eager.Array([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	p.AttachGrad()
	eager.Record(func() {
		y = eager.F.Sum(eager.F.Pick(p, eager.Array([]float64{1, 0, 1}))).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "pick grad", p.Grad(), ops.Shape{3, 2}, []float64{0, 1, 1, 0, 0, 1}, 1e-6)
}

func TestIndexOpErrors(t *testing.T) {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	expectPanic(t, "take raise", func() { eager.F.Take(x, eager.Array([]float32{0, 3}), ops.Attr{Name: "mode", Value: "raise"}) },
		"take", "index 3", "out of range", "a 3x2")
	expectPanic(t, "take bad mode", func() { eager.F.Take(x, eager.Array([]float32{0}), ops.Attr{Name: "mode", Value: "nearest"}) },
		"take", "mode", "raise, wrap, clip")
	expectPanic(t, "take axis", func() { eager.F.Take(x, eager.Array([]float32{0}), ops.Axis(2)) }, "take", "axis=2", "a 3x2")
	expectPanic(t, "pick index shape", func() { eager.F.Pick(x, eager.Array([]float32{0, 1})) },
		"pick", "index 2", "must have shape 3", "data 3x2")
	expectPanic(t, "pick axis None", func() { eager.F.Pick(x, eager.Array([]float32{0, 1}), ops.Attr{Name: "axis", Value: "None"}) },
		"pick", "axis=None")
	expectPanic(t, "one_hot depth", func() { eager.F.OneHot(x, 0) }, "one_hot", "depth=0")
	expectPanic(t, "where shapes", func() { eager.F.Where(eager.Ones(2), x, eager.Ones(3, 2)) },
		"where", "condition 2", "x 3x2", "3 rows")
	expectPanic(t, "where x and y", func() { eager.F.Where(eager.Ones(3, 2), x, eager.Ones(2, 3)) },
		"where", "x 3x2", "y 2x3")
	expectPanic(t, "where dtypes", func() { eager.F.Where(eager.Ones(3, 2), x, eager.ZerosOf(ops.Float64, 3, 2)) },
		"where", "float32", "float64")
}

func ExampleF_Take() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	fmt.Println(eager.F.Take(x, eager.Array([]float32{2, 0})))
	// Indices out of range wrap around with mode "wrap".
	fmt.Println(eager.F.Take(x, eager.Array([]float32{1, 2}), ops.Axis(1), ops.Attr{Name: "mode", Value: "wrap"}))
	// Output:
	// [[5. 6.]
	//  [1. 2.]]
	// <NDArray 2x2 @cpu(0)>
	// [[2. 1.]
	//  [4. 3.]
	//  [6. 5.]]
	// <NDArray 3x2 @cpu(0)>
}

func ExampleF_Where() {
	cond := eager.Array([]float32{1, 0, 0, 1}, 2, 2)
	x := eager.Array([]float32{1, 2, 3, 4}, 2, 2)
	y := eager.Array([]float32{-1, -2, -3, -4}, 2, 2)
	fmt.Println(eager.F.Where(cond, x, y))
	// Output:
	// [[ 1. -2.]
	//  [-3.  4.]]
	// <NDArray 2x2 @cpu(0)>
}
