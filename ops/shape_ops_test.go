package ops_test

import (
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// shpSeq returns the float32 values start, start+1, … in the given shape.
func shpSeq(start float32, shape ...int) *eager.NDArray {
	n := ops.Shape(shape).Size()
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = start + float32(i)
	}
	return eager.Array(xs, shape...)
}

func TestShapeOpsKnownAnswers(t *testing.T) {
	x23 := shpSeq(0, 2, 3)
	x222 := shpSeq(1, 2, 2, 2)
	x34 := shpSeq(1, 3, 4)
	x22 := shpSeq(1, 2, 2)
	cases := []struct {
		name  string
		got   func() ops.Tensor
		shape ops.Shape
		want  []float64
	}{
		{"transpose 2-D", func() ops.Tensor { return eager.F.Transpose(x23) }, ops.Shape{3, 2}, []float64{0, 3, 1, 4, 2, 5}},
		{"transpose 3-D", func() ops.Tensor { return eager.F.Transpose(x222) }, ops.Shape{2, 2, 2}, []float64{1, 5, 3, 7, 2, 6, 4, 8}},
		{"transpose (1,0,2)", func() ops.Tensor { return eager.F.Transpose(x222, 1, 0, 2) }, ops.Shape{2, 2, 2}, []float64{1, 2, 5, 6, 3, 4, 7, 8}},
		{"transpose (0,-1,1)", func() ops.Tensor { return eager.F.Transpose(shpSeq(0, 1, 2, 3), 0, -1, 1) }, ops.Shape{1, 3, 2}, []float64{0, 3, 1, 4, 2, 5}},

		{"squeeze all", func() ops.Tensor { return eager.F.Squeeze(shpSeq(0, 1, 3, 1)) }, ops.Shape{3}, []float64{0, 1, 2}},
		{"squeeze axis 0", func() ops.Tensor { return eager.F.Squeeze(shpSeq(0, 1, 3, 1), ops.Axis(0)) }, ops.Shape{3, 1}, []float64{0, 1, 2}},
		{"squeeze axis 2", func() ops.Tensor { return eager.F.Squeeze(shpSeq(0, 1, 3, 1), ops.Axis(2)) }, ops.Shape{1, 3}, []float64{0, 1, 2}},
		{"squeeze (0, 2)", func() ops.Tensor { return eager.F.Squeeze(shpSeq(0, 1, 3, 1), ops.Axis(0, 2)) }, ops.Shape{3}, []float64{0, 1, 2}},
		{"squeeze to (1,)", func() ops.Tensor { return eager.F.Squeeze(shpSeq(4, 1, 1, 1)) }, ops.Shape{1}, []float64{4}},

		{"concat dim 1", func() ops.Tensor { return eager.F.Concat(1, x22, eager.Array([]float32{5, 6}, 2, 1)) }, ops.Shape{2, 3}, []float64{1, 2, 5, 3, 4, 6}},
		{"concat dim 0", func() ops.Tensor { return eager.F.Concat(0, x22, eager.Array([]float32{7, 8}, 1, 2)) }, ops.Shape{3, 2}, []float64{1, 2, 3, 4, 7, 8}},
		{"concat dim -1 of three", func() ops.Tensor { return eager.F.Concat(-1, shpSeq(0, 2), shpSeq(5, 1), shpSeq(7, 2)) }, ops.Shape{5}, []float64{0, 1, 5, 7, 8}},
		{"concat bool", func() ops.Tensor {
			return eager.F.Concat(0, eager.Array([]bool{true}), eager.Array([]bool{false, true}))
		}, ops.Shape{3}, []float64{1, 0, 1}},

		{"stack axis 0", func() ops.Tensor { return eager.F.Stack(0, shpSeq(1, 2), shpSeq(3, 2)) }, ops.Shape{2, 2}, []float64{1, 2, 3, 4}},
		{"stack axis 1", func() ops.Tensor { return eager.F.Stack(1, shpSeq(1, 2), shpSeq(3, 2)) }, ops.Shape{2, 2}, []float64{1, 3, 2, 4}},
		{"stack axis -1 of 2-D", func() ops.Tensor { return eager.F.Stack(-1, x22, shpSeq(5, 2, 2)) }, ops.Shape{2, 2, 2}, []float64{1, 5, 2, 6, 3, 7, 4, 8}},

		{"slice", func() ops.Tensor { return eager.F.Slice(x34, []int{0, 1}, []int{2, 4}) }, ops.Shape{2, 3}, []float64{2, 3, 4, 6, 7, 8}},
		{"slice with steps", func() ops.Tensor {
			return eager.F.Slice(x34, []int{ops.None, 0}, []int{ops.None, 3}, ops.SliceStep(-1, 2))
		}, ops.Shape{3, 2}, []float64{9, 11, 5, 7, 1, 3}},
		{"slice negative", func() ops.Tensor { return eager.F.Slice(x34, []int{-1}, []int{ops.None}) }, ops.Shape{1, 4}, []float64{9, 10, 11, 12}},
		{"slice int32", func() ops.Tensor {
			return eager.F.Slice(eager.Array([]int32{1, 2, 3, 4, 5}), []int{1}, []int{5}, ops.SliceStep(2))
		}, ops.Shape{2}, []float64{2, 4}},

		{"slice_axis 0", func() ops.Tensor { return eager.F.SliceAxis(x34, 0, 1, 3) }, ops.Shape{2, 4}, []float64{5, 6, 7, 8, 9, 10, 11, 12}},
		{"slice_axis 1", func() ops.Tensor { return eager.F.SliceAxis(x34, 1, 0, 2) }, ops.Shape{3, 2}, []float64{1, 2, 5, 6, 9, 10}},
		{"slice_axis negative", func() ops.Tensor { return eager.F.SliceAxis(x34, 1, -3, -1) }, ops.Shape{3, 2}, []float64{2, 3, 6, 7, 10, 11}},
		{"slice_axis to the end", func() ops.Tensor { return eager.F.SliceAxis(x34, -1, 2, ops.None) }, ops.Shape{3, 2}, []float64{3, 4, 7, 8, 11, 12}},

		{"slice_like", func() ops.Tensor { return eager.F.SliceLike(x34, eager.Zeros(2, 3)) }, ops.Shape{2, 3}, []float64{1, 2, 3, 5, 6, 7}},
		{"slice_like axes (0,)", func() ops.Tensor { return eager.F.SliceLike(x34, eager.Zeros(2, 3), 0) }, ops.Shape{2, 4}, []float64{1, 2, 3, 4, 5, 6, 7, 8}},
		{"slice_like axes (-1,)", func() ops.Tensor { return eager.F.SliceLike(x34, eager.Zeros(2, 3), -1) }, ops.Shape{3, 3}, []float64{1, 2, 3, 5, 6, 7, 9, 10, 11}},

		{"tile (2, 3)", func() ops.Tensor { return eager.F.Tile(x22, 2, 3) }, ops.Shape{4, 6},
			[]float64{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}},
		{"tile (2,)", func() ops.Tensor { return eager.F.Tile(x22, 2) }, ops.Shape{2, 4}, []float64{1, 2, 1, 2, 3, 4, 3, 4}},
		{"tile (2, 1, 1)", func() ops.Tensor { return eager.F.Tile(x22, 2, 1, 1) }, ops.Shape{2, 2, 2}, []float64{1, 2, 3, 4, 1, 2, 3, 4}},

		{"repeat flat", func() ops.Tensor { return eager.F.Repeat(x22, 2) }, ops.Shape{8}, []float64{1, 1, 2, 2, 3, 3, 4, 4}},
		{"repeat axis 1", func() ops.Tensor { return eager.F.Repeat(x22, 2, ops.Axis(1)) }, ops.Shape{2, 4}, []float64{1, 1, 2, 2, 3, 3, 4, 4}},
		{"repeat axis 0", func() ops.Tensor { return eager.F.Repeat(x22, 2, ops.Axis(0)) }, ops.Shape{4, 2}, []float64{1, 2, 1, 2, 3, 4, 3, 4}},
		{"repeat axis -1", func() ops.Tensor { return eager.F.Repeat(x22, 2, ops.Axis(-1)) }, ops.Shape{2, 4}, []float64{1, 1, 2, 2, 3, 3, 4, 4}},

		{"flip axis 0", func() ops.Tensor { return eager.F.Flip(shpSeq(0, 2, 5), 0) }, ops.Shape{2, 5}, []float64{5, 6, 7, 8, 9, 0, 1, 2, 3, 4}},
		{"flip axis 1", func() ops.Tensor { return eager.F.Flip(shpSeq(0, 2, 5), 1) }, ops.Shape{2, 5}, []float64{4, 3, 2, 1, 0, 9, 8, 7, 6, 5}},
		{"flip both", func() ops.Tensor { return eager.F.Flip(x23, 0, -1) }, ops.Shape{2, 3}, []float64{5, 4, 3, 2, 1, 0}},

		{"reshape_like", func() ops.Tensor { return eager.F.ReshapeLike(x23, eager.Zeros(3, 2)) }, ops.Shape{3, 2}, []float64{0, 1, 2, 3, 4, 5}},
		{"reshape_like part", func() ops.Tensor {
			return eager.F.ReshapeLike(shpSeq(0, 2, 6), eager.Zeros(5, 2, 3), ops.Attr{Name: "lhs_begin", Value: 1}, ops.Attr{Name: "rhs_begin", Value: -2})
		}, ops.Shape{2, 2, 3}, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},

		{"shape_array", func() ops.Tensor { return eager.F.ShapeArray(shpSeq(0, 2, 3, 4)) }, ops.Shape{3}, []float64{2, 3, 4}},
		{"size_array", func() ops.Tensor { return eager.F.SizeArray(shpSeq(0, 2, 3, 4)) }, ops.Shape{1}, []float64{24}},
	}
	for _, c := range cases {
		var got ops.Tensor
		if err := panicErr(func() { got = c.got() }); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkArray(t, c.name, got, c.shape, c.want, 1e-6)
	}
}

func TestSplit(t *testing.T) {
	x := shpSeq(1, 3, 2, 1)
	parts := eager.F.Split(x, 2, 1)
	if len(parts) != 2 {
		t.Fatalf("split into 2: got %d parts", len(parts))
	}
	checkArray(t, "split axis 1 part 0", parts[0], ops.Shape{3, 1, 1}, []float64{1, 3, 5}, 1e-6)
	checkArray(t, "split axis 1 part 1", parts[1], ops.Shape{3, 1, 1}, []float64{2, 4, 6}, 1e-6)

	parts = eager.F.Split(x, 3, 0, ops.SqueezeAxis())
	for i, p := range parts {
		checkArray(t, fmt.Sprintf("split squeezed part %d", i), p, ops.Shape{2, 1}, []float64{float64(2*i + 1), float64(2*i + 2)}, 1e-6)
	}
	if op, ok := ops.Lookup("split"); !ok || op.Name() != "SliceChannel" {
		t.Errorf("split is not an alias of SliceChannel")
	}
}

func TestShapeOpAliases(t *testing.T) {
	for alias, name := range map[string]string{"concat": "Concat", "split": "SliceChannel", "crop": "slice", "flip": "reverse"} {
		op, ok := ops.Lookup(alias)
		if !ok || op.Name() != name {
			t.Errorf("%s does not find %s", alias, name)
		}
	}
}

func TestShapeOpsGradients(t *testing.T) {
	x := shpSeq(1, 3, 4)
	x.AttachGrad()
	var y *eager.NDArray
	eager.Record(func() {
		s := eager.F.Slice(x, []int{0, 1}, []int{2, 4})
		y = eager.F.Sum(eager.F.Mul(s, s)).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "d sum(slice²)/dx", x.Grad(), ops.Shape{3, 4}, []float64{0, 4, 6, 8, 0, 12, 14, 16, 0, 0, 0, 0}, 1e-6)

	a, b := shpSeq(1, 2, 2), shpSeq(5, 2, 1)
	a.AttachGrad()
	b.AttachGrad()
	eager.Record(func() {
		c := eager.F.Concat(1, a, b)
		y = eager.F.Sum(eager.F.Mul(c, shpSeq(10, 2, 3))).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	checkArray(t, "concat grad a", a.Grad(), ops.Shape{2, 2}, []float64{10, 11, 13, 14}, 1e-6)
	checkArray(t, "concat grad b", b.Grad(), ops.Shape{2, 1}, []float64{12, 15}, 1e-6)

	z := shpSeq(1, 2, 3)
	z.AttachGrad()
	eager.Record(func() {
		y = eager.F.Sum(eager.F.Mul(eager.F.Tile(z, 2, 2), shpSeq(0, 4, 6))).(*eager.NDArray)
	})
	if err := y.Backward(); err != nil {
		t.Fatal(err)
	}
	// z[i][j] appears at rows i, i+2 and columns j, j+3 of the 4x6 weights 0..23.
	want := make([]float64, 6)
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for _, r := range []int{i, i + 2} {
				for _, c := range []int{j, j + 3} {
					want[i*3+j] += float64(r*6 + c)
				}
			}
		}
	}
	checkArray(t, "tile grad", z.Grad(), ops.Shape{2, 3}, want, 1e-6)
}

func TestShapeOpErrors(t *testing.T) {
	x234 := shpSeq(0, 2, 3, 4)
	expectPanic(t, "transpose axes of the wrong length", func() { eager.F.Transpose(x234, 1, 0) },
		"transpose", "axes (1, 0)", "data 2x3x4", "3 dims")
	expectPanic(t, "transpose axes not a permutation", func() { eager.F.Transpose(x234, 0, 0, 1) },
		"transpose", "axes (0, 0, 1)", "not a permutation", "2x3x4")
	expectPanic(t, "concat of mismatched shapes", func() { eager.F.Concat(1, shpSeq(0, 2, 3), shpSeq(0, 3, 4)) },
		"Concat", "arg0 2x3", "arg1 3x4", "dim 0", "dim=1")
	expectPanic(t, "concat of different ndims", func() { eager.F.Concat(0, shpSeq(0, 2, 3), shpSeq(0, 6)) },
		"Concat", "arg1 6", "arg0 2x3")
	expectPanic(t, "stack of different shapes", func() { eager.F.Stack(0, shpSeq(0, 2), shpSeq(0, 3)) },
		"stack", "arg1 3", "arg0 2")
	expectPanic(t, "slice begin out of range", func() { eager.F.Slice(shpSeq(0, 3, 4), []int{0, 5}, []int{2, 6}) },
		"slice", "begin[1]=5", "out of range", "data 3x4", "size 4")
	expectPanic(t, "slice end out of range", func() { eager.F.Slice(shpSeq(0, 3, 4), []int{0}, []int{7}) },
		"slice", "end[0]=7", "data 3x4", "size 3")
	expectPanic(t, "slice too many axes", func() { eager.F.Slice(shpSeq(0, 3), []int{0, 0}, []int{1, 1}) },
		"slice", "begin (0, 0)", "data 3")
	expectPanic(t, "slice empty", func() { eager.F.Slice(shpSeq(0, 3), []int{2}, []int{1}) },
		"slice", "select nothing")
	expectPanic(t, "slice_axis out of range", func() { eager.F.SliceAxis(shpSeq(0, 3, 4), 1, 2, 9) },
		"slice_axis", "end=9", "3x4")
	expectPanic(t, "squeeze of a non-1 axis", func() { eager.F.Squeeze(shpSeq(0, 2, 1, 3), ops.Axis(0)) },
		"squeeze", "axis 0", "data 2x1x3", "size is 2")
	expectPanic(t, "split not dividing", func() { eager.F.Split(shpSeq(0, 2, 5), 2, 1) },
		"SliceChannel", "data 2x5", "num_outputs=2")
	expectPanic(t, "split squeeze of size > 1", func() { eager.F.Split(shpSeq(0, 2, 4), 2, 1, ops.SqueezeAxis()) },
		"SliceChannel", "squeeze_axis", "2x4")
	expectPanic(t, "slice_like too large", func() { eager.F.SliceLike(shpSeq(0, 2, 3), eager.Zeros(3, 3)) },
		"slice_like", "shape_like 3x3", "data 2x3")
	expectPanic(t, "reshape_like size", func() { eager.F.ReshapeLike(shpSeq(0, 2, 3), eager.Zeros(4, 2)) },
		"reshape_like", "lhs 2x3", "rhs 4x2")
	expectPanic(t, "tile with zero reps", func() { eager.F.Tile(shpSeq(0, 2), 0) }, "tile", "reps (0,)")
	expectPanic(t, "repeat axis out of range", func() { eager.F.Repeat(shpSeq(0, 2), 2, ops.Axis(3)) }, "repeat", "axis=3")
	expectPanic(t, "flip axis out of range", func() { eager.F.Flip(shpSeq(0, 2), 1) }, "reverse", "axis (1,)")
}

func ExampleF_Transpose() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(eager.F.Transpose(x))
	// Output:
	// [[1. 4.]
	//  [2. 5.]
	//  [3. 6.]]
	// <NDArray 3x2 @cpu(0)>
}

func ExampleF_Concat() {
	a := eager.Array([]float32{1, 2, 3, 4}, 2, 2)
	b := eager.Array([]float32{5, 6}, 2, 1)
	fmt.Println(eager.F.Concat(1, a, b))
	// Output:
	// [[1. 2. 5.]
	//  [3. 4. 6.]]
	// <NDArray 2x3 @cpu(0)>
}

func ExampleF_Slice() {
	x := eager.Array([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
	fmt.Println(eager.F.Slice(x, []int{0, 1}, []int{2, 4}))
	// Every row, backwards, and every other column of the first three.
	fmt.Println(eager.F.Slice(x, []int{ops.None, 0}, []int{ops.None, 3}, ops.SliceStep(-1, 2)))
	// Output:
	// [[2. 3. 4.]
	//  [6. 7. 8.]]
	// <NDArray 2x3 @cpu(0)>
	// [[ 9. 11.]
	//  [ 5.  7.]
	//  [ 1.  3.]]
	// <NDArray 3x2 @cpu(0)>
}

// TestShapeOpsFillUnknownDims checks that shape rules infer unknown (0)
// dims of inputs from the other inputs, as deferred initialisation needs.
func TestShapeOpsFillUnknownDims(t *testing.T) {
	cases := []struct {
		op     string
		attrs  map[string]string
		in     []ops.Shape
		out    ops.Shape
		filled []ops.Shape
	}{
		{"Concat", map[string]string{"num_args": "2"}, []ops.Shape{{0, 3}, {2, 4}}, ops.Shape{2, 7}, []ops.Shape{{2, 3}, {2, 4}}},
		{"Concat", map[string]string{"num_args": "2"}, []ops.Shape{{2, 0}, {2, 4}}, ops.Shape{2, 0}, []ops.Shape{{2, 0}, {2, 4}}},
		{"stack", map[string]string{"num_args": "2"}, []ops.Shape{{0, 3}, {2, 0}}, ops.Shape{2, 2, 3}, []ops.Shape{{2, 3}, {2, 3}}},
		{"where", nil, []ops.Shape{{0}, {0, 3}, {4, 3}}, ops.Shape{4, 3}, []ops.Shape{{4}, {4, 3}, {4, 3}}},
		{"pick", map[string]string{"axis": "1"}, []ops.Shape{{0, 5}, {3}}, ops.Shape{3}, []ops.Shape{{3, 5}, {3}}},
		{"transpose", nil, []ops.Shape{{0, 3}}, ops.Shape{3, 0}, []ops.Shape{{0, 3}}},
		{"slice", map[string]string{"begin": "(0, 1)", "end": "(2, 3)"}, []ops.Shape{{0, 4}}, ops.Shape{2, 2}, []ops.Shape{{0, 4}}},
		{"take", nil, []ops.Shape{{0, 4}, {2, 3}}, ops.Shape{2, 3, 4}, []ops.Shape{{0, 4}, {2, 3}}},
	}
	for _, c := range cases {
		op := ops.MustLookup(c.op)
		attrs, err := op.ParseAttrs(c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		out, filled, err := op.InferShape(attrs, c.in)
		if err != nil {
			t.Errorf("%s %v: %v", c.op, c.in, err)
			continue
		}
		if !out[0].Equal(c.out) {
			t.Errorf("%s %v: output %v, want %v", c.op, c.in, out[0], c.out)
		}
		for i := range c.filled {
			if !filled[i].Equal(c.filled[i]) {
				t.Errorf("%s %v: input %d filled to %v, want %v", c.op, c.in, i, filled[i], c.filled[i])
			}
		}
	}
}
