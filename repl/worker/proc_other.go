//go:build !linux

package worker

import "os/exec"

// limitAddressSpace does nothing here: the worker runs without an
// address space ceiling (the garbage collector's soft limit remains).
func limitAddressSpace(int64) {}

// detach does nothing here: the worker shares the front end's process
// group.
func detach(*exec.Cmd) {}
