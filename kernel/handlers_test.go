package kernel

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hybridgo/hybridgo/repl"
)

// TestDescribeError checks the name, value and first traceback line that
// the notebook shows for each kind of failed cell.
func TestDescribeError(t *testing.T) {
	for _, tc := range []struct {
		err                  error
		ename, evalue, first string
	}{
		{fmt.Errorf("%w: %v", repl.ErrInterrupted, context.Canceled), "Interrupted", interruptedText,
			"\x1b[31mInterrupted\x1b[0m: " + interruptedText},
		{&repl.CompileError{Line: 1, Col: 1, Msg: "undefined: x"}, "CompileError", "1:1: undefined: x",
			"\x1b[31mCompileError\x1b[0m: 1:1: undefined: x"},
		{&repl.PanicError{Value: "boom"}, "Panic", "boom", "\x1b[31mPanic\x1b[0m: panic: boom"},
		{errors.New("bad"), "Error", "bad", "\x1b[31mError\x1b[0m: bad"},
	} {
		ename, evalue, tb := describeError(tc.err)
		if ename != tc.ename || evalue != tc.evalue || len(tb) == 0 || tb[0] != tc.first {
			t.Errorf("describeError(%v) = %q, %q, %q; want %q, %q, first line %q",
				tc.err, ename, evalue, tb, tc.ename, tc.evalue, tc.first)
		}
	}
}
