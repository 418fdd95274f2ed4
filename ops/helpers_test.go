package ops_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// Helpers shared by the op tests.

// nd converts an F result to the eager array it is.
func nd(t ops.Tensor) *eager.NDArray { return t.(*eager.NDArray) }

// checkArray compares an array's shape and values with the expected ones.
func checkArray(t *testing.T, name string, got ops.Tensor, shape ops.Shape, want []float64, tol float64) {
	t.Helper()
	if !got.Shape().Equal(shape) {
		t.Errorf("%s: shape %v, want %v", name, got.Shape(), shape)
		return
	}
	vals := got.Float64s()
	for i := range want {
		if math.IsNaN(vals[i]) || math.Abs(vals[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			t.Errorf("%s: values %v, want %v", name, vals, want)
			return
		}
	}
}

// panicErr runs fn and returns the error it panicked with (nil if none).
func panicErr(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	fn()
	return nil
}

// wantErr checks that err is set and its message holds every part.
func wantErr(t *testing.T, name string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one mentioning %q", name, parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not mention %q", name, err, p)
		}
	}
}

func parse(t *testing.T, op *ops.Op, m map[string]string) ops.Attrs {
	t.Helper()
	a, err := op.ParseAttrs(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// expectPanic checks that fn panics with an error whose message holds every part.
func expectPanic(t *testing.T, name string, fn func(), parts ...string) {
	t.Helper()
	wantErr(t, name, panicErr(fn), parts...)
}
