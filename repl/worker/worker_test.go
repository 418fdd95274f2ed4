package worker_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/display"
	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/term"
	"github.com/hybridgo/hybridgo/repl/worker"
)

// The test binary is its own worker: started with the argument "worker"
// (the client's default command), it serves a session with the terminal
// REPL and a package of helpers that only tests need.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(worker.Main(setup))
	}
	os.Exit(m.Run())
}

func setup(srv *worker.Server) (*repl.Session, worker.Inputs, error) {
	helpers := map[string]reflect.Value{
		// GoPanic panics in a goroutine of compiled code, which no
		// rewriting of the cell's go statements reaches, and waits for
		// the end of the process.
		"GoPanic": reflect.ValueOf(func(msg string) {
			go func() { panic(msg) }()
			time.Sleep(time.Minute)
		}),
		// CrashOnReplay succeeds the first time it sees path, and ends
		// the process as GoPanic does after that.
		"CrashOnReplay": reflect.ValueOf(func(path string) {
			if _, err := os.Stat(path); err == nil {
				go func() { panic("replayed") }()
				time.Sleep(time.Minute)
			}
			os.WriteFile(path, nil, 0o600)
		}),
		"Input": reflect.ValueOf(srv.Input),
	}
	s, err := repl.NewSession(repl.Options{Stdout: os.Stdout, Stderr: os.Stderr,
		Packages: map[string]map[string]reflect.Value{"hybridgo/crashtest/crashtest": helpers}})
	if err != nil {
		return nil, nil, err
	}
	s.InState(func() { display.SetPublisher(srv) })
	return s, term.New(s, os.Stdout, os.Stderr), nil
}

// client starts a worker with a 1 GiB memory limit, its output in out
// and errOut.
func client(t *testing.T, opts worker.Options) (c *worker.Client, out, errOut *syncBuffer) {
	t.Helper()
	out, errOut = &syncBuffer{}, &syncBuffer{}
	opts.Stdout, opts.Stderr, opts.MemoryLimit = out, errOut, 1<<30
	c, err := worker.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, out, errOut
}

func execute(t *testing.T, c *worker.Client, input string) {
	t.Helper()
	if _, err := c.Execute(input); err != nil {
		t.Fatalf("%s: %v", input, err)
	}
}

// value evaluates an expression and returns its text.
func value(t *testing.T, c *worker.Client, expr string) string {
	t.Helper()
	m, err := c.Eval(expr, false)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return m.Text
}

// A cell that ends the worker is reported in one line, the worker is
// started again and the cells before it are replayed: x is still 41.
func TestFatalCellsRestoreTheSession(t *testing.T) {
	for _, c := range []struct {
		name, before, fatal string
		want                []string
	}{
		{"goroutine panic", "", `crashtest.GoPanic("boom")`,
			[]string{`panic in a goroutine during cell 3 (crashtest.GoPanic("boom")): boom`}},
		{"stack overflow", "func f(n int) int { return f(n+1) + 1 }", "f(0)",
			[]string{"stack overflow in f, called in cell 4 (f(0)): infinite recursion?"}},
		{"huge allocation", "", "b := make([]byte, 40<<30)",
			[]string{"out of memory allocating 40 GiB in cell 3 (b := make([]byte, 40<<30))", "the limit is 1 GiB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if raceDetector && c.name == "huge allocation" {
				t.Skip("the race detector's runtime fails on its own under an address space limit")
			}
			wk, out, errOut := client(t, worker.Options{})
			execute(t, wk, `import "hybridgo/crashtest"; fmt.Println("printed once")`)
			execute(t, wk, "x := 41")
			if c.before != "" {
				execute(t, wk, c.before)
			}
			_, err := wk.Execute(c.fatal)
			var d *worker.Death
			if !errors.As(err, &d) {
				t.Fatalf("%s: err %v, want a *Death", c.fatal, err)
			}
			for _, want := range c.want {
				if !strings.Contains(d.Error(), want) {
					t.Errorf("the message %q lacks %q", d.Error(), want)
				}
			}
			if s := errOut.String(); strings.Contains(s, "goroutine ") || strings.Contains(s, "runtime.") {
				t.Errorf("the runtime's trace reached stderr:\n%s", s)
			}
			r, err := wk.Restart(true)
			if err != nil {
				t.Fatal(err)
			}
			if r.Cells < 2 || len(r.Failed) > 0 {
				t.Errorf("restored %d cells, failed %v", r.Cells, r.Failed)
			}
			if got := value(t, wk, "x + 1"); got != "42" {
				t.Errorf("x + 1 = %q after the restart", got)
			}
			if out.String() != "printed once\n" {
				t.Errorf("stdout %q: the replay was not silent", out.String())
			}
		})
	}
}

// After a restart and its replay, the session numbers cells as the front
// end does: a goroutine's panic names the input that started it.
func TestCellNumbersOutliveARestart(t *testing.T) {
	wk, _, errOut := client(t, worker.Options{})
	execute(t, wk, "x := 41")                                 // 1
	execute(t, wk, "func f(n int) int { return f(n+1) + 1 }") // 2
	if _, err := wk.Execute("f(0)"); err == nil {             // 3
		t.Fatal("f(0): no error")
	}
	if _, err := wk.Restart(true); err != nil {
		t.Fatal(err)
	}
	execute(t, wk, `done := make(chan bool); go func() { defer close(done); panic("boom") }(); <-done`) // 4
	want := "panic in a goroutine started by cell 4: boom"
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errOut.String(), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q", errOut.String(), want)
	}
}

// os.Exit in a cell is caught in the session: the worker lives on.
func TestExitIsCaughtInTheSession(t *testing.T) {
	wk, _, errOut := client(t, worker.Options{})
	execute(t, wk, "x := 41")
	execute(t, wk, "os.Exit(3)")
	if !strings.Contains(errOut.String(), "os.Exit(3)") {
		t.Errorf("stderr %q lacks os.Exit(3)", errOut.String())
	}
	if got := value(t, wk, "x + 1"); got != "42" || wk.Dead() != nil {
		t.Errorf("x + 1 = %q, dead: %v", got, wk.Dead())
	}
}

func TestRestartWithoutReplayStartsEmpty(t *testing.T) {
	wk, _, _ := client(t, worker.Options{})
	execute(t, wk, "x := 41")
	if _, err := wk.Restart(false); err != nil {
		t.Fatal(err)
	}
	_, err := wk.Eval("x", false)
	var ce *worker.CellError
	if !errors.As(err, &ce) || ce.Kind != "compile" || !strings.Contains(ce.Message, "undefined: x") {
		t.Errorf("x after a restart without replay: %v", err)
	}
	if len(wk.Cells()) != 0 {
		t.Errorf("cells after the restart: %q", wk.Cells())
	}
}

// A replayed cell that ends the worker again is left out and the replay
// starts over; workers that keep dying give an empty session.
func TestReplayLeavesOutCellsThatKill(t *testing.T) {
	dir := t.TempDir()
	wk, _, _ := client(t, worker.Options{})
	execute(t, wk, `import "hybridgo/crashtest"`)
	execute(t, wk, "x := 41")
	execute(t, wk, `crashtest.CrashOnReplay("`+filepath.Join(dir, "a")+`")`)
	execute(t, wk, "y := x + 1")
	r, err := wk.Restart(true)
	if err != nil {
		t.Fatal(err)
	}
	var d *worker.Death
	if r.Cells != 3 || len(r.Failed) != 1 || r.Failed[0].Cell != 3 || !errors.As(r.Failed[0].Err, &d) || r.GaveUp {
		t.Fatalf("restart: %+v", r)
	}
	if !strings.Contains(r.Report(), "replay: panic in a goroutine during cell 3") || !strings.Contains(r.Report(), "restored 3 cells in") {
		t.Errorf("report:\n%s", r.Report())
	}
	if got := value(t, wk, "y"); got != "42" {
		t.Errorf("y = %q after the replay", got)
	}

	for _, name := range []string{"b", "c", "d"} {
		execute(t, wk, `crashtest.CrashOnReplay("`+filepath.Join(dir, name)+`")`)
	}
	if r, err = wk.Restart(true); err != nil {
		t.Fatal(err)
	}
	if !r.GaveUp || len(r.Failed) != 3 || len(wk.Cells()) != 0 {
		t.Errorf("restart with three cells that kill: %+v, cells %q", r, wk.Cells())
	}
}

// A cell's output is all there when Execute returns; stderr lines that
// look like a fatal message but are the cell's own are shown.
func TestOutputBeforeTheReply(t *testing.T) {
	wk, out, errOut := client(t, worker.Options{})
	for i := 0; i < 20; i++ {
		out.Reset()
		errOut.Reset()
		execute(t, wk, `fmt.Println("out"); fmt.Fprintln(os.Stderr, "panic: not fatal"); fmt.Fprint(os.Stderr, "runtime: no newline")`)
		if out.String() != "out\n" || errOut.String() != "panic: not fatal\nruntime: no newline" {
			t.Fatalf("stdout %q, stderr %q", out.String(), errOut.String())
		}
	}
}

func TestInterrupt(t *testing.T) {
	wk, _, errOut := client(t, worker.Options{})
	execute(t, wk, "x := 41")
	done := make(chan error)
	go func() {
		_, err := wk.Execute("for {}")
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !wk.Interrupt() {
		if time.Now().After(deadline) {
			t.Fatal("the loop never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "interrupted") || value(t, wk, "x") != "41" {
		t.Errorf("stderr %q; x = %q", errOut.String(), value(t, wk, "x"))
	}
	if wk.Interrupt() {
		t.Error("Interrupt with nothing running reported true")
	}
}

// What a kernel needs: a value's MIME bundle, display messages, and a
// cell's input requests answered by the front end.
func TestEvalDisplayAndInput(t *testing.T) {
	var mu sync.Mutex
	var shown []*worker.Message
	wk, _, _ := client(t, worker.Options{
		OnDisplay: func(m *worker.Message) { mu.Lock(); shown = append(shown, m); mu.Unlock() },
		OnInput: func(prompt string, password bool) (string, error) {
			return "gopher, asked " + prompt, nil
		},
	})
	m, err := wk.Eval("nd.Ones(2)", true)
	if err != nil {
		t.Fatal(err)
	}
	if html, _ := m.Bundle[display.MIMEHTML].(string); !m.HasValue || !strings.Contains(html, "<table") || !strings.Contains(m.Text, "<NDArray 2 @cpu(0)>") {
		t.Errorf("nd.Ones(2): text %q, bundle %v", m.Text, m.Bundle)
	}
	if _, err := wk.Eval(`display.HTML("<b>hi</b>")`, false); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(shown) != 1 || shown[0].Bundle[display.MIMEHTML] != "<b>hi</b>" || shown[0].ID == 0 {
		t.Errorf("displays: %+v", shown)
	}
	mu.Unlock()
	if _, err := wk.Eval(`import "hybridgo/crashtest"`, false); err != nil {
		t.Fatal(err)
	}
	if got := value(t, wk, `func() string { s, _ := crashtest.Input("name? ", false); return s }()`); got != "gopher, asked name? " {
		t.Errorf("input: %q", got)
	}
}

// syncBuffer is a bytes.Buffer for writers in other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}
