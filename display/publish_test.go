package display

import (
	"bytes"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

type call struct {
	b      Bundle
	id     string
	update bool
}

// recorder is a Publisher that keeps every call.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) Display(b Bundle, id string, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{b, id, update})
}

func withPublisher(t *testing.T, p Publisher) {
	t.Helper()
	SetPublisher(p)
	t.Cleanup(func() { SetPublisher(nil) })
}

// captureStdout runs f with os.Stdout going to a pipe and returns what f
// wrote.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		done <- b.String()
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	return <-done
}

func TestDisplayFunctions(t *testing.T) {
	rec := &recorder{}
	withPublisher(t, rec)
	HTML("<b>hi</b>")
	Markdown("# title")
	SVG("<svg/>")
	PNG([]byte{1, 2, 3})
	JSON([]int{1, 2})
	Show(7)
	want := []string{MIMEHTML, MIMEMarkdown, MIMESVG, MIMEPNG, MIMEJSON, MIMEText}
	if len(rec.calls) != len(want) {
		t.Fatalf("%d displays, want %d", len(rec.calls), len(want))
	}
	for i, c := range rec.calls {
		if c.id != "" || c.update {
			t.Errorf("call %d: id %q update %v", i, c.id, c.update)
		}
		if _, ok := c.b[want[i]]; !ok {
			t.Errorf("call %d has no %s: %v", i, want[i], keys(c.b))
		}
		if c.b.Text() == "" {
			t.Errorf("call %d has no text/plain", i)
		}
	}
	if rec.calls[3].b[MIMEPNG] != "AQID" {
		t.Errorf("PNG base64 %v", rec.calls[3].b[MIMEPNG])
	}
}

func TestHandleUpdateSameID(t *testing.T) {
	rec := &recorder{}
	withPublisher(t, rec)
	h := NewHandle()
	h.Show("first")
	h.Update("second")
	h.Update("third")
	if len(rec.calls) != 3 {
		t.Fatalf("%d calls", len(rec.calls))
	}
	if rec.calls[0].update || !rec.calls[1].update || !rec.calls[2].update {
		t.Errorf("update flags %v %v %v", rec.calls[0].update, rec.calls[1].update, rec.calls[2].update)
	}
	for _, c := range rec.calls {
		if c.id != h.ID() || c.id == "" {
			t.Errorf("id %q, want %q", c.id, h.ID())
		}
	}
	if rec.calls[2].b.Text() != "third" {
		t.Errorf("last update %v", rec.calls[2].b)
	}
	if NewHandle().ID() == h.ID() {
		t.Error("two handles share an id")
	}
}

func TestFallbackPrintsText(t *testing.T) {
	SetPublisher(nil)
	out := captureStdout(t, func() {
		HTML("<b>x</b>")
		Markdown("**bold**")
		Show(42)
		h := NewHandle()
		h.Show("a")
		h.Update("b")
	})
	if want := "<b>x</b>\n**bold**\n42\na\nb\n"; out != want {
		t.Errorf("terminal output %q, want %q", out, want)
	}
}

// fakeClock is a manual clock for Progress.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func testProgress(total int, c *fakeClock) *Progress {
	return newProgress(total, "mnist", c.now)
}

func TestProgressThrottle(t *testing.T) {
	rec := &recorder{}
	withPublisher(t, rec)
	c := newFakeClock()
	p := testProgress(100, c)
	// 100 steps 5ms apart: 0.5s, so about 5 bar updates, plus the first
	// and the last.
	for i := 0; i < 100; i++ {
		c.advance(5 * time.Millisecond)
		p.Step(1)
	}
	var bars []call
	for _, cl := range rec.calls {
		if cl.id == p.bar.ID() {
			bars = append(bars, cl)
		}
	}
	if len(bars) < 3 || len(bars) > 8 {
		t.Errorf("%d bar updates for 100 steps in 0.5s", len(bars))
	}
	if bars[0].update {
		t.Error("first bar display is an update")
	}
	for _, b := range bars[1:] {
		if !b.update {
			t.Error("later bar display is not an update")
		}
	}
	last := bars[len(bars)-1].b
	if want := "mnist epoch 1 [" + strings.Repeat("=", barWidth) + "] 100/100 loss 1 1s"; last.Text() != want {
		t.Errorf("last bar %q, want %q", last.Text(), want)
	}
	if h := str(t, last, MIMEHTML); !strings.Contains(h, "width:100.0%") {
		t.Errorf("bar HTML %s", h)
	}
}

func TestProgressBarText(t *testing.T) {
	c := newFakeClock()
	p := testProgress(469, c)
	p.step, p.lossSum, p.lossN, p.start = 120, 0.53*120, 120, c.t
	c.advance(12 * time.Second)
	got := p.barText(c.now())
	want := "mnist epoch 1 [======>                       ] 120/469 loss 0.53 ETA 35s"
	if got != want {
		t.Errorf("bar\n%q, want\n%q", got, want)
	}
	if got := formatDuration(3725 * time.Second); got != "1h02m05s" {
		t.Errorf("formatDuration %q", got)
	}
	if got := barString(0, 10); got != ">"+strings.Repeat(" ", barWidth-1) {
		t.Errorf("empty bar %q", got)
	}
}

func TestProgressEpochChart(t *testing.T) {
	rec := &recorder{}
	withPublisher(t, rec)
	c := newFakeClock()
	p := testProgress(10, c)
	for e := 0; e < 3; e++ {
		for i := 0; i < 10; i++ {
			c.advance(time.Second)
			p.Step(2 - float64(e)*0.5)
		}
		p.Epoch(2-float64(e)*0.5, 2.1-float64(e)*0.4, 0.5+0.1*float64(e))
	}
	p.Done()
	var charts []call
	for _, cl := range rec.calls {
		if cl.id == p.chart.ID() {
			charts = append(charts, cl)
		}
	}
	if len(charts) != 3 || charts[0].update || !charts[1].update || !charts[2].update {
		t.Fatalf("chart displays %d (want 3, shown then updated)", len(charts))
	}
	b := charts[2].b
	svg := str(t, b, MIMESVG)
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "validation loss") {
		t.Errorf("chart SVG %.200s", svg)
	}
	text := b.Text()
	if !strings.Contains(text, "epoch 3: train 1 val 1.3 acc 0.7000") {
		t.Errorf("chart text %q", text)
	}
	if h := str(t, b, MIMEHTML); strings.Count(h, "<tr>") != 4 {
		t.Errorf("epoch table: %s", h)
	}
	// The bar was reused across epochs: one id, shown once.
	shows := 0
	for _, cl := range rec.calls {
		if cl.id == p.bar.ID() && !cl.update {
			shows++
		}
	}
	if shows != 1 {
		t.Errorf("bar shown %d times", shows)
	}
}

func TestProgressTerminal(t *testing.T) {
	SetPublisher(nil)
	c := newFakeClock()
	var out bytes.Buffer
	p := testProgress(4, c)
	p.out = func() io.Writer { return &out }
	p.terminal = func() bool { return true }
	for e := 0; e < 2; e++ {
		for i := 0; i < 4; i++ {
			c.advance(time.Second)
			p.Step(1 / float64(e+1))
		}
		p.Epoch(1/float64(e+1), math.NaN(), math.NaN())
	}
	c.advance(time.Second)
	p.Step(0.25) // an epoch not closed: Done ends the line
	p.Done()
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 6 || lines[5] != "" {
		t.Fatalf("output lines %q", lines)
	}
	if !strings.HasPrefix(lines[0], "\rmnist epoch 1 [") || strings.Count(lines[0], "\r") != 4 {
		t.Errorf("first bar line %q: want 4 redraws", lines[0])
	}
	if !strings.HasSuffix(lines[0], "] 4/4 loss 1 4s\x1b[K") {
		t.Errorf("completed bar %q", lines[0])
	}
	if lines[1] != "epoch 1: train 1  ▄" {
		t.Errorf("epoch line %q", lines[1])
	}
	if lines[3] != "epoch 2: train 0.5  █▁" {
		t.Errorf("epoch line %q", lines[3])
	}
	if !strings.Contains(lines[4], "1/4 loss 0.25 ETA 3s") {
		t.Errorf("open epoch %q", lines[4])
	}
}
