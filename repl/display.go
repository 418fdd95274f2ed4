package repl

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hybridgo/hybridgo/ops"
)

// display is how the REPL shows a value: tensors MXNet-style (an
// NDArray's values and footer, a Symbol with its shape), errors by their
// message, anything else with %v.
func display(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if !v.CanInterface() {
		return v.String()
	}
	x := v.Interface()
	switch x := x.(type) {
	case nil:
		return "<nil>"
	case ops.Tensor:
		if isNil(v) {
			return "<nil>"
		}
		return x.String()
	case error:
		if isNil(v) {
			return "<nil>"
		}
		return "error: " + x.Error()
	case string:
		return x
	}
	return fmt.Sprintf("%v", x)
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// summary is a one-line description of a value for a variables list: a
// tensor's footer ("<NDArray 2x3 @cpu(0)>"), otherwise its %v cut short.
func summary(v reflect.Value) string {
	text := display(v)
	if t, ok := valueOf(v).(ops.Tensor); ok && !isNil(v) {
		text = t.String()
		if i := strings.LastIndex(text, "\n"); i >= 0 {
			text = text[i+1:]
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 72 {
		text = string(r[:69]) + "..."
	}
	return text
}
