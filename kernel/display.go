package kernel

import (
	"fmt"
	"reflect"

	"github.com/hybridgo/hybridgo/display"
)

// The kernel shows values with package display: an NDArray as a table, a
// Symbol or a hybridized block as a graph picture (SVG, and an interactive
// page), an image as PNG. Cells' display.HTML, display.Show, handles and
// training progress reach the notebook through the publisher below, which
// New installs: a process that links the kernel but runs the terminal
// REPL keeps display's terminal behaviour.
func init() {
	RenderMIME = func(v reflect.Value) map[string]any {
		if !v.IsValid() || !v.CanInterface() {
			return nil
		}
		return display.Render(v.Interface())
	}
}

// publisher sends package display's outputs as display_data and
// update_display_data of the cell that is running; outside a cell they
// print as text, as in the terminal.
type publisher struct{}

func (publisher) Display(b display.Bundle, id string, update bool) {
	k, m, _, _ := currentCell()
	if k == nil {
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
