package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
)

// CellPackage is the import path under which cells reach the notebook:
// import "hybridgo/jupyter", then jupyter.Input, jupyter.Display, jupyter.NewDisplay,
// jupyter.Update, jupyter.HTML.
const CellPackage = "hybridgo/jupyter"

// cellPackage is the symbol table of "hybridgo/jupyter" in k's session:
// its functions act on k and the cell it runs.
func (k *Kernel) cellPackage() map[string]map[string]reflect.Value {
	return map[string]map[string]reflect.Value{CellPackage + "/jupyter": {
		"Input":      reflect.ValueOf(k.input),
		"Display":    reflect.ValueOf(k.display),
		"NewDisplay": reflect.ValueOf(k.newDisplay),
		"Update":     reflect.ValueOf(k.update),
		"HTML":       reflect.ValueOf(HTML),
		"Markdown":   reflect.ValueOf(Markdown),
	}}
}

// runningCell is the request being executed, for the functions cells
// call; m is nil between cells.
type runningCell struct {
	mu         sync.Mutex
	m          *Message
	allowStdin bool
	ctx        context.Context
}

func (k *Kernel) setCell(m *Message, allowStdin bool, ctx context.Context) {
	k.cell.mu.Lock()
	k.cell.m, k.cell.allowStdin, k.cell.ctx = m, allowStdin, ctx
	k.cell.mu.Unlock()
}

func (k *Kernel) currentCell() (*Message, bool, context.Context) {
	k.cell.mu.Lock()
	defer k.cell.mu.Unlock()
	return k.cell.m, k.cell.allowStdin, k.cell.ctx
}

// ErrNoStdin is returned by Input when the frontend does not take input.
var ErrNoStdin = errors.New("jupyter: the frontend does not accept input (allow_stdin is false)")

// input is jupyter.Input: it asks the frontend for a line of text,
// showing prompt, and waits for it (an input_request on the stdin
// channel).
func (k *Kernel) input(prompt string) (string, error) {
	m, allow, ctx := k.currentCell()
	if m == nil {
		return "", errors.New("jupyter: Input is only available while a notebook cell runs")
	}
	if !allow {
		return "", ErrNoStdin
	}
	k.flushOutput() // the output before the prompt first
	for {
		select {
		case <-k.inputReplys: // a stale reply
			continue
		default:
		}
		break
	}
	k.send(k.stdinOut, m, "input_request", map[string]any{"prompt": prompt, "password": false})
	select {
	case r := <-k.inputReplys:
		var c struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(r.Content, &c); err != nil {
			return "", err
		}
		return c.Value, nil
	case <-ctx.Done():
		return "", repl.ErrInterrupted
	}
}

// display is jupyter.Display: it shows v below the cell as
// display_data. v is rendered with renderMIME; a display.Bundle, or a
// map[string]any given here, is a MIME bundle already.
func (k *Kernel) display(v any) {
	k.publishDisplay("display_data", v, newID())
}

// newDisplay is jupyter.NewDisplay: Display that returns the id by which
// Update replaces the output (progress, live charts).
func (k *Kernel) newDisplay(v any) string {
	id := newID()
	k.publishDisplay("display_data", v, id)
	return id
}

// update is jupyter.Update: it replaces the output that NewDisplay(…)
// returned id for.
func (k *Kernel) update(id string, v any) {
	k.publishDisplay("update_display_data", v, id)
}

func (k *Kernel) publishDisplay(msgType string, v any, id string) {
	m, _, _ := k.currentCell()
	if m == nil {
		return
	}
	k.flushOutput()
	if m, ok := v.(map[string]any); ok {
		v = display.Bundle(m)
	}
	rv := reflect.ValueOf(v)
	text := ""
	if s, ok := v.(string); ok {
		text = s
	} else if v != nil {
		b, _ := json.Marshal(v)
		text = string(b)
		if st, ok := v.(interface{ String() string }); ok {
			text = st.String()
		}
	}
	k.publish(m, msgType, map[string]any{"data": bundle(rv, text), "metadata": map[string]any{}, "transient": map[string]any{"display_id": id}})
}

// HTML is a bundle showing html (and the markup as text elsewhere), for
// Display or as a cell's value.
func HTML(html string) display.Bundle {
	return display.Bundle{display.MIMEHTML: html, display.MIMEText: html}
}

// Markdown is a bundle showing markdown, for Display or as a cell's
// value.
func Markdown(md string) display.Bundle {
	return display.Bundle{display.MIMEMarkdown: md, display.MIMEText: md}
}
