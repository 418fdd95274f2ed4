package worker

import (
	"bytes"
	"io"
	"regexp"
	"sync"
)

// stream copies one of the worker's output streams to the front end,
// taking the sync marks out and counting them.
//
// The stderr stream (hold set) also holds back each line that may start
// a fatal message of the Go runtime ("panic: ", "fatal error: ",
// "runtime: ", …) with the lines after it, until the next sync mark shows
// it was a cell's own output (then it is passed on), or a line that only
// a dying runtime writes ("goroutine 7 [running]:", "fatal error: …")
// confirms it (then it is kept for the diagnosis and never shown).
type stream struct {
	dest func() io.Writer
	hold bool

	mu    sync.Mutex
	cond  *sync.Cond
	marks int
	eof   bool

	// The copying goroutine's own, read by others after eof.
	line    []byte // the line being read, without its end
	midline bool   // the start of line was passed on already
	held    []byte
	fatal   bool
}

// heldLimit bounds what a fatal message keeps: its start is what the
// diagnosis reads.
const heldLimit = 1 << 20

func newStream(dest func() io.Writer, hold bool) *stream {
	s := &stream{dest: dest, hold: hold}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// copy reads r until it ends.
func (s *stream) copy(r io.Reader) {
	mark := []byte(syncMark)
	buf := make([]byte, 32<<10)
	var data []byte
	for {
		n, err := r.Read(buf)
		data = append(data, buf[:n]...)
		for {
			i := bytes.Index(data, mark)
			if i < 0 {
				break
			}
			s.write(data[:i])
			s.flush()
			s.mu.Lock()
			s.marks++
			s.cond.Broadcast()
			s.mu.Unlock()
			data = data[i+len(mark):]
		}
		k := partialMark(data)
		if err != nil {
			k = 0
		}
		s.write(data[:len(data)-k])
		data = append([]byte(nil), data[len(data)-k:]...)
		if err != nil {
			s.flush()
			s.mu.Lock()
			s.eof = true
			s.cond.Broadcast()
			s.mu.Unlock()
			return
		}
	}
}

// partialMark is the length of the longest end of data that begins a
// sync mark.
func partialMark(data []byte) int {
	for k := min(len(syncMark)-1, len(data)); k > 0; k-- {
		if string(data[len(data)-k:]) == syncMark[:k] {
			return k
		}
	}
	return 0
}

// write passes p on, line by line on stderr.
func (s *stream) write(p []byte) {
	if len(p) == 0 {
		return
	}
	if !s.hold {
		s.dest().Write(p)
		return
	}
	s.line = append(s.line, p...)
	for {
		i := bytes.IndexByte(s.line, '\n')
		if i < 0 {
			break
		}
		s.takeLine(s.line[:i+1])
		s.line = s.line[i+1:]
		s.midline = false
	}
	s.line = append([]byte(nil), s.line...)
	// A partial line that cannot start a fatal message goes at once.
	if len(s.line) > 0 && len(s.held) == 0 && !s.fatal && (s.midline || !mayBeFatal(s.line)) {
		s.dest().Write(s.line)
		s.line, s.midline = nil, true
	}
}

// takeLine passes a line on or holds it.
func (s *stream) takeLine(l []byte) {
	switch {
	case s.midline:
		s.dest().Write(l)
	case s.fatal || len(s.held) > 0 || suspect(l):
		if len(s.held) < heldLimit {
			s.held = append(s.held, l...)
		}
		s.fatal = s.fatal || fatalLine(l)
	default:
		s.dest().Write(l)
	}
}

// flush ends a partial line at a sync mark or the stream's end, and
// passes on what was held unless it was a fatal message.
func (s *stream) flush() {
	if len(s.line) > 0 {
		s.takeLine(s.line)
		s.line, s.midline = nil, false
	}
	if len(s.held) > 0 && !s.fatal {
		s.dest().Write(s.held)
		s.held = nil
	}
}

// waitMarks waits until n sync marks were read, or the stream ended.
func (s *stream) waitMarks(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.marks < n && !s.eof {
		s.cond.Wait()
	}
}

// waitEnd waits for the stream's end and returns the fatal message it
// held back, if any.
func (s *stream) waitEnd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.eof {
		s.cond.Wait()
	}
	return string(s.held)
}

// suspectPrefixes start the lines that may begin a fatal message.
var suspectPrefixes = []string{"panic: ", "fatal error: ", "runtime: ", "unexpected fault address",
	"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGQUIT", "SIGTRAP"}

func suspect(l []byte) bool {
	for _, p := range suspectPrefixes {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

// mayBeFatal reports whether a partial line may still become a suspect
// one.
func mayBeFatal(partial []byte) bool {
	for _, p := range suspectPrefixes {
		if bytes.HasPrefix([]byte(p), partial) || bytes.HasPrefix(partial, []byte(p)) {
			return true
		}
	}
	return false
}

var goroutineRE = regexp.MustCompile(`^goroutine \d+ .*\[.*\]:\s*$`)

// fatalLine reports whether only a dying Go runtime writes l.
func fatalLine(l []byte) bool {
	return bytes.HasPrefix(l, []byte("fatal error: ")) || goroutineRE.Match(l)
}
