package kernel

import (
	"reflect"

	"github.com/hybridgo/hybridgo/display"
)

// renderMIME turns a value into a MIME bundle (mimetype -> data) for
// display_data, with package display: an NDArray as a table, a Symbol or
// a hybridized block as a graph picture (SVG, and an interactive page),
// an image as PNG; a display.Bundle is a bundle already, a plain
// map[string]any a value like any other. A nil or empty result means
// text/plain alone.
func renderMIME(v reflect.Value) map[string]any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return display.Render(v.Interface())
}

// bundle is the MIME bundle of a value, with text/plain always present.
func bundle(v reflect.Value, text string) map[string]any {
	return withText(renderMIME(v), text)
}

// withText is b with text as its text/plain when it has none.
func withText(b map[string]any, text string) map[string]any {
	out := map[string]any{}
	for mt, d := range b {
		out[mt] = d
	}
	if _, ok := out["text/plain"]; !ok {
		out["text/plain"] = text
	}
	return out
}
