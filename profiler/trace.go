package profiler

import (
	"encoding/json"
	"io"
	"strings"
)

// traceEvent is one complete event ("ph": "X") of Chrome's Trace Event
// Format; ts and dur are microseconds.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int64          `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes the profile as a Chrome trace: JSON in the Trace
// Event Format, with one complete event per op call and per span on the
// goroutine's track, so that blocks enclose their ops. Open it in
// https://ui.perfetto.dev or chrome://tracing.
func (p *Profile) WriteTrace(w io.Writer) error {
	evs := make([]traceEvent, 0, len(p.Events))
	for i, e := range p.Events {
		te := traceEvent{Name: e.Name, Cat: e.Mode.String(), Ph: "X", Ts: float64(e.Start) / 1e3, Dur: float64(e.End-e.Start) / 1e3, Pid: 1, Tid: e.Thread, Args: map[string]any{}}
		switch e.Kind {
		case OpEvent:
			if e.Node != "" {
				te.Args["node"] = e.Node
			}
			shapes := make([]string, len(e.Shapes))
			for k, s := range e.Shapes {
				shapes[k] = s.String()
			}
			te.Args["inputs"] = strings.Join(shapes, ", ")
		case BlockEvent:
			te.Name = p.paths[i]
			te.Cat = "block," + e.Mode.String()
		case GraphEvent:
			te.Cat = "graph"
			te.Args["planned_bytes"] = e.Planned
		}
		if b := p.Block(i); b != "" && e.Kind != BlockEvent {
			te.Args["block"] = b
		}
		te.Args["allocated_bytes"] = e.Allocated
		if e.Gap > 0 {
			te.Args["gap_before_us"] = float64(e.Gap) / 1e3
		}
		evs = append(evs, te)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{evs, "ns"})
}
