package data

import (
	"errors"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
)

// seq returns n*width float32 values 0, 1, 2, … shaped (n, width...).
func seq(n int, width ...int) *eager.NDArray {
	size := n
	for _, w := range width {
		size *= w
	}
	v := make([]float32, size)
	for i := range v {
		v[i] = float32(i)
	}
	return eager.Array(v, append([]int{n}, width...)...)
}

func TestArrayDatasetGet(t *testing.T) {
	x := seq(4, 2, 3)
	y := eager.Array([]int{10, 11, 12, 13})
	ds, err := NewArrayDataset(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != 4 {
		t.Fatalf("Len = %d, want 4", ds.Len())
	}
	s, err := ds.Get(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 {
		t.Fatalf("%d fields, want 2", len(s))
	}
	if got := s[0].Shape().Tuple(); got != "(2, 3)" {
		t.Errorf("image shape %s, want (2, 3)", got)
	}
	if got := s[0].Float32s(); got[0] != 12 || got[5] != 17 {
		t.Errorf("sample 2 = %v, want 12..17", got)
	}
	if s[1].NDim() != 0 || s[1].Scalar() != 12 {
		t.Errorf("label = %v (shape %v), want scalar 12", s[1], s[1].Shape())
	}
	// The sample is a copy: writing it leaves the dataset alone.
	s[0].Data().([]float32)[0] = -1
	if x.At(2, 0, 0) != 12 {
		t.Errorf("writing a sample changed the dataset")
	}
	last, err := ds.Get(-1)
	if err != nil || last[1].Scalar() != 13 {
		t.Errorf("Get(-1) = %v, %v; want label 13", last, err)
	}
	for _, i := range []int{4, -5} {
		if _, err := ds.Get(i); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Get(%d): err = %v, want out of range", i, err)
		}
	}
}

func TestArrayDatasetMismatch(t *testing.T) {
	_, err := NewArrayDataset(seq(4, 5), seq(3, 2))
	if err == nil {
		t.Fatal("no error for first dims 4 and 3")
	}
	for _, want := range []string{"(4, 5)", "(3, 2)", "first dim"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := NewArrayDataset(); err == nil {
		t.Error("no error for no arrays")
	}
	if _, err := NewArrayDataset(seq(2), nil); err == nil {
		t.Error("no error for a nil array")
	}
}

func TestTransform(t *testing.T) {
	ds, _ := NewArrayDataset(seq(3, 2), eager.Array([]float32{0, 1, 2}))
	double := Transform(ds, func(s []*eager.NDArray) ([]*eager.NDArray, error) {
		return []*eager.NDArray{eager.F.MulScalar(s[0], 2).(*eager.NDArray), s[1]}, nil
	})
	if double.Len() != 3 {
		t.Fatalf("Len = %d", double.Len())
	}
	s, err := double.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := s[0].Float32s(); got[0] != 4 || got[1] != 6 {
		t.Errorf("transformed sample = %v, want [4 6]", got)
	}
	if s[1].Scalar() != 1 {
		t.Errorf("label = %v, want 1", s[1].Scalar())
	}

	first := TransformFirst(ds, func(x *eager.NDArray) (*eager.NDArray, error) {
		return eager.F.PlusScalar(x, 100).(*eager.NDArray), nil
	})
	s, _ = first.Get(0)
	if s[0].Float32s()[0] != 100 || s[1].Scalar() != 0 {
		t.Errorf("TransformFirst sample = %v %v", s[0], s[1])
	}

	boom := errors.New("boom")
	failing := Transform(ds, func([]*eager.NDArray) ([]*eager.NDArray, error) { return nil, boom })
	if _, err := failing.Get(2); !errors.Is(err, boom) || !strings.Contains(err.Error(), "sample 2") {
		t.Errorf("err = %v, want boom naming sample 2", err)
	}
}

func TestStackErrors(t *testing.T) {
	a := eager.Zeros(2)
	b := eager.Zeros(3)
	if _, err := Stack([][]*eager.NDArray{{a}, {b}}, []int{5, 9}); err == nil || !strings.Contains(err.Error(), "sample 9") {
		t.Errorf("shape mismatch: err = %v", err)
	}
	if _, err := Stack([][]*eager.NDArray{{a}, {a, a}}, nil); err == nil || !strings.Contains(err.Error(), "fields") {
		t.Errorf("field count mismatch: err = %v", err)
	}
	out, err := Stack([][]*eager.NDArray{{a}, {eager.Ones(2)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Float32s(); out[0].Shape().Tuple() != "(2, 2)" || got[2] != 1 || got[1] != 0 {
		t.Errorf("Stack = %v", out[0])
	}
}
