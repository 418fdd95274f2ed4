package worker

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// The fatal messages in testdata were written by Go's runtime: by
// hybridgo's REPL before it had a worker (a stack overflow, a goroutine's
// panic, a huge allocation with and without an address space limit) and
// by a small program writing a map from four goroutines.
func TestDiagnose(t *testing.T) {
	for _, c := range []struct {
		file   string
		cause  Cause
		detail string
	}{
		{"stack-overflow.txt", StackOverflow, ""},
		{"goroutine-panic.txt", GoroutinePanic, "boom"},
		{"out-of-memory.txt", OutOfMemory, "40 GiB"},
		{"out-of-memory-limit.txt", OutOfMemory, "40 GiB"},
		{"concurrent-map-writes.txt", FatalError, "concurrent map writes"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if cause, detail := Diagnose(string(b), nil); cause != c.cause || detail != c.detail {
			t.Errorf("%s: %v %q, want %v %q", c.file, cause, detail, c.cause, c.detail)
		}
	}
}

func TestDiagnoseExitStatus(t *testing.T) {
	for _, c := range []struct {
		script string
		cause  Cause
		detail string
	}{
		{"kill -9 $$", Killed, "signal: killed"},
		{"exit 3", Exited, "exit status 3"},
	} {
		cmd := exec.Command("sh", "-c", c.script)
		cmd.Run()
		if cause, detail := Diagnose("", cmd.ProcessState); cause != c.cause || detail != c.detail {
			t.Errorf("%s: %v %q, want %v %q", c.script, cause, detail, c.cause, c.detail)
		}
	}
}

func TestDeathMessages(t *testing.T) {
	for _, c := range []struct {
		d    Death
		want string
	}{
		{Death{Cause: StackOverflow, Input: 3, Text: "f(0)", During: true},
			"stack overflow in cell 3 (f(0)): infinite recursion? session restarted"},
		{Death{Cause: StackOverflow, Input: 3, Text: "f(0)", During: true, Func: "f"},
			"stack overflow in f, called in cell 3 (f(0)): infinite recursion? session restarted"},
		{Death{Cause: OutOfMemory, Detail: "40 GiB", Input: 5, Text: "b := make([]byte, 40<<30)", During: true, Limit: 18 << 30},
			"out of memory allocating 40 GiB in cell 5 (b := make([]byte, 40<<30)) (the limit is 18 GiB; hybridgo -memory changes it), session restarted"},
		{Death{Cause: GoroutinePanic, Detail: "boom", Input: 12, Text: "go work()", During: true},
			"panic in a goroutine during cell 12 (go work()): boom, session restarted"},
		{Death{Cause: GoroutinePanic, Detail: "boom", Input: 12, Text: "go work()"},
			"panic in a goroutine after cell 12 (go work()): boom, session restarted"},
		{Death{Cause: Killed, Detail: "signal: killed", Input: 2, Text: "train()", During: true},
			"the worker was killed (signal: killed) in cell 2 (train()): out of memory? (the system's OOM killer), session restarted"},
		{Death{Cause: Exited, Detail: "exit status 1"},
			"the worker ended (exit status 1) while starting, session restarted"},
	} {
		if got := c.d.Restarted("session restarted"); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.d, got, c.want)
		}
	}
}

func TestRecursiveCallee(t *testing.T) {
	for _, c := range []struct {
		cells []string
		input string
		want  string
	}{
		{[]string{"func f(n int) int { return f(n+1) + 1 }"}, "f(0)", "f"},
		{[]string{"func g() {}", "func f(n int) int { return f(n+1) + 1 }"}, "x := g(); y := f(1)", "f"},
		{nil, "func h(x interface{}) struct{ a int } { return h(x) }\nh(1)", "h"},
		{[]string{"type T struct{}", "func (t *T) Walk(n int) { t.Walk(n) }"}, "t.Walk(3)", "Walk"},
		{[]string{"func f(n int) int { return g(n) }", "func g(n int) int { return f(n) }"}, "f(0)", ""},
		{[]string{"func f(n int) int { return n }"}, "f(0)", ""},
	} {
		if got := recursiveCallee(c.cells, c.input); got != c.want {
			t.Errorf("%q then %q: %q, want %q", c.cells, c.input, got, c.want)
		}
	}
}

// A stream passes output on, takes sync marks out wherever reads cut
// them, holds back a fatal message and releases a cell's own lines that
// only looked like one.
func TestStream(t *testing.T) {
	for _, c := range []struct {
		name, in, out, held string
		marks               int
	}{
		{"plain", "a\nb" + syncMark + "c\n", "a\nbc\n", "", 1},
		{"cell's panic line", "panic: boom\n\t1:1: main(...)\n" + syncMark + "next\n", "panic: boom\n\t1:1: main(...)\nnext\n", "", 1},
		{"fatal", "x\nfatal error: stack overflow\n\nruntime stack:\n", "x\n", "fatal error: stack overflow\n\nruntime stack:\n", 0},
		{"goroutine panic", "panic: boom\n\ngoroutine 7 [running]:\nmain.f()\n" + syncMark, "", "panic: boom\n\ngoroutine 7 [running]:\nmain.f()\n", 1},
		{"partial line", "progress 10%" + syncMark + syncMark, "progress 10%", "", 2},
	} {
		var out strings.Builder
		s := newStream(func() io.Writer { return &out }, true)
		s.copy(iotest.OneByteReader(strings.NewReader(c.in))) // every mark cut
		if held := s.waitEnd(); out.String() != c.out || held != c.held || s.marks != c.marks {
			t.Errorf("%s: passed %q, held %q, %d marks; want %q, %q, %d", c.name, out.String(), held, s.marks, c.out, c.held, c.marks)
		}
	}
}

func TestParseAndFormatMemory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"8GiB", 8 << 30}, {"512MiB", 512 << 20}, {"2G", 2 << 30}, {"1.5GiB", 3 << 29}, {"off", -1}, {"1000", 1000},
	} {
		if got, err := ParseMemory(c.in); err != nil || got != c.want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GiB", "150%"} {
		if _, err := ParseMemory(bad); err == nil {
			t.Errorf("ParseMemory(%q) gave no error", bad)
		}
	}
	if PhysicalMemory() > 0 {
		if half, err := ParseMemory("50%"); err != nil || half != PhysicalMemory()/2 {
			t.Errorf("50%% = %d, %v; physical memory %d", half, err, PhysicalMemory())
		}
	}
	for n, want := range map[int64]string{40 << 30: "40 GiB", 1536 << 10: "1.5 MiB", 100: "100 B", 18<<30 + 900<<20: "18.9 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
