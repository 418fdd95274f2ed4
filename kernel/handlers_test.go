package kernel

import (
	"errors"
	"testing"

	"github.com/hybridgo/hybridgo/repl/worker"
)

// TestDescribeError checks the name, value and first traceback line that
// the notebook shows for each kind of failed cell, as the worker reports
// it.
func TestDescribeError(t *testing.T) {
	for _, tc := range []struct {
		err                  error
		ename, evalue, first string
	}{
		{&worker.CellError{Kind: "interrupted", Message: "interrupted: context canceled"}, "Interrupted", interruptedText,
			"\x1b[31mInterrupted\x1b[0m: " + interruptedText},
		{&worker.CellError{Kind: "compile", Message: "1:1: undefined: x"}, "CompileError", "1:1: undefined: x",
			"\x1b[31mCompileError\x1b[0m: 1:1: undefined: x"},
		{&worker.CellError{Kind: "panic", Message: "panic: boom\n\tat f"}, "Panic", "boom", "\x1b[31mPanic\x1b[0m: panic: boom"},
		{&worker.CellError{Kind: "error", Message: "bad"}, "Error", "bad", "\x1b[31mError\x1b[0m: bad"},
		{errors.New("bad"), "Error", "bad", "\x1b[31mError\x1b[0m: bad"},
		{&worker.Death{Cause: worker.StackOverflow, Input: 3, Text: "f(0)", During: true, Func: "f"}, "StackOverflow",
			"stack overflow in f, called in cell 3 (f(0)): infinite recursion? session restarted",
			"\x1b[31mStackOverflow\x1b[0m: stack overflow in f, called in cell 3 (f(0)): infinite recursion? session restarted"},
		{&worker.Death{Cause: worker.OutOfMemory, Detail: "40 GiB", Input: 2, Text: "b := make([]byte, 40<<30)", During: true}, "OutOfMemory",
			"out of memory allocating 40 GiB in cell 2 (b := make([]byte, 40<<30)), session restarted",
			"\x1b[31mOutOfMemory\x1b[0m: out of memory allocating 40 GiB in cell 2 (b := make([]byte, 40<<30)), session restarted"},
	} {
		ename, evalue, tb := describeError(tc.err)
		if ename != tc.ename || evalue != tc.evalue || len(tb) == 0 || tb[0] != tc.first {
			t.Errorf("describeError(%v) = %q, %q, %q; want %q, %q, first line %q",
				tc.err, ename, evalue, tb, tc.ename, tc.evalue, tc.first)
		}
	}
}
