package ops

import (
	"fmt"
	"strconv"
	"strings"
)

// Shape lists the size of each dimension. A 0 means "unknown" where the
// shape is only partly inferred (MXNet's convention), and a Shape of
// length 0 is a scalar.
type Shape []int

// Size is the number of elements (the product of the dims; 1 for a scalar).
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Known reports whether every dim is known (non-zero); a nil shape is
// not known.
func (s Shape) Known() bool {
	if s == nil {
		return false
	}
	for _, d := range s {
		if d <= 0 {
			return false
		}
	}
	return true
}

// Equal reports whether s and t have the same dims.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Fits reports whether a concrete shape agrees with s, which may be partly
// known: same rank and equal known dims. A nil s (nothing known) fits any.
func (s Shape) Fits(actual Shape) bool {
	if s == nil {
		return true
	}
	if len(s) != len(actual) {
		return false
	}
	for i := range s {
		if s[i] != 0 && s[i] != actual[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy that does not share memory with s. A nil shape
// (nothing known, not even the number of dims) stays nil; a scalar's
// empty shape stays empty.
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

// String prints the shape the way MXNet prints it in array footers: "16x1x28x28"
// ("scalar" for a shape of no dims, "?" for an unknown dim).
func (s Shape) String() string {
	if len(s) == 0 {
		return "scalar"
	}
	var b strings.Builder
	for i, d := range s {
		if i > 0 {
			b.WriteByte('x')
		}
		if d == 0 {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.Itoa(d))
		}
	}
	return b.String()
}

// Tuple prints the shape as an MXNet attribute: "(16, 1, 28, 28)", "(3,)", "()".
func (s Shape) Tuple() string { return Tuple(s).String() }

// Strides returns the row-major strides of s, in elements.
func (s Shape) Strides() []int {
	st := make([]int, len(s))
	n := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = n
		n *= s[i]
	}
	return st
}

// NormAxis turns a possibly negative axis into an index in [0, ndim).
func NormAxis(axis, ndim int) (int, error) {
	a := axis
	if a < 0 {
		a += ndim
	}
	if a < 0 || a >= ndim {
		return 0, fmt.Errorf("axis %d is out of range for %d dims", axis, ndim)
	}
	return a, nil
}

// BroadcastShapes returns the numpy broadcast of a and b: dims are matched
// from the right and a dim of 1 stretches. Unknown (0) dims stay unknown
// unless the other side knows them.
func BroadcastShapes(a, b Shape) (Shape, error) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 1; i <= n; i++ {
		da, db := 1, 1
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		switch {
		case da == db:
			out[n-i] = da
		case da == 1:
			out[n-i] = db
		case db == 1:
			out[n-i] = da
		case da == 0:
			out[n-i] = db
		case db == 0:
			out[n-i] = da
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast (dim %d: %d vs %d)", a, b, n-i, da, db)
		}
	}
	return out, nil
}

// axisSplit views s as outer x n x inner around axis: the product of the
// dims before it, its own size, and the product of the dims after it.
func axisSplit(s Shape, axis int) (outer, n, inner int) {
	return Shape(s[:axis]).Size(), s[axis], Shape(s[axis+1:]).Size()
}

// mergeDim unifies two sizes of one dim where 0 means unknown; ok is false
// when both are known and differ.
func mergeDim(a, b int) (int, bool) {
	switch {
	case a == b || b == 0:
		return a, true
	case a == 0:
		return b, true
	}
	return 0, false
}
