package ops

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Attrs is an op's attribute value: a pointer to the op's attribute struct
// (for example *ConvolutionAttrs). Use Op.ParseAttrs, Op.DefaultAttrs or
// Op.MakeAttrs to get one.
type Attrs any

// NoAttrs is the attribute struct of ops that take no attributes.
type NoAttrs struct{}

// Tuple is a tuple of ints as MXNet writes it in attributes: "(5, 5)", "(3,)", "()".
type Tuple []int

// String prints the tuple in MXNet's form.
func (t Tuple) String() string {
	parts := make([]string, len(t))
	for i, v := range t {
		parts[i] = strconv.Itoa(v)
	}
	if len(t) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// OptInt is an int attribute that may be None.
type OptInt struct {
	Value int
	Valid bool
}

// Some returns an OptInt holding v.
func Some(v int) OptInt { return OptInt{Value: v, Valid: true} }

// index is o as an index into a dim of size n (negative values count
// from the end), or def when o is None.
func (o OptInt) index(def, n int) int {
	switch {
	case !o.Valid:
		return def
	case o.Value < 0:
		return o.Value + n
	}
	return o.Value
}

// String prints the value, or "None".
func (o OptInt) String() string {
	if !o.Valid {
		return "None"
	}
	return strconv.Itoa(o.Value)
}

// OptFloat is a float attribute that may be None.
type OptFloat struct {
	Value float64
	Valid bool
}

// String prints the value, or "None".
func (o OptFloat) String() string {
	if !o.Valid {
		return "None"
	}
	return FormatFloat(o.Value)
}

// OptTuple is a tuple whose items may be None, as in slice's begin and end: "(None, 2)".
type OptTuple []OptInt

// String prints the tuple in MXNet's form.
func (t OptTuple) String() string {
	parts := make([]string, len(t))
	for i, v := range t {
		parts[i] = v.String()
	}
	if len(t) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Attr is one attribute given by name to an F method: F.Sum(x, ops.Attr{"axis", 1}).
// The value may be a Go value (int, float64, bool, string, []int, Tuple, Shape,
// DType, OptInt) or MXNet's string form ("(5, 5)", "True").
type Attr struct {
	Name  string
	Value any
}

// Helpers for attributes that appear everywhere.

// Axis sets "axis".
func Axis(axis ...int) Attr {
	if len(axis) == 1 {
		return Attr{"axis", axis[0]}
	}
	return Attr{"axis", Tuple(axis)}
}

// Keepdims sets "keepdims" to true.
func Keepdims() Attr { return Attr{"keepdims", true} }

// TransposeA sets "transpose_a" to true.
func TransposeA() Attr { return Attr{"transpose_a", true} }

// TransposeB sets "transpose_b" to true.
func TransposeB() Attr { return Attr{"transpose_b", true} }

// WithDType sets "dtype".
func WithDType(d DType) Attr { return Attr{"dtype", d} }

// AttrInfo describes one attribute of an op, read from the attribute struct's tags.
type AttrInfo struct {
	Name     string   // MXNet's name, e.g. "num_filter"
	Type     string   // "int", "float", "bool", "string", "tuple", "opt-int", "opt-float", "opt-tuple", "dtype"
	Default  string   // MXNet string form of the default; "" when Required
	Required bool     // no default: it must be given
	Enum     []string // allowed values of a string attribute
	Doc      string
	index    int
}

var (
	attrInfoCache sync.Map // reflect.Type -> []AttrInfo
	tupleType     = reflect.TypeFor[Tuple]()
	shapeType     = reflect.TypeFor[Shape]()
	optIntType    = reflect.TypeFor[OptInt]()
	optTupleType  = reflect.TypeFor[OptTuple]()
	optFloatType  = reflect.TypeFor[OptFloat]()
	dtypeType     = reflect.TypeFor[DType]()
)

// attrInfos reads the tags of an attribute struct type:
//
//	Kernel Tuple `attr:"kernel" doc:"window size"`
//	Stride Tuple `attr:"stride" default:"()"`
//	Act    string `attr:"act_type" default:"relu" enum:"relu,sigmoid,tanh"`
//
// A field without a default tag is required.
func attrInfos(t reflect.Type) []AttrInfo {
	if v, ok := attrInfoCache.Load(t); ok {
		return v.([]AttrInfo)
	}
	var infos []AttrInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("attr")
		if !ok {
			continue
		}
		def, hasDef := f.Tag.Lookup("default")
		info := AttrInfo{Name: name, Type: typeName(f.Type), Default: def, Required: !hasDef, Doc: f.Tag.Get("doc"), index: i}
		if e := f.Tag.Get("enum"); e != "" {
			info.Enum = strings.Split(e, ",")
		}
		infos = append(infos, info)
	}
	attrInfoCache.Store(t, infos)
	return infos
}

func typeName(t reflect.Type) string {
	switch t {
	case tupleType, shapeType:
		return "tuple"
	case optIntType:
		return "opt-int"
	case optTupleType:
		return "opt-tuple"
	case optFloatType:
		return "opt-float"
	case dtypeType:
		return "dtype"
	}
	switch t.Kind() {
	case reflect.Int:
		return "int"
	case reflect.Float64:
		return "float"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	}
	panic("ops: unsupported attribute field type " + t.String())
}

// setAttr parses s (MXNet's string form) into field v of the given info.
func setAttr(v reflect.Value, info AttrInfo, s string) error {
	s = strings.TrimSpace(s)
	bad := func(want string) error {
		return fmt.Errorf("attribute %s=%q is not %s", info.Name, s, want)
	}
	switch info.Type {
	case "int":
		n, err := parseInt(s)
		if err != nil {
			return bad("an int")
		}
		v.SetInt(int64(n))
	case "float":
		f, err := parseFloat(s)
		if err != nil {
			return bad("a number")
		}
		v.SetFloat(f)
	case "bool":
		switch strings.ToLower(s) {
		case "true", "1":
			v.SetBool(true)
		case "false", "0":
			v.SetBool(false)
		default:
			return bad("a bool (True or False)")
		}
	case "string":
		s = strings.Trim(s, `'"`)
		if len(info.Enum) > 0 && !contains(info.Enum, s) {
			return fmt.Errorf("attribute %s=%q is not one of %s", info.Name, s, strings.Join(info.Enum, ", "))
		}
		v.SetString(s)
	case "dtype":
		if s == "None" || s == "" {
			v.SetInt(int64(Unknown))
			return nil
		}
		d, err := ParseDType(s)
		if err != nil {
			return fmt.Errorf("attribute %s: %v", info.Name, err)
		}
		v.SetInt(int64(d))
	case "opt-int":
		if s == "None" {
			v.Set(reflect.ValueOf(OptInt{}))
			return nil
		}
		n, err := parseInt(s)
		if err != nil {
			return bad("an int or None")
		}
		v.Set(reflect.ValueOf(Some(n)))
	case "opt-float":
		if s == "None" {
			v.Set(reflect.ValueOf(OptFloat{}))
			return nil
		}
		f, err := parseFloat(s)
		if err != nil {
			return bad("a number or None")
		}
		v.Set(reflect.ValueOf(OptFloat{Value: f, Valid: true}))
	case "tuple":
		if s == "None" { // an absent optional tuple (reductions' axis)
			v.Set(reflect.Zero(v.Type()))
			return nil
		}
		items, ok := splitTuple(s)
		if !ok {
			return bad("a tuple like (2, 2)")
		}
		t := make([]int, len(items))
		for i, it := range items {
			n, err := parseInt(it)
			if err != nil {
				return bad("a tuple of ints")
			}
			t[i] = n
		}
		v.Set(reflect.ValueOf(t).Convert(v.Type()))
	case "opt-tuple":
		items, ok := splitTuple(s)
		if !ok {
			return bad("a tuple like (None, 2)")
		}
		t := make(OptTuple, len(items))
		for i, it := range items {
			if it == "None" {
				continue
			}
			n, err := parseInt(it)
			if err != nil {
				return bad("a tuple of ints or None")
			}
			t[i] = Some(n)
		}
		v.Set(reflect.ValueOf(t))
	}
	return nil
}

// formatAttr prints field v in MXNet's string form.
func formatAttr(v reflect.Value, info AttrInfo) string {
	switch info.Type {
	case "int":
		return strconv.FormatInt(v.Int(), 10)
	case "float":
		return FormatFloat(v.Float())
	case "bool":
		if v.Bool() {
			return "True"
		}
		return "False"
	case "string":
		return v.String()
	case "dtype":
		d := DType(v.Int())
		if d == Unknown {
			return "None"
		}
		return d.String()
	case "tuple":
		return Tuple(v.Convert(tupleType).Interface().(Tuple)).String()
	default: // opt-int, opt-float, opt-tuple
		return v.Interface().(fmt.Stringer).String()
	}
}

// FormatFloat prints a float as Python does in MXNet attributes ("1.0", "0.001", "inf").
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// ValueString prints a Go value in MXNet's attribute string form: 3 -> "3",
// true -> "True", []int{5, 5} -> "(5, 5)", Float32 -> "float32".
func ValueString(x any) string {
	switch v := x.(type) {
	case string:
		return v
	case bool:
		if v {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(v)
	case float64:
		return FormatFloat(v)
	case float32:
		return FormatFloat(float64(v))
	case []int:
		return Tuple(v).String()
	case Shape:
		return Tuple(v).String()
	case fmt.Stringer: // Tuple, OptInt, OptTuple, DType
		return v.String()
	}
	return fmt.Sprint(x)
}

func parseInt(s string) (int, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "L") // Python 2 longs in old files
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64) // "2.0" is accepted where MXNet accepts it
		if ferr != nil || f != math.Trunc(f) {
			return 0, err
		}
		return int(f), nil
	}
	return int(n), nil
}

func parseFloat(s string) (float64, error) {
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// splitTuple splits "(1, 2)", "[1,2]", "(3,)", "3" or "()" into items.
func splitTuple(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") || strings.HasPrefix(s, "[") {
		if len(s) < 2 || (s[len(s)-1] != ')' && s[len(s)-1] != ']') {
			return nil, false
		}
		s = s[1 : len(s)-1]
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, true
	}
	parts := strings.Split(s, ",")
	if strings.TrimSpace(parts[len(parts)-1]) == "" {
		parts = parts[:len(parts)-1]
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if parts[i] == "" {
			return nil, false
		}
	}
	return parts, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
