//go:build !linux

package worker

import (
	"os"
	"os/exec"
)

// limitAddressSpace does nothing here: the worker runs without an
// address space ceiling (the garbage collector's soft limit remains).
func limitAddressSpace(int64) {}

// detach does nothing here: the worker shares the front end's process
// group.
func detach(*exec.Cmd) {}

// directStdout reports false here: the worker's stdout is always a pipe
// that the front end copies.
func directStdout(*os.File) bool { return false }

// silenceStdout is never needed here (see directStdout).
func silenceStdout() (restore func()) { return func() {} }
