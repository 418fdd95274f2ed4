//go:build linux || darwin || freebsd

package kernel

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// fdCapture redirects a file descriptor (1 or 2) into a pipe whose
// contents go to a stream writer, so that what cells write to os.Stdout
// and os.Stderr directly reaches the notebook too.
type fdCapture struct {
	w      *os.File // the pipe's write end, now also fd
	fd     int
	orig   *os.File // the descriptor as it was
	mu     sync.Mutex
	synced chan struct{}
}

// syncMark is written through the pipe to know it has been read up to
// that point.
var syncMark = []byte("\x00\x1ehybridgo-sync\x1e\x00")

// captureFD redirects fd to dst; the original descriptor is returned
// open for the kernel's own logging.
func captureFD(fd int, dst io.Writer) (*fdCapture, error) {
	origFD, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		unix.Close(origFD)
		return nil, err
	}
	if err := unix.Dup2(int(w.Fd()), fd); err != nil {
		unix.Close(origFD)
		r.Close()
		w.Close()
		return nil, err
	}
	c := &fdCapture{w: w, fd: fd, orig: os.NewFile(uintptr(origFD), "original"), synced: make(chan struct{}, 1)}
	go c.copy(r, dst)
	return c, nil
}

func (c *fdCapture) copy(r *os.File, dst io.Writer) {
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := r.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.Index(pending, syncMark)
			if i < 0 {
				break
			}
			if i > 0 {
				dst.Write(pending[:i])
			}
			pending = pending[i+len(syncMark):]
			select {
			case c.synced <- struct{}{}:
			default:
			}
		}
		// Keep back a tail that may be the start of a mark.
		keep := 0
		for k := len(syncMark) - 1; k > 0; k-- {
			if len(pending) >= k && bytes.Equal(pending[len(pending)-k:], syncMark[:k]) {
				keep = k
				break
			}
		}
		if len(pending) > keep {
			dst.Write(pending[:len(pending)-keep])
			pending = append([]byte(nil), pending[len(pending)-keep:]...)
		}
		if err != nil {
			return
		}
	}
}

// sync returns once everything written to the descriptor so far has been
// passed on.
func (c *fdCapture) sync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.synced:
	default:
	}
	if _, err := c.w.Write(syncMark); err != nil {
		return
	}
	select {
	case <-c.synced:
	case <-time.After(time.Second):
	}
}
