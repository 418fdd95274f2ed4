package repl

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// InternalError is a failure of hybridgo's interpreter rather than of the
// cell's code: a Go runtime error (index out of range, nil dereference…)
// raised inside the interpreter's own code, or a panic that escaped it
// while it compiled the cell. It is a bug to report, with the cell.
type InternalError struct {
	Value any    // what was raised
	Cell  string // the cell's text
	Stack string // the Go stack where it was raised
}

func (e *InternalError) Error() string {
	msg := fmt.Sprintf("internal error in hybridgo's interpreter (please report it, with the cell): %v", e.Value)
	if f := raiser(e.Stack); f != "" {
		msg += " (in " + f + ")"
	}
	if e.Cell != "" {
		msg += "\ncell:\n\t" + strings.ReplaceAll(strings.TrimRight(e.Cell, "\n"), "\n", "\n\t")
	}
	return msg
}

// yaegiInterp prefixes the functions of the interpreter's own package.
const yaegiInterp = "github.com/traefik/yaegi/interp."

// runPanic turns a panic that ended a cell's run into the error to
// report: the user's *PanicError, or an *InternalError when the panic is
// a Go runtime error raised by the interpreter's own code.
//
// The cell's code runs inside the interpreter, so the stack cannot tell
// the user's frames from the interpreter's by package: what tells them
// apart is who raised the panic. The user's panics are raised by the
// panic builtin, by reflect on the user's values (an index out of range
// in interpreted code is reflect's "reflect: slice index out of range"),
// or by compiled code the cell called (hybridgo's ops, the standard
// library); an integer division by zero is the one runtime error that
// the interpreter raises on the user's behalf. Any other runtime error
// raised in a function of yaegi's interp package is the interpreter's.
func runPanic(p interp.Panic, frames []string) error {
	if internalRuntimeError(p.Value, string(p.Stack)) {
		return &InternalError{Value: p.Value, Stack: string(p.Stack)}
	}
	return &PanicError{Value: p.Value, Frames: frames}
}

func internalRuntimeError(v any, stack string) bool {
	if !strings.HasPrefix(raiser(stack), yaegiInterp) {
		return false
	}
	if strings.Contains(stack, "\nlog.Panic") {
		return true // the interpreter's own assertions ("nil type")
	}
	re, ok := v.(runtime.Error)
	return ok && !strings.Contains(re.Error(), "integer divide by zero")
}

// raiser returns the function that raised the innermost panic of a
// debug.Stack text: the first frame after the last "panic(" line that is
// not in the runtime or the log package.
func raiser(stack string) string {
	lines := strings.Split(stack, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			start = i
		}
	}
	if start < 0 {
		return ""
	}
	for _, l := range lines[start+1:] {
		if l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "runtime.") || strings.HasPrefix(l, "log.") {
			continue
		}
		if i := strings.LastIndex(l, "("); i > 0 {
			l = l[:i]
		}
		return l
	}
	return ""
}

// ranPartly reports whether a cell that failed with err may have run
// some of its code (a panic, an interrupt): such a cell is not rolled
// back, as what it did before the failure happened.
func ranPartly(err error) bool {
	var pe *PanicError
	return errors.As(err, &pe) || errors.Is(err, ErrInterrupted)
}

// passThrough reports whether err is a run error that keeps its own
// text, rather than a compile error with a position to map to the cell.
func passThrough(err error) bool {
	var ie *InternalError
	return ranPartly(err) || errors.As(err, &ie)
}
