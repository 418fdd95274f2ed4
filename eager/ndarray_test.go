package eager

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

func TestArrayDTypesFollowTheSlice(t *testing.T) {
	cases := []struct {
		values any
		dtype  ops.DType
	}{
		{[]float32{1}, ops.Float32}, {[]float64{1}, ops.Float64}, {[]int{1}, ops.Int64},
		{[]int32{1}, ops.Int32}, {[]int64{1}, ops.Int64}, {[]int8{1}, ops.Int8},
		{[]uint8{1}, ops.Uint8}, {[]bool{true}, ops.Bool},
	}
	for _, c := range cases {
		a := Array(c.values)
		if a.DType() != c.dtype || a.Scalar() != 1 {
			t.Errorf("%T: dtype %v value %v", c.values, a.DType(), a.Scalar())
		}
	}
}

func TestArrayErrors(t *testing.T) {
	cases := []struct {
		values any
		shape  []int
		want   string
	}{
		{[]float32{1, 2, 3}, []int{2, 2}, "3 values do not fill shape 2x2 (4 elements)"},
		{[]string{"a"}, nil, "cannot make an array from []string"},
		{[]float32{}, []int{0}, "shape ? has a dim that is not positive"},
	}
	for _, c := range cases {
		_, err := NewArray(c.values, c.shape...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewArray(%T, %v): got %v, want %q", c.values, c.shape, err, c.want)
		}
	}
}

func TestValueAccess(t *testing.T) {
	a := Array([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if a.At(1, 2) != 6 || a.At(-1, 0) != 4 || a.At(0, 1) != 2 {
		t.Errorf("At gives %v %v %v", a.At(1, 2), a.At(-1, 0), a.At(0, 1))
	}
	if got := fmt.Sprint(a.Float64s()); got != "[1 2 3 4 5 6]" {
		t.Errorf("Float64s = %s", got)
	}
	if a.Size() != 6 || a.NDim() != 2 || a.Context().String() != "cpu(0)" {
		t.Errorf("size %d ndim %d ctx %v", a.Size(), a.NDim(), a.Context())
	}
	mustPanic(t, "index [2 0] is out of range for shape 2x3 (dim 0)", func() { a.At(2, 0) })
	mustPanic(t, "index [1] has 1 dims, the array 2x3 has 2", func() { a.At(1) })
	mustPanic(t, "Scalar needs exactly one", func() { a.Scalar() })
	// Shape returns a copy: changing it does not change the array.
	s := a.Shape()
	s[0] = 99
	if a.Shape()[0] != 2 {
		t.Error("Shape() shares memory with the array")
	}
}

func mustPanic(t *testing.T, want string, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		err, ok := r.(error)
		if !ok || !strings.Contains(err.Error(), want) {
			t.Errorf("panic %v, want an error containing %q", r, want)
		}
	}()
	fn()
}

func TestAsTypeAndCopy(t *testing.T) {
	a := Array([]float32{1.7, -2.5, 3})
	i := a.AsType(ops.Int32)
	if i.DType() != ops.Int32 || fmt.Sprint(i.Float64s()) != "[1 -2 3]" {
		t.Errorf("AsType(int32) = %v %v", i.DType(), i.Float64s())
	}
	c := a.Copy()
	c.Data().([]float32)[0] = 100
	if a.At(0) != float64(float32(1.7)) {
		t.Error("Copy shares memory with the original")
	}
}

func TestCreation(t *testing.T) {
	if got := Ones(2, 2).Float64s(); fmt.Sprint(got) != "[1 1 1 1]" {
		t.Errorf("Ones = %v", got)
	}
	if got := Full(2.5, 3).Float64s(); fmt.Sprint(got) != "[2.5 2.5 2.5]" {
		t.Errorf("Full = %v", got)
	}
	if got := Arange(1, 2, 0.25).Float64s(); fmt.Sprint(got) != "[1 1.25 1.5 1.75]" {
		t.Errorf("Arange = %v", got)
	}
	if got := Eye(2).Float64s(); fmt.Sprint(got) != "[1 0 0 1]" {
		t.Errorf("Eye = %v", got)
	}
	if z := ZerosOf(ops.Int8, 2); z.DType() != ops.Int8 {
		t.Errorf("ZerosOf(int8) has dtype %v", z.DType())
	}
	// The generator is seedable, and normal samples look normal.
	Seed(42)
	a := RandomNormal(10000).Float64s()
	Seed(42)
	b := RandomNormal(10000).Float64s()
	mean, sq := 0.0, 0.0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same seed gave different samples")
		}
		mean += a[i]
		sq += a[i] * a[i]
	}
	mean /= float64(len(a))
	std := math.Sqrt(sq/float64(len(a)) - mean*mean)
	if math.Abs(mean) > 0.05 || math.Abs(std-1) > 0.05 {
		t.Errorf("RandomNormal mean %v std %v", mean, std)
	}
	for _, v := range RandomUniform(1000).Float64s() {
		if v < 0 || v >= 1 {
			t.Fatalf("RandomUniform gave %v", v)
		}
	}
}

// TestBroadcastingTable checks F.Add's result shape and values against a
// direct computation for pairs of shapes.
func TestBroadcastingTable(t *testing.T) {
	cases := []struct {
		a, b, want ops.Shape
	}{
		{ops.Shape{2, 3}, ops.Shape{2, 3}, ops.Shape{2, 3}},
		{ops.Shape{2, 3}, ops.Shape{3}, ops.Shape{2, 3}},
		{ops.Shape{2, 1}, ops.Shape{1, 3}, ops.Shape{2, 3}},
		{ops.Shape{4, 1, 3}, ops.Shape{2, 1}, ops.Shape{4, 2, 3}},
		{ops.Shape{1}, ops.Shape{2, 2, 2}, ops.Shape{2, 2, 2}},
		{ops.Shape{5}, ops.Shape{}, ops.Shape{5}},
		{ops.Shape{3, 1, 5}, ops.Shape{1, 4, 1}, ops.Shape{3, 4, 5}},
	}
	for _, c := range cases {
		a := Arange(0, float64(c.a.Size()), 1).Reshape(c.a...)
		b := F.MulScalar(Arange(0, float64(c.b.Size()), 1), 100).(*NDArray).Reshape(c.b...)
		got := F.Add(a, b).(*NDArray)
		if !got.shape.Equal(c.want) {
			t.Errorf("%v + %v: shape %v, want %v", c.a, c.b, got.shape, c.want)
			continue
		}
		// Direct computation: index each operand with the broadcast rule.
		idx := make([]int, len(c.want))
		for flat := 0; flat < c.want.Size(); flat++ {
			rem := flat
			for d := len(c.want) - 1; d >= 0; d-- {
				idx[d] = rem % c.want[d]
				rem /= c.want[d]
			}
			want := pick(a, idx) + pick(b, idx)
			if got.Float64s()[flat] != want {
				t.Errorf("%v + %v at %v: %v, want %v", c.a, c.b, idx, got.Float64s()[flat], want)
				break
			}
		}
	}
	_, err := F.Apply(ops.MustLookup("broadcast_add"), nil, Zeros(2, 3), Zeros(4, 3))
	if err == nil || !strings.Contains(err.Error(), "shapes 2x3 and 4x3 do not broadcast (dim 0: 2 vs 4)") {
		t.Errorf("mismatch error: %v", err)
	}
}

// pick reads a at the broadcast index idx (aligned from the right).
func pick(a *NDArray, idx []int) float64 {
	off := len(idx) - len(a.shape)
	full := make([]int, len(a.shape))
	for d := range a.shape {
		if a.shape[d] != 1 {
			full[d] = idx[off+d]
		}
	}
	if len(full) == 0 {
		return a.at(0)
	}
	return a.At(full...)
}

func TestMixedInputsAreRejected(t *testing.T) {
	_, err := F.Apply(ops.MustLookup("broadcast_add"), nil, Zeros(2), fakeTensor{})
	if err == nil || !strings.Contains(err.Error(), "not an NDArray") {
		t.Errorf("got %v", err)
	}
	var zero ops.F
	_, err = zero.Apply(ops.MustLookup("relu"), nil, Zeros(2))
	if err == nil || !strings.Contains(err.Error(), "no interpreter") {
		t.Errorf("zero F: got %v", err)
	}
}

type fakeTensor struct{ ops.Tensor }

func (fakeTensor) Shape() ops.Shape { return ops.Shape{2} }
func (fakeTensor) DType() ops.DType { return ops.Float32 }

func TestDTypeMismatchNamesBothInputs(t *testing.T) {
	_, err := F.Apply(ops.MustLookup("elemwise_add"), nil, Zeros(2), ZerosOf(ops.Int32, 2))
	if err == nil || !strings.Contains(err.Error(), "input rhs is int32 but lhs is float32; use Cast") {
		t.Errorf("got %v", err)
	}
}

func TestHandBuiltAttrsAreChecked(t *testing.T) {
	_, err := F.Apply(ops.MustLookup("_arange"), &ops.ArangeAttrs{Start: 0, Stop: ops.OptFloat{Value: 3, Valid: true}, Step: 0, Repeat: 1})
	if err == nil || !strings.Contains(err.Error(), "step must not be 0") {
		t.Errorf("got %v", err)
	}
}
