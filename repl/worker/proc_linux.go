package worker

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// addressSpace is the process's virtual size (VmSize) in bytes.
func addressSpace() int64 { return procBytes("/proc/self/status", "VmSize:") }

// limitAddressSpace caps the process's address space (RLIMIT_AS) at n
// bytes more than it has now: an allocation past it fails, and the Go
// runtime ends the process with "out of memory". What the process has
// reserved already (the Go runtime's and the C library's reservations,
// over a gigabyte of address space that uses little memory) does not
// count against n.
func limitAddressSpace(n int64) {
	var old syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &old) != nil {
		return
	}
	lim := syscall.Rlimit{Cur: uint64(addressSpace() + n), Max: old.Max}
	if old.Max < lim.Cur {
		lim.Cur = old.Max
	}
	syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
}

// detach starts the worker in a process group of its own, so that the
// terminal's Ctrl-C reaches the front end alone (which turns it into an
// interrupt request).
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// directStdout reports whether the worker should write to f itself: a
// terminal, so that what cells draw there (progress bars) sees one.
func directStdout(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// silenceStdout points file descriptor 1 at /dev/null until restore is
// called: a replay's output, when stdout is the terminal itself.
func silenceStdout() (restore func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	defer null.Close()
	saved, err := unix.Dup(1)
	if err != nil {
		return func() {}
	}
	if unix.Dup2(int(null.Fd()), 1) != nil {
		unix.Close(saved)
		return func() {}
	}
	return func() {
		unix.Dup2(saved, 1)
		unix.Close(saved)
	}
}
