package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cellResult is what testdata/cells.py reports for a cell.
type cellResult struct {
	Status         string
	ExecutionCount int `json:"execution_count"`
	Ename, Evalue  string
	Traceback      []string
	Stdout, Stderr string
	Result         *string
	Pid            int
	Alive          bool
}

// TestCellsCannotKillTheKernel drives the kernel with jupyter_client
// through cells that end the interpreter's process (a stack overflow, an
// allocation past the memory limit), fail in ways that used to confuse
// the session, or stop by interrupt. Each is answered with its error,
// the kernel process stays the same, and a variable defined before it
// keeps its value (the worker that died was replaced and the cells
// replayed).
func TestCellsCannotKillTheKernel(t *testing.T) {
	env, tmp := jupyterSetup(t, "-memory", "1GiB")
	type cell struct {
		Code           string  `json:"code"`
		InterruptAfter float64 `json:"interrupt_after,omitempty"`
		Drain          float64 `json:"drain,omitempty"`
	}
	cases := []struct {
		name   string
		before []string // cells that run first, and succeed
		cell   cell
		status string // of the cell
		ename  string
		text   string // in evalue, or in stderr for a cell that succeeds
	}{
		{name: "goroutine panic", cell: cell{Code: `go func() { panic("boom") }()`, Drain: 2},
			status: "ok", text: "panic in a goroutine started by cell %d: boom"},
		{name: "stack overflow", before: []string{"func f(n int) int { return f(n+1) + 1 }"}, cell: cell{Code: "f(0)"},
			status: "error", ename: "StackOverflow", text: "stack overflow in f, called in cell %d (f(0)): infinite recursion? session restarted"},
		{name: "huge allocation", cell: cell{Code: "b := make([]byte, 40<<30)"},
			status: "error", ename: "OutOfMemory", text: "out of memory allocating 40 GiB in cell %d (b := make([]byte, 40<<30)) (the limit is 1 GiB"},
		{name: "failed declaration", cell: cell{Code: "bad := nn.NewDense(3, nn.DenseOptions{Nope: 1})"},
			status: "error", ename: "CompileError", text: "unknown field Nope"},
		{name: "use after a failed declaration", cell: cell{Code: "bad"},
			status: "error", ename: "CompileError", text: "undefined: bad"},
		{name: "undefined on the right", cell: cell{Code: "bad := undefinedThing"},
			status: "error", ename: "CompileError", text: "undefined: undefinedThing"},
		{name: "os.Exit", cell: cell{Code: "os.Exit(3)"},
			status: "error", ename: "Panic", text: "os.Exit(3)"},
		{name: "interrupt", cell: cell{Code: "for {\n}", InterruptAfter: 1},
			status: "error", ename: "Interrupted", text: interruptedText},
	}
	// The program: kept := 42, then each case's cells, each followed by
	// kept.
	cells := []cell{{Code: "kept := 42"}}
	type index struct{ cell, check int }
	at := make([]index, len(cases))
	for i, c := range cases {
		for _, b := range c.before {
			cells = append(cells, cell{Code: b})
		}
		cells = append(cells, c.cell, cell{Code: "kept"})
		at[i] = index{len(cells) - 2, len(cells) - 1}
	}
	b, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(tmp, "cells.json")
	if err := os.WriteFile(program, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "cells.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, script, "hybridgo", program)
	cmd.Env, cmd.Dir = env, tmp
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cells.py: %v\n%s", err, stderr.String())
	}
	var got []cellResult
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(cells) {
		t.Fatalf("cells.py printed %d results for %d cells (%v):\n%s\n%s", len(got), len(cells), err, out, stderr.String())
	}
	if got[0].Status != "ok" {
		t.Fatalf("kept := 42: %+v", got[0])
	}
	pid := got[0].Pid
	for i, c := range cases {
		r, check := got[at[i].cell], got[at[i].check]
		text := c.text
		if strings.Contains(text, "%d") {
			text = fmt.Sprintf(text, r.ExecutionCount)
		}
		shown := r.Evalue
		if c.status == "ok" {
			shown = r.Stderr
		}
		if r.Status != c.status || r.Ename != c.ename || !strings.Contains(shown, text) {
			t.Errorf("%s: %s %s %q, stderr %q; want %s %s with %q", c.name, r.Status, r.Ename, r.Evalue, r.Stderr, c.status, c.ename, text)
		}
		if check.Status != "ok" || check.Result == nil || *check.Result != "42" {
			t.Errorf("%s: kept afterwards: %s %v %q", c.name, check.Status, check.Result, check.Evalue)
		}
		if check.Pid != pid || !check.Alive {
			t.Errorf("%s: the kernel process is %d (alive %v), was %d", c.name, check.Pid, check.Alive, pid)
		}
		t.Logf("%s: %s %s %q; stderr %q; traceback %q", c.name, r.Status, r.Ename, r.Evalue, r.Stderr, r.Traceback)
	}
	// Execution counts go on, one a cell, through the deaths.
	for i, r := range got {
		if r.ExecutionCount != i+1 {
			t.Errorf("cell %d (%s): execution_count %d", i+1, cells[i].Code, r.ExecutionCount)
		}
	}
}
