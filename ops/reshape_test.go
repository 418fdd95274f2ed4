package ops_test

import (
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/ops"
)

// TestReshapeCodes checks Reshape's shape codes against the examples in
// MXNet's documentation of the op.
func TestReshapeCodes(t *testing.T) {
	cases := []struct {
		in      ops.Shape
		shape   ops.Tuple
		reverse bool
		want    ops.Shape
	}{
		{ops.Shape{2, 3, 4}, ops.Tuple{4, 0, 2}, false, ops.Shape{4, 3, 2}},
		{ops.Shape{2, 3, 4}, ops.Tuple{2, 0, 0}, false, ops.Shape{2, 3, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{6, 1, -1}, false, ops.Shape{6, 1, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{3, -1, 8}, false, ops.Shape{3, 1, 8}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-1}, false, ops.Shape{24}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-2}, false, ops.Shape{2, 3, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{2, -2}, false, ops.Shape{2, 3, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-2, 1, 1}, false, ops.Shape{2, 3, 4, 1, 1}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-3, 4}, false, ops.Shape{6, 4}},
		{ops.Shape{2, 3, 4, 5}, ops.Tuple{-3, -3}, false, ops.Shape{6, 20}},
		{ops.Shape{2, 3, 4}, ops.Tuple{0, -3}, false, ops.Shape{2, 12}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-3, -2}, false, ops.Shape{6, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{-4, 1, 2, -2}, false, ops.Shape{1, 2, 3, 4}},
		{ops.Shape{2, 3, 4}, ops.Tuple{2, -4, -1, 3, -2}, false, ops.Shape{2, 1, 3, 4}},
		{ops.Shape{10, 5, 4}, ops.Tuple{-1, 0}, false, ops.Shape{40, 5}},
		{ops.Shape{10, 5, 4}, ops.Tuple{-1, 0}, true, ops.Shape{50, 4}},
	}
	op := ops.MustLookup("Reshape")
	for _, c := range cases {
		attrs, err := op.MakeAttrs(ops.Attr{Name: "shape", Value: c.shape}, ops.Attr{Name: "reverse", Value: c.reverse})
		if err != nil {
			t.Fatalf("shape=%v reverse=%v: %v", c.shape, c.reverse, err)
		}
		out, _, err := op.InferShape(attrs, []ops.Shape{c.in})
		switch {
		case err != nil:
			t.Errorf("input %v shape=%v reverse=%v: %v (want %v)", c.in.Tuple(), c.shape, c.reverse, err, c.want.Tuple())
		case !out[0].Equal(c.want):
			t.Errorf("input %v shape=%v reverse=%v: got %v, want %v", c.in.Tuple(), c.shape, c.reverse, out[0].Tuple(), c.want.Tuple())
		}
	}
}

func TestReshapeErrors(t *testing.T) {
	op := ops.MustLookup("Reshape")
	cases := []struct {
		in    ops.Shape
		shape []int
		want  string
	}{
		{ops.Shape{6, 4}, []int{-4, -1, -1, 0}, "splits a dim into two -1s"},
		{ops.Shape{6, 4}, []int{-4, 4, 2, 0}, "code -4 splits dim 0 of size 6 into 4 x 2"},
		{ops.Shape{2, 3}, []int{-1, -1}, "more than one -1"},
		{ops.Shape{2, 3}, []int{4, -1}, "-1 does not divide evenly"},
		{ops.Shape{2, 3}, []int{7}, "cannot reshape 2x3 (6 elements) to 7 (7 elements)"},
		{ops.Shape{2, 3}, []int{0, 0, 0}, "code 0 at position 2 has no input dim to copy"},
		{ops.Shape{2, 3}, []int{-5}, "-5 is not a dim or a code"},
	}
	for _, c := range cases {
		attrs, err := op.MakeAttrs(ops.Attr{Name: "shape", Value: c.shape})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = op.InferShape(attrs, []ops.Shape{c.in})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Reshape: ") {
			t.Errorf("%v to %v: got %v, want %q", c.in, c.shape, err, c.want)
		}
	}
}
