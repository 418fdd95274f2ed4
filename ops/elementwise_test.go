package ops_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/internal/optest"
	"github.com/hybridgo/hybridgo/ops"
)

// applyElem evaluates an element-wise function over inputs broadcast to
// out, one element at a time, rounding each result to dtype.
func applyElem(fn func([]float64) float64, in []*eager.NDArray, out ops.Shape, dtype ops.DType) []float64 {
	strides := make([][]int, len(in))
	vals := make([][]float64, len(in))
	for k, a := range in {
		strides[k] = ops.BroadcastStrides(a.Shape(), out)
		vals[k] = a.Float64s()
	}
	res := make([]float64, out.Size())
	args := make([]float64, len(in))
	idx := make([]int, len(out))
	for i := range res {
		// Unravel i into out's index, then read each input at its offset.
		r := i
		for d := len(out) - 1; d >= 0; d-- {
			idx[d] = r % out[d]
			r /= out[d]
		}
		for k := range in {
			off := 0
			for d := range out {
				off += idx[d] * strides[k][d]
			}
			args[k] = vals[k][off]
		}
		y := fn(args)
		if dtype == ops.Float32 {
			y = float64(float32(y))
		}
		res[i] = y
	}
	return res
}

// sameBits reports whether a and b are equal, NaN matching NaN.
func sameBits(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// Every op that declares a per-element function computes exactly what
// its kernel computes, element by element, with broadcasting.
func TestElemFuncMatchesKernel(t *testing.T) {
	cs, errs := optest.Cases()
	for _, err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	for _, c := range cs {
		fn, ok := c.Op.ElemFunc(c.Attrs)
		if !ok {
			continue
		}
		seen[c.Op.Name()] = true
		if n := len(c.Op.InputNames(c.Attrs)); n != len(c.Sample.Inputs) {
			t.Errorf("%s: element-wise op has %d inputs, sample gives %d", c.Name, n, len(c.Sample.Inputs))
			continue
		}
		for _, dt := range []ops.DType{ops.Float64, ops.Float32} {
			in := c.Inputs(dt, 3)
			out, err := eager.Run(c.Op, c.Attrs, in...)
			if err != nil {
				t.Errorf("%s %v: %v", c.Name, dt, err)
				continue
			}
			if len(out) != 1 {
				t.Errorf("%s: element-wise op has %d outputs", c.Name, len(out))
				continue
			}
			want := out[0].Float64s()
			got := applyElem(fn, in, out[0].Shape(), out[0].DType())
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Errorf("%s %v: element %d: function gives %v, kernel %v", c.Name, dt, i, got[i], want[i])
					break
				}
			}
		}
	}
	// The families the passes rely on are all there.
	for _, name := range strings.Fields("relu tanh negative logical_not _plus_scalar _rdiv_scalar _greater_scalar smooth_l1 " +
		"broadcast_add broadcast_greater elemwise_mul Activation LeakyReLU clip") {
		if !seen[name] {
			t.Errorf("%s has no per-element function", name)
		}
	}
}

func TestElemFuncAndInPlaceByMode(t *testing.T) {
	leaky := ops.MustLookup("LeakyReLU")
	for _, c := range []struct {
		act  string
		elem bool
	}{{"leaky", true}, {"elu", true}, {"selu", true}, {"gelu", true}, {"prelu", false}, {"rrelu", false}} {
		a, err := leaky.MakeAttrs(ops.Attr{Name: "act_type", Value: c.act})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := leaky.ElemFunc(a); ok != c.elem {
			t.Errorf("LeakyReLU act_type=%s: element-wise %v, want %v", c.act, ok, c.elem)
		}
	}
	for _, c := range []struct {
		name    string
		inPlace bool
	}{{"relu", true}, {"_mul_scalar", true}, {"Activation", true}, {"clip", true}, {"broadcast_add", false}, {"Convolution", false}, {"sum", false}} {
		if got := ops.MustLookup(c.name).InPlace(); got != c.inPlace {
			t.Errorf("%s: InPlace %v, want %v", c.name, got, c.inPlace)
		}
	}
	for _, name := range []string{"Convolution", "sum", "softmax", "dot"} {
		op := ops.MustLookup(name)
		if _, ok := op.ElemFunc(op.DefaultAttrs()); ok {
			t.Errorf("%s claims to be element-wise", name)
		}
	}
}

// TestLegacyBinaryNames checks that the capitalised names older MXNet
// symbol files use for the binary ops find them.
func TestLegacyBinaryNames(t *testing.T) {
	for legacy, name := range map[string]string{
		"_Plus": "broadcast_add", "_Minus": "broadcast_sub", "_Mul": "broadcast_mul", "_Div": "broadcast_div",
		"_Mod": "broadcast_mod", "_Power": "broadcast_power", "_Maximum": "broadcast_maximum", "_Minimum": "broadcast_minimum",
		"_Hypot": "broadcast_hypot", "_Equal": "broadcast_equal", "_Not_Equal": "broadcast_not_equal",
		"_Greater": "broadcast_greater", "_Greater_Equal": "broadcast_greater_equal", "_Lesser": "broadcast_lesser",
		"_Lesser_Equal": "broadcast_lesser_equal", "_Logical_And": "broadcast_logical_and", "_Logical_Or": "broadcast_logical_or",
		"_Logical_Xor": "broadcast_logical_xor", "_LogicalAndScalar": "_logical_and_scalar",
		"_LogicalOrScalar": "_logical_or_scalar", "_LogicalXorScalar": "_logical_xor_scalar",
	} {
		op, ok := ops.Lookup(legacy)
		if !ok || op.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v; want %s", legacy, op, ok, name)
		}
	}
}
