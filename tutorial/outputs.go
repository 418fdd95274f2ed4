package tutorial

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
)

// ToNotebookWithOutputs runs t and returns its notebook with each code
// cell's outputs, as the hybridgo kernel would have produced them: what
// the cell printed as stream outputs (stdout, stderr), what it displayed
// with package display as display_data (updates to a display replace it),
// and its value as execute_result, a MIME bundle from display.Render.
// A cell that fails is an error naming its line: a notebook is not
// written with a broken cell.
func ToNotebookWithOutputs(ctx context.Context, t *Tutorial) ([]byte, error) {
	rec := &recorder{}
	s, err := repl.NewSession(repl.Options{Stdout: rec.stream("stdout"), Stderr: rec.stream("stderr")})
	if err != nil {
		return nil, err
	}
	s.InState(func() { display.SetPublisher(rec) }) // the session's displays are recorded
	outputs := map[int]*cellOutputs{}
	count := 0
	for i, st := range t.Steps {
		if st.Kind != Code {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		count++
		cell := &cellOutputs{count: count, list: []any{}}
		rec.begin(cell)
		res, err := s.Eval(ctx, st.Text)
		rec.end()
		if err != nil {
			return nil, fmt.Errorf("%s:%d: the cell failed: %v", t.Path, st.Line, err)
		}
		if res.HasValue {
			cell.list = append(cell.list, map[string]any{
				"output_type":     "execute_result",
				"execution_count": count,
				"data":            valueBundle(res.Value, res.Text),
				"metadata":        map[string]any{},
			})
		}
		outputs[i] = cell
	}
	return notebook(t, outputs)
}

// cellOutputs are one code cell's outputs in nbformat's shape.
type cellOutputs struct {
	count int
	list  []any
}

// valueBundle is the MIME bundle of a cell's value, as display.Render
// makes it, with text/plain from the REPL's own display of it.
func valueBundle(v reflect.Value, text string) map[string]any {
	data := map[string]any{}
	if v.IsValid() && v.CanInterface() {
		for k, d := range display.Render(v.Interface()) {
			data[k] = d
		}
	}
	data["text/plain"] = text
	return mimeLines(data)
}

// mimeLines stores text formats as lists of lines, as Jupyter saves them.
func mimeLines(b map[string]any) map[string]any {
	for k, d := range b {
		if s, ok := d.(string); ok && (strings.HasPrefix(k, "text/") || k == "image/svg+xml") {
			b[k] = sourceLines(s)
		}
	}
	return b
}

// recorder collects the outputs of the cell that runs: stream text, kept
// in order with displays, and display_data bundles.
type recorder struct {
	mu       sync.Mutex
	cell     *cellOutputs
	name     string // the stream being written, "" when none
	text     strings.Builder
	displays map[string]map[string]any // display id -> its output, for updates
}

func (r *recorder) begin(c *cellOutputs) {
	r.mu.Lock()
	r.cell = c
	r.mu.Unlock()
}

func (r *recorder) end() {
	r.mu.Lock()
	r.flush()
	r.cell = nil
	r.mu.Unlock()
}

// flush ends the stream output being written. r.mu is held.
func (r *recorder) flush() {
	if r.name != "" && r.text.Len() > 0 && r.cell != nil {
		r.cell.list = append(r.cell.list, map[string]any{
			"output_type": "stream",
			"name":        r.name,
			"text":        sourceLines(r.text.String()),
		})
	}
	r.name = ""
	r.text.Reset()
}

// stream returns the writer of one stream.
func (r *recorder) stream(name string) *streamWriter { return &streamWriter{r: r, name: name} }

type streamWriter struct {
	r    *recorder
	name string
}

func (w *streamWriter) Write(p []byte) (int, error) {
	r := w.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.name != w.name {
		r.flush()
		r.name = w.name
	}
	r.text.Write(p)
	return len(p), nil
}

// Display records a display_data output, or replaces the data of the
// earlier display with the same id.
func (r *recorder) Display(b display.Bundle, id string, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data := mimeLines(map[string]any(maps.Clone(b)))
	if update && id != "" {
		if out, ok := r.displays[id]; ok {
			out["data"] = data
			return
		}
	}
	if r.cell == nil {
		return
	}
	r.flush()
	out := map[string]any{"output_type": "display_data", "data": data, "metadata": map[string]any{}}
	r.cell.list = append(r.cell.list, out)
	if id != "" {
		if r.displays == nil {
			r.displays = map[string]map[string]any{}
		}
		r.displays[id] = out
	}
}
