package ops

import (
	"errors"
	"fmt"
	"strings"
)

// Error is what an op reports about bad input: the op, what was wrong, and
// the inputs and attributes it was given. Block is filled in by the layer
// that runs the op inside a block, so the message can name where it happened.
type Error struct {
	Op     string   // the op's MXNet name
	Block  string   // the block that called it, when known
	Msg    string   // what was wrong, e.g. "data 16x3x28x28 has 3 channels, weight 6x1x5x5 expects 1 (num_group=1)"
	Inputs []string // "data 16x3x28x28 float32", one per input
	Attrs  string   // the attributes given, "kernel=(5, 5) num_filter=6"
	Err    error    // the underlying error, if any
}

// Error prints "Convolution: <what was wrong> [inputs: ...; attrs: ...]".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Block != "" {
		fmt.Fprintf(&b, "in block %s: ", e.Block)
	}
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if len(e.Inputs) > 0 || e.Attrs != "" {
		b.WriteString(" [")
		if len(e.Inputs) > 0 {
			b.WriteString("inputs: " + strings.Join(e.Inputs, ", "))
		}
		if e.Attrs != "" {
			if len(e.Inputs) > 0 {
				b.WriteString("; ")
			}
			b.WriteString("attrs: " + e.Attrs)
		}
		b.WriteString("]")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an error for an op's rules to return; the registry adds the
// op's name, inputs and attributes around it.
func Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// AsError returns err as an *Error if it is one (or wraps one).
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
