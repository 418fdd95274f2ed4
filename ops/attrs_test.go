package ops

import (
	"reflect"
	"strings"
	"testing"
)

type testAttrs struct {
	Kernel  Tuple    `attr:"kernel"`
	Stride  Tuple    `attr:"stride" default:"(1, 1)"`
	Act     string   `attr:"act_type" default:"relu" enum:"relu,tanh"`
	NoBias  bool     `attr:"no_bias" default:"False"`
	Eps     float64  `attr:"eps" default:"0.001"`
	Axis    OptInt   `attr:"axis" default:"None"`
	Stop    OptFloat `attr:"stop" default:"None"`
	Begin   OptTuple `attr:"begin" default:"()"`
	Out     DType    `attr:"dtype" default:"None"`
	Filters int      `attr:"num_filter" default:"1"`
}

var testOp = &Op{name: "Test", attrType: reflect.TypeFor[testAttrs](), inputNames: func(Attrs) []string { return []string{"data"} }}

func init() {
	testOp.defaults = newDefaults(testOp)
}

func TestAttrsParseFromMXNetStrings(t *testing.T) {
	a, err := testOp.ParseAttrs(map[string]string{
		"kernel": "(5, 5)", "stride": "[2,2]", "act_type": "tanh", "no_bias": "True", "eps": "1e-5",
		"axis": "-1", "stop": "2.5", "begin": "(None, 2)", "dtype": "int32", "num_filter": "6L",
		"__shape__": "(1,)", // variable annotations are ignored
	})
	if err != nil {
		t.Fatal(err)
	}
	got := a.(*testAttrs)
	if !Shape(got.Kernel).Equal(Shape{5, 5}) || !Shape(got.Stride).Equal(Shape{2, 2}) || got.Act != "tanh" ||
		!got.NoBias || got.Eps != 1e-5 || got.Axis != Some(-1) || got.Stop != (OptFloat{2.5, true}) ||
		got.Begin[0].Valid || got.Begin[1] != Some(2) || got.Out != Int32 || got.Filters != 6 {
		t.Errorf("parsed %+v", got)
	}
	want := map[string]string{"kernel": "(5, 5)", "stride": "(2, 2)", "act_type": "tanh", "no_bias": "True",
		"eps": "1e-05", "axis": "-1", "stop": "2.5", "begin": "(None, 2)", "dtype": "int32", "num_filter": "6"}
	printed := testOp.FormatAttrs(a)
	for k, v := range want {
		if printed[k] != v {
			t.Errorf("%s printed as %q, want %q", k, printed[k], v)
		}
	}
}

func TestAttrsDefaultsAreLeftOut(t *testing.T) {
	a, err := testOp.ParseAttrs(map[string]string{"kernel": "(3,)"})
	if err != nil {
		t.Fatal(err)
	}
	if got := testOp.AttrString(a); got != "kernel=(3,)" {
		t.Errorf("AttrString = %q", got)
	}
}

func TestAttrErrors(t *testing.T) {
	cases := []struct {
		attrs map[string]string
		want  string
	}{
		{map[string]string{}, "Test: attribute kernel is required"},
		{map[string]string{"kernel": "(5, x)"}, `attribute kernel="(5, x)" is not a tuple of ints`},
		{map[string]string{"kernel": "(5", "act_type": "relu"}, `attribute kernel="(5" is not a tuple like (2, 2)`},
		{map[string]string{"kernel": "()", "act_type": "gelu"}, `attribute act_type="gelu" is not one of relu, tanh`},
		{map[string]string{"kernel": "()", "no_bias": "maybe"}, `no_bias="maybe" is not a bool (True or False)`},
		{map[string]string{"kernel": "()", "eps": "small"}, `eps="small" is not a number`},
		{map[string]string{"kernel": "()", "dtype": "float8"}, `unknown dtype "float8"`},
		{map[string]string{"kernel": "()", "strides": "(1, 1)"}, `unknown attribute "strides" (it takes: kernel, stride, act_type`},
	}
	for _, c := range cases {
		_, err := testOp.ParseAttrs(c.attrs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.attrs, err, c.want)
		}
	}
}

func TestMakeAttrsTakesGoValues(t *testing.T) {
	a, err := testOp.MakeAttrs(Attr{"kernel", []int{2, 2}}, Attr{"no_bias", true}, Attr{"eps", 0.5},
		Attr{"dtype", Float64}, Attr{"axis", 1}, Attr{"begin", OptTuple{Some(1), {}}})
	if err != nil {
		t.Fatal(err)
	}
	got := a.(*testAttrs)
	if !Shape(got.Kernel).Equal(Shape{2, 2}) || !got.NoBias || got.Eps != 0.5 || got.Out != Float64 || got.Axis != Some(1) || got.Begin[0] != Some(1) {
		t.Errorf("made %+v", got)
	}
}

func TestBroadcastShapes(t *testing.T) {
	cases := []struct{ a, b, want Shape }{
		{Shape{2, 3}, Shape{3}, Shape{2, 3}},
		{Shape{4, 1, 3}, Shape{2, 1}, Shape{4, 2, 3}},
		{Shape{}, Shape{2}, Shape{2}},
		{Shape{0, 3}, Shape{5, 1}, Shape{5, 3}}, // an unknown dim takes the known one
		{Shape{0, 3}, Shape{3}, Shape{0, 3}},
	}
	for _, c := range cases {
		got, err := BroadcastShapes(c.a, c.b)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("BroadcastShapes(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
	if _, err := BroadcastShapes(Shape{2, 3}, Shape{4, 3}); err == nil || !strings.Contains(err.Error(), "dim 0: 2 vs 4") {
		t.Errorf("mismatch: %v", err)
	}
}

func TestShapeAndDTypeStrings(t *testing.T) {
	if s := (Shape{16, 1, 28, 28}).String(); s != "16x1x28x28" {
		t.Error(s)
	}
	if s := (Shape{0, 3}).String(); s != "?x3" {
		t.Error(s)
	}
	if s := (Shape{3}).Tuple(); s != "(3,)" {
		t.Error(s)
	}
	for _, d := range DTypes() {
		back, err := ParseDType(d.String())
		if err != nil || back != d {
			t.Errorf("%v does not round-trip: %v %v", d, back, err)
		}
	}
	if _, err := NormAxis(3, 3); err == nil || !strings.Contains(err.Error(), "axis 3 is out of range for 3 dims") {
		t.Errorf("NormAxis: %v", err)
	}
}

func TestErrorNamesOpInputsAndAttrs(t *testing.T) {
	e := &Error{Op: "Convolution", Msg: "data 16x3x28x28 has 3 channels, weight 6x1x5x5 expects 1 (num_group=1)",
		Inputs: []string{"data 16x3x28x28", "weight 6x1x5x5"}, Attrs: "kernel=(5, 5) num_filter=6", Block: "net0_conv0"}
	want := "in block net0_conv0: Convolution: data 16x3x28x28 has 3 channels, weight 6x1x5x5 expects 1 (num_group=1) [inputs: data 16x3x28x28, weight 6x1x5x5; attrs: kernel=(5, 5) num_filter=6]"
	if e.Error() != want {
		t.Errorf("got  %s\nwant %s", e.Error(), want)
	}
}
