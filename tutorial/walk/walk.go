package walk

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/chzyer/readline"

	"github.com/hybridgo/hybridgo/repl"
	"github.com/hybridgo/hybridgo/repl/term"
	"github.com/hybridgo/hybridgo/tutorial"
)

// Options configures a walkthrough.
type Options struct {
	// In is what the reader types. When it is a terminal the walkthrough
	// reads with line editing; otherwise it reads lines as they come,
	// without prompts (so `yes "" | hybridgo tutorial NAME` runs every step).
	In *os.File
	// Out and Err receive the prose, the cells' output and the checks,
	// and the errors.
	Out, Err io.Writer
	// Color turns on ANSI colours and bold (Main sets it for a terminal
	// unless NO_COLOR is set).
	Color bool
	// Dir, when set, is named in the header as where files the tutorial
	// writes go (the current directory), a directory removed when the
	// walkthrough ends (Main makes it and removes it).
	Dir string
}

// Walk is one walkthrough of one tutorial in one REPL session.
type Walk struct {
	t     *tutorial.Tutorial
	name  string
	opt   Options
	r     *term.REPL
	in    lineReader
	cap   *capture
	style style

	interactive                          bool // reading a terminal, with line editing
	cells, ran, matched, skipped, edited int
	differ                               []int // cells whose output differed from the tutorial's
}

// New prepares the walkthrough of t, called name in what it prints.
func New(t *tutorial.Tutorial, name string, opt Options) (*Walk, error) {
	if opt.In == nil {
		opt.In = os.Stdin
	}
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	if opt.Err == nil {
		opt.Err = os.Stderr
	}
	c := &capture{}
	out := &tee{w: opt.Out, c: c}
	errOut := &tee{w: opt.Err, c: c}
	s, err := repl.NewSession(repl.Options{Stdout: out, Stderr: errOut})
	if err != nil {
		return nil, err
	}
	w := &Walk{t: t, name: name, opt: opt, r: term.New(s, out, errOut), cap: c, style: style{on: opt.Color}}
	for _, st := range t.Steps {
		if st.Kind == tutorial.Code {
			w.cells++
		}
	}
	return w, nil
}

// Run walks through the tutorial: prose, then each cell shown and run at
// the reader's word, its output checked against the tutorial's. After the
// last cell the session stays open as a plain REPL until Ctrl-D or
// :quit, when the input is a terminal. It returns the process exit code: 0, also when the reader quits
// early.
func (w *Walk) Run() int {
	stop := term.CatchInterrupts(w.r)
	defer stop()
	in, err := newLineReader(w.opt, w.r)
	if err != nil {
		fmt.Fprintln(w.opt.Err, "hybridgo tutorial:", err)
		return 1
	}
	defer in.Close()
	w.in = in
	_, w.interactive = in.(*editReader)

	w.printf("%s\n", w.style.title(fmt.Sprintf("%s — %s, %d cells", w.name, titleOf(w.t), w.cells)))
	w.printf("%s\n", w.style.dim("Each cell is shown, then Enter runs it and checks what it prints.\n"+
		":edit changes it first, :skip passes it, :quit stops, :help lists the rest.\n"+
		"Anything else you type is Go, or a REPL command such as :graph net,\n"+
		"run in the same session."))
	if w.opt.Dir != "" {
		w.printf("%s\n", w.style.dim("Files the tutorial writes go to "+w.opt.Dir+", removed when you quit"))
	}
	w.printf("\n")
	k := 0
	for _, st := range w.t.Steps {
		if st.Kind == tutorial.Prose {
			w.printf("%s\n\n", w.style.prose(st.Text))
			continue
		}
		k++
		if quit := w.step(st, k); quit {
			w.summary(false)
			return 0
		}
	}
	w.summary(true)
	if w.interactive {
		w.printf("%s\n", w.style.dim("The session goes on: try your own code. Ctrl-D or :quit leaves."))
		w.free()
	}
	return 0
}

// step shows cell k and reads what to do until the reader runs or skips
// it; it reports whether the reader quit.
func (w *Walk) step(st tutorial.Step, k int) (quit bool) {
	w.printf("%s\n", w.style.code(st.Text))
	prompt := fmt.Sprintf("[%d/%d] ▶ ", k, w.cells)
	ran := false // the cell ran and its output differed: Enter goes on
	for {
		line, err := w.in.ReadLine(prompt, "")
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue
		case err != nil: // end of input
			w.printf("\n")
			return true
		}
		cmd := strings.TrimSpace(line)
		switch cmd {
		case "":
			if ran {
				return false
			}
			if w.check(st, k, st.Text, false) {
				return false
			}
			ran = true
			prompt = fmt.Sprintf("[%d/%d] Enter goes on · :again · :edit ▶ ", k, w.cells)
		case ":again", ":a":
			if w.check(st, k, st.Text, false) {
				return false
			}
		case ":edit", ":e":
			code, ok := w.edit(st.Text)
			if !ok {
				continue
			}
			w.edited++
			if w.check(st, k, code, true) {
				return false
			}
			ran = true
			prompt = fmt.Sprintf("[%d/%d] Enter goes on · :again · :edit ▶ ", k, w.cells)
		case ":skip", ":s":
			w.skipped++
			w.printf("%s\n", w.style.dim("skipped: later cells may need what it defines."))
			return false
		case ":quit", ":q":
			return true
		case ":help", ":h", "?":
			w.help()
		default:
			if w.free1(line) {
				return true
			}
		}
	}
}

// check runs code as cell k and compares what it printed with the
// tutorial's output block; it reports whether they match.
func (w *Walk) check(st tutorial.Step, k int, code string, edited bool) bool {
	w.cap.start()
	restore := w.captureStdout()
	quit := w.r.Execute(code)
	restore()
	got := strings.TrimRight(w.cap.stop(), "\n")
	w.ran++
	_ = quit // a cell cannot be ":quit"
	if tutorial.Match(st.Expected, got) {
		w.matched++
		mark := "✓ as the tutorial shows"
		if st.Expected == "" && got == "" {
			mark = "✓ (prints nothing, as in the tutorial)"
		}
		w.printf("%s\n\n", w.style.ok(mark))
		return true
	}
	if len(w.differ) == 0 || w.differ[len(w.differ)-1] != k {
		w.differ = append(w.differ, k)
	}
	why := "✗ the tutorial shows"
	if edited {
		why = "≠ your edit printed something other than the tutorial's cell, which shows"
	}
	if strings.Contains(st.Expected, "…") {
		why += " (… stands for anything)"
	}
	w.printf("%s\n", w.style.bad(why+":"))
	if st.Expected == "" {
		w.printf("%s\n", w.style.dim("    (nothing)"))
	} else {
		w.printf("%s\n", w.style.dim(indent(st.Expected)))
	}
	return false
}

// captureStdout points os.Stdout at a pipe whose contents go to the
// terminal and the capture, as the tutorial's checker points it at a
// file: what compiled code prints there (a progress bar, a display
// without a notebook) is then checked too, and prints as it does when
// the tutorial is checked (a progress bar prints its final lines rather
// than redrawing one). restore puts os.Stdout back once all is copied.
func (w *Walk) captureStdout() (restore func()) {
	r, pw, err := os.Pipe()
	if err != nil {
		return func() {}
	}
	saved := os.Stdout
	os.Stdout = pw
	done := make(chan struct{})
	go func() {
		io.Copy(&tee{w: w.opt.Out, c: w.cap}, r)
		r.Close()
		close(done)
	}()
	return func() {
		os.Stdout = saved
		pw.Close()
		<-done
	}
}

// edit puts the cell's lines at the prompt one by one, ready to change;
// Enter keeps a line. Lines past the cell's are typed freely until the
// code is whole. Ctrl-C gives up the edit.
func (w *Walk) edit(code string) (string, bool) {
	w.printf("%s\n", w.style.dim("Each line comes up ready to change; Enter keeps it, Ctrl-C gives up."))
	lines := strings.Split(code, "\n")
	var done []string
	for i := 0; ; i++ {
		prompt := term.ContinuePrompt
		if i == 0 {
			prompt = term.Prompt
		}
		preset := ""
		if i < len(lines) {
			preset = lines[i]
		}
		line, err := w.in.ReadLine(prompt, preset)
		if err != nil {
			w.printf("%s\n", w.style.dim("edit given up"))
			return "", false
		}
		done = append(done, line)
		if i+1 < len(lines) {
			continue
		}
		joined := strings.Join(done, "\n")
		if status, _ := w.r.Session().IsComplete(joined); status != "incomplete" {
			return joined, true
		}
	}
}

// free1 runs what the reader typed at a step's prompt: Go, finished on
// the lines that follow while it is incomplete, or a REPL command. It
// reports whether it asked to quit.
func (w *Walk) free1(first string) (quit bool) {
	if _, ok := term.ParseCommand(first); ok {
		return w.r.Execute(first)
	}
	code := first
	for {
		if status, _ := w.r.Session().IsComplete(code); status != "incomplete" {
			break
		}
		line, err := w.in.ReadLine(term.ContinuePrompt, "")
		if err != nil {
			return false
		}
		code += "\n" + line
	}
	return w.r.Execute(code)
}

// free is the REPL after the last cell.
func (w *Walk) free() {
	for {
		line, err := w.in.ReadLine(term.Prompt, "")
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue
		case err != nil:
			w.printf("\n")
			return
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if w.free1(line) {
			return
		}
	}
}

// summary says how the cells went.
func (w *Walk) summary(end bool) {
	head := "End of " + w.name
	if !end {
		head = "Stopped in " + w.name
	}
	msg := fmt.Sprintf("%s: %d of %d cells run, %d as the tutorial shows", head, w.ran, w.cells, w.matched)
	if w.skipped > 0 {
		msg += fmt.Sprintf(", %d skipped", w.skipped)
	}
	if w.edited > 0 {
		msg += fmt.Sprintf(", %d edited", w.edited)
	}
	msg += "."
	if len(w.differ) > 0 {
		var ks []string
		for _, k := range w.differ {
			ks = append(ks, fmt.Sprint(k))
		}
		msg += " Cells that printed something else: " + strings.Join(ks, ", ") + "."
	}
	w.printf("%s\n", w.style.title(msg))
}

func (w *Walk) help() {
	w.printf(`  Enter        run the cell shown (after a cell that printed something else: go on)
  :edit, :e    change the cell line by line, then run it
  :again, :a   run the tutorial's cell again
  :skip, :s    go on without running it
  :quit, :q    stop (Ctrl-D too)
  Go code      runs in the same session; REPL commands (:graph net, :vars, :doc NAME) work too
`)
}

func (w *Walk) printf(format string, args ...any) { fmt.Fprintf(w.opt.Out, format, args...) }

// titleOf is the tutorial's first heading, or its file name.
func titleOf(t *tutorial.Tutorial) string {
	for _, st := range t.Steps {
		if st.Kind != tutorial.Prose {
			continue
		}
		for _, line := range strings.Split(st.Text, "\n") {
			if h, ok := strings.CutPrefix(line, "# "); ok {
				return strings.TrimSpace(h)
			}
		}
	}
	return t.Path
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// capture keeps what cells print while a check runs.
type capture struct {
	mu  sync.Mutex
	on  bool
	buf strings.Builder
}

func (c *capture) start() {
	c.mu.Lock()
	c.on = true
	c.buf.Reset()
	c.mu.Unlock()
}

func (c *capture) stop() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.buf.String()
}

func (c *capture) write(p []byte) {
	c.mu.Lock()
	if c.on {
		c.buf.Write(p)
	}
	c.mu.Unlock()
}

// tee writes to w and to the capture.
type tee struct {
	w io.Writer
	c *capture
}

func (t *tee) Write(p []byte) (int, error) {
	t.c.write(p)
	return t.w.Write(p)
}

// lineReader reads one line after a prompt, with preset already typed.
type lineReader interface {
	ReadLine(prompt, preset string) (string, error)
	Close() error
}

func newLineReader(opt Options, r *term.REPL) (lineReader, error) {
	if !term.IsTerminal(opt.In) {
		sc := bufio.NewScanner(opt.In)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		return &plainReader{sc: sc}, nil
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          term.Prompt,
		AutoComplete:    term.Completer(r),
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		Stdin:           opt.In,
		Stdout:          opt.Out,
		Stderr:          opt.Err,
	})
	if err != nil {
		return nil, err
	}
	return &editReader{rl: rl}, nil
}

// plainReader reads lines without prompts or editing; a preset line
// stands as it is unless the input gives another one.
type plainReader struct{ sc *bufio.Scanner }

func (p *plainReader) ReadLine(prompt, preset string) (string, error) {
	if !p.sc.Scan() {
		if err := p.sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
	if line := p.sc.Text(); line != "" || preset == "" {
		return line, nil
	}
	return preset, nil
}

func (p *plainReader) Close() error { return nil }

// editReader reads with line editing.
type editReader struct{ rl *readline.Instance }

func (e *editReader) ReadLine(prompt, preset string) (string, error) {
	e.rl.SetPrompt(prompt)
	if preset != "" {
		return e.rl.ReadlineWithDefault(preset)
	}
	return e.rl.Readline()
}

func (e *editReader) Close() error { return e.rl.Close() }
