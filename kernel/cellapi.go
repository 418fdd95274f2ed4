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

func init() {
	repl.Symbols[CellPackage+"/jupyter"] = map[string]reflect.Value{
		"Input":      reflect.ValueOf(Input),
		"Display":    reflect.ValueOf(Display),
		"NewDisplay": reflect.ValueOf(NewDisplay),
		"Update":     reflect.ValueOf(Update),
		"HTML":       reflect.ValueOf(HTML),
		"Markdown":   reflect.ValueOf(Markdown),
	}
}

// cell is the request being executed, for the functions cells call.
var cell struct {
	sync.Mutex
	k          *Kernel
	m          *Message
	allowStdin bool
	ctx        context.Context
}

func setCell(k *Kernel, m *Message, allowStdin bool, ctx context.Context) {
	cell.Lock()
	cell.k, cell.m, cell.allowStdin, cell.ctx = k, m, allowStdin, ctx
	cell.Unlock()
}

func currentCell() (*Kernel, *Message, bool, context.Context) {
	cell.Lock()
	defer cell.Unlock()
	return cell.k, cell.m, cell.allowStdin, cell.ctx
}

// ErrNoStdin is returned by Input when the frontend does not take input.
var ErrNoStdin = errors.New("jupyter: the frontend does not accept input (allow_stdin is false)")

// Input asks the frontend for a line of text, showing prompt, and waits
// for it (an input_request on the stdin channel).
func Input(prompt string) (string, error) {
	k, m, allow, ctx := currentCell()
	if k == nil {
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

// Display shows v below the cell as display_data. v is rendered with
// RenderMIME; a display.Bundle, or a map[string]any given here, is a
// MIME bundle already.
func Display(v any) {
	publishDisplay("display_data", v, newID())
}

// NewDisplay is Display that returns the id by which Update replaces
// the output (progress, live charts).
func NewDisplay(v any) string {
	id := newID()
	publishDisplay("display_data", v, id)
	return id
}

// Update replaces the output that NewDisplay(…) returned id for.
func Update(id string, v any) {
	publishDisplay("update_display_data", v, id)
}

func publishDisplay(msgType string, v any, id string) {
	k, m, _, _ := currentCell()
	if k == nil {
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
