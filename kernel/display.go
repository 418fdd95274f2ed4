package kernel

import (
	"fmt"
	"reflect"

	"github.com/hybridgo/hybridgo/display"
)

// renderMIME turns the value of a cell into a MIME bundle (mimetype ->
// data) for execute_result and display_data, with package display: an
// NDArray as a table, a Symbol or a hybridized block as a graph picture
// (SVG, and an interactive page), an image as PNG; a display.Bundle is a
// bundle already, a plain map[string]any a value like any other. A nil
// or empty result means text/plain alone.
func renderMIME(v reflect.Value) map[string]any {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return display.Render(v.Interface())
}

// publisher sends package display's outputs (display.HTML, display.Show,
// handles, training progress) as display_data and update_display_data
// of the cell that k is running; outside a cell they print as text, as
// in the terminal. New installs it: a process that links the kernel but
// runs the terminal REPL keeps display's terminal behaviour.
type publisher struct{ k *Kernel }

func (p publisher) Display(b display.Bundle, id string, update bool) {
	k := p.k
	m, _, _ := k.currentCell()
	if m == nil {
		if t := b.Text(); t != "" {
			fmt.Println(t)
		}
		return
	}
	k.flushOutput()
	msgType := "display_data"
	if update {
		msgType = "update_display_data"
	}
	content := map[string]any{"data": map[string]any(b), "metadata": map[string]any{}}
	if id != "" {
		content["transient"] = map[string]any{"display_id": id}
	}
	k.publish(m, msgType, content)
}
