package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/worker"
)

// CellPackage is the import path under which cells reach the notebook:
// import "hybridgo/jupyter", then jupyter.Input, jupyter.Display, jupyter.NewDisplay,
// jupyter.Update, jupyter.HTML.
const CellPackage = "hybridgo/jupyter"

// runningCell is the request being executed, for the worker's displays
// and input requests; m is nil between cells.
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

// input answers a cell's jupyter.Input: it asks the frontend for a line
// of text, showing prompt, and waits for it (an input_request on the
// stdin channel).
func (k *Kernel) input(prompt string, password bool) (string, error) {
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
	k.send(k.stdinOut, m, "input_request", map[string]any{"prompt": prompt, "password": password})
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

// display sends a display message of the worker (package display's
// outputs, jupyter.Display and Update) as display_data or
// update_display_data of the cell that runs; outside a cell (a
// goroutine's display after its cell ended) its text is printed, as in
// the terminal, to the last cell's stdout.
func (k *Kernel) display(w *worker.Message) {
	m, _, _ := k.currentCell()
	if m == nil {
		if t := display.Bundle(w.Bundle).Text(); t != "" {
			fmt.Fprintln(k.out, t)
		}
		return
	}
	k.flushOutput()
	msgType := "display_data"
	if w.Update {
		msgType = "update_display_data"
	}
	content := map[string]any{"data": w.Bundle, "metadata": map[string]any{}}
	if w.DisplayID != "" {
		content["transient"] = map[string]any{"display_id": w.DisplayID}
	}
	k.publish(m, msgType, content)
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
