package term

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/worker"
)

// Worker is the main of the worker process that Main starts (hybridgo's
// hidden "worker" command): a session and a REPL on it, whose output
// goes to the process's stdout and stderr, served to the front end.
func Worker() int {
	return worker.Main(func(*worker.Server) (*repl.Session, worker.Inputs, error) {
		s, err := repl.NewSession(repl.Options{Stdout: os.Stdout, Stderr: os.Stderr})
		if err != nil {
			return nil, nil, err
		}
		return s, New(s, os.Stdout, os.Stderr), nil
	})
}

// remote is the Backend of Main: the REPL runs in a worker process,
// which is started again when a cell ends it.
type remote struct {
	c      *worker.Client
	errOut io.Writer
	replay bool
}

func startRemote(stdout, stderr io.Writer, opts Options) (*remote, error) {
	c, err := worker.Start(worker.Options{Stdout: stdout, Stderr: stderr, MemoryLimit: opts.MemoryLimit, Columns: screenWidth})
	if err != nil {
		return nil, err
	}
	return &remote{c: c, errOut: stderr, replay: !opts.NoReplay}, nil
}

// Execute runs input in the worker; :restart is the front end's own.
func (b *remote) Execute(input string) (quit bool) {
	if c, ok := ParseCommand(input); ok && c.Name == "restart" {
		return !b.cmdRestart(c)
	}
	if !b.revive() {
		return true
	}
	quit, err := b.c.Execute(input)
	if err != nil && !b.recover(err) {
		return true
	}
	return quit
}

func (b *remote) Interrupt() bool { return b.c.Interrupt() }

func (b *remote) IsComplete(code string) (string, string) {
	if !b.revive() {
		return "complete", ""
	}
	return b.c.IsComplete(code)
}

func (b *remote) Complete(code string, cursor int) ([]string, int) {
	return b.c.Complete(code, cursor)
}

// revive restarts a worker that died between inputs (a goroutine's
// panic after its cell ended). It reports whether the REPL can go on.
func (b *remote) revive() bool {
	if d := b.c.Dead(); d != nil {
		return b.recover(d)
	}
	return true
}

// recover prints an error of the worker's; when the worker died, it says
// why in one line and restarts it. It reports whether the REPL can go
// on.
func (b *remote) recover(err error) bool {
	var d *worker.Death
	if !errors.As(err, &d) {
		fmt.Fprintln(b.errOut, "error:", err)
		return true
	}
	if b.replay {
		fmt.Fprintln(b.errOut, d.Restarted("session restarted"))
	} else {
		fmt.Fprintln(b.errOut, d.Restarted("session restarted empty (-no-replay)"))
	}
	return b.restart(b.replay)
}

// restart starts a new worker, with the cells replayed or not, and
// reports it.
func (b *remote) restart(replay bool) bool {
	r, err := b.c.Restart(replay)
	if err != nil {
		fmt.Fprintln(b.errOut, "hybridgo: the worker could not start again:", err)
		return false
	}
	if replay {
		fmt.Fprint(b.errOut, r.Report())
	}
	return true
}

// cmdRestart is :restart [-no-replay].
func (b *remote) cmdRestart(c Command) bool {
	switch {
	case len(c.Args) == 0:
		return b.restart(true)
	case len(c.Args) == 1 && c.Args[0] == "-no-replay":
		if !b.restart(false) {
			return false
		}
		fmt.Fprintln(b.errOut, "the session was restarted empty")
		return true
	}
	spec, _ := lookupCommand("restart")
	fmt.Fprintf(b.errOut, "error: :restart takes -no-replay or nothing; usage: %s\n", spec.usage)
	return true
}
