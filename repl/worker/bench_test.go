package worker_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/worker"
)

// The per-cell cost of the worker: a trivial cell in this process, and
// through the worker as the kernel (eval) and the terminal (execute) send
// it, until its reply. The worker reports the session's new Cells after
// the reply, while the front end prints it; the "back-to-back" variant
// counts that too, as a script piped in pays it. Every cell joins the
// session's history, so run with a fixed count of a session's size:
// go test -run '^$' -bench . -benchtime 500x ./repl/worker
func BenchmarkTrivialCell(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		s, err := repl.NewSession(repl.Options{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.Eval(context.Background(), "x := 1"); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Until the reply; the Cells after it are left off the clock.
	untilReply := func(run func(c *worker.Client) error) func(b *testing.B) {
		return func(b *testing.B) {
			c := benchClient(b)
			for b.Loop() {
				if err := run(c); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c.Cells()
				b.StartTimer()
			}
		}
	}
	b.Run("worker-eval", untilReply(func(c *worker.Client) error { _, err := c.Eval("x := 1", false); return err }))
	b.Run("worker-execute", untilReply(func(c *worker.Client) error { _, err := c.Execute("x := 1"); return err }))
	b.Run("worker-execute-back-to-back", func(b *testing.B) {
		c := benchClient(b)
		for b.Loop() {
			if _, err := c.Execute("x := 1"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStart starts a worker (and ends it): the front end's start,
// and a restart without replay.
func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		c, err := worker.Start(worker.Options{Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkRestore50 restarts a worker whose session has 50 small cells
// declaring and using variables, and replays them.
func BenchmarkRestore50(b *testing.B) {
	c := benchClient(b)
	if _, err := c.Eval("func double(n int) int { return 2 * n }", false); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Eval("v0 := 1", false); err != nil {
		b.Fatal(err)
	}
	for i := 1; i < 48; i++ {
		if _, err := c.Eval(fmt.Sprintf("v%d := double(v%d) %% 1000 + %d", i, i-1, i), false); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.Eval(`s := fmt.Sprint(v47)`, false); err != nil {
		b.Fatal(err)
	}
	if n := len(c.Cells()); n != 50 {
		b.Fatalf("%d cells, want 50", n)
	}
	for b.Loop() {
		r, err := c.Restart(true)
		if err != nil || r.Cells != 50 {
			b.Fatalf("restored %+v, %v", r, err)
		}
	}
}

func benchClient(b *testing.B) *worker.Client {
	c, err := worker.Start(worker.Options{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}
