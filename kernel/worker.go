package kernel

import (
	"encoding/json"
	"os"
	"reflect"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/worker"
)

// WorkerArgs are the arguments with which the kernel starts its
// executable as its worker: the executable must then run Worker
// (hybridgo does, for `hybridgo kernel worker`).
var WorkerArgs = []string{"kernel", "worker"}

// Worker is the main of the kernel's worker process: the session whose
// cells the kernel runs, with the package "hybridgo/jupyter" and package
// display's publisher bound to the worker's server, so that displays and
// input requests reach the kernel, which sends them to the notebook.
func Worker() int {
	return worker.Main(func(srv *worker.Server) (*repl.Session, worker.Inputs, error) {
		s, err := repl.NewSession(repl.Options{Stdout: os.Stdout, Stderr: os.Stderr, Packages: cellPackage(srv)})
		if err != nil {
			return nil, nil, err
		}
		s.InState(func() { display.SetPublisher(srv) })
		return s, nil, nil
	})
}

// cellPackage is the symbol table of "hybridgo/jupyter" in the worker's
// session: its functions send displays and input requests through srv.
func cellPackage(srv *worker.Server) map[string]map[string]reflect.Value {
	show := func(v any, id string, update bool) { srv.Display(bundleOf(v), id, update) }
	return map[string]map[string]reflect.Value{CellPackage + "/jupyter": {
		"Input":   reflect.ValueOf(func(prompt string) (string, error) { return srv.Input(prompt, false) }),
		"Display": reflect.ValueOf(func(v any) { show(v, newID(), false) }),
		"NewDisplay": reflect.ValueOf(func(v any) string {
			id := newID()
			show(v, id, false)
			return id
		}),
		"Update":   reflect.ValueOf(func(id string, v any) { show(v, id, true) }),
		"HTML":     reflect.ValueOf(HTML),
		"Markdown": reflect.ValueOf(Markdown),
	}}
}

// bundleOf is the MIME bundle that jupyter.Display shows for v: v
// rendered with package display; a display.Bundle, or a map[string]any
// given to Display, is a MIME bundle already.
func bundleOf(v any) display.Bundle {
	if m, ok := v.(map[string]any); ok {
		v = display.Bundle(m)
	}
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
	return display.Bundle(bundle(reflect.ValueOf(v), text))
}
