package term

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chzyer/readline"

	"github.com/hybridgo/hybridgo/internal/atomicfile"
	"github.com/hybridgo/hybridgo/repl"
)

// Prompts: the first line of a statement, and the lines that continue it.
const (
	Prompt         = ">>> "
	ContinuePrompt = "... "
)

// HistoryName is the history file's name in the home directory.
const HistoryName = ".hybridgo_history"

// historyLimit is how many statements the history file keeps.
const historyLimit = 1000

// REPL reads statements and commands, evaluates them in a Session and
// prints what they give. One REPL serves one reader at a time.
type REPL struct {
	s      *repl.Session
	out    io.Writer // results and command output
	errOut io.Writer // errors

	mu      sync.Mutex
	cancel  context.CancelFunc // cancels the cell that runs, nil when none
	tracing bool

	// loading is the chain of files :load is reading, outermost first,
	// so that a script that loads itself is stopped.
	loading []loadingFile
}

// loadingFile is one file of the :load chain: its name as given and its
// absolute path.
type loadingFile struct{ name, abs string }

// New returns a REPL on session s that prints results to out and errors
// to errOut.
func New(s *repl.Session, out, errOut io.Writer) *REPL {
	return &REPL{s: s, out: out, errOut: errOut}
}

// Session returns the REPL's session.
func (r *REPL) Session() *repl.Session { return r.s }

// Options configure the terminal REPL of Main.
type Options struct {
	NoReplay    bool  // a restarted worker starts empty (hybridgo -no-replay)
	MemoryLimit int64 // the worker's memory limit in bytes: 0 for the default, negative for none
}

// Main runs the REPL on the given streams (the process's, in the
// command): interactive, with line editing, when stdin is a terminal, and
// statement by statement without prompts otherwise. The session lives in
// a worker process (see Worker), which is restarted when a cell ends it.
// It returns the exit code.
func Main(stdin *os.File, stdout, stderr io.Writer, opts Options) int {
	b, err := startRemote(stdout, stderr, opts)
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo:", err)
		return 1
	}
	defer b.c.Close()
	stop := CatchInterrupts(b)
	defer stop()
	if !IsTerminal(stdin) {
		if err := RunBatch(b, stdin); err != nil {
			fmt.Fprintln(stderr, "hybridgo:", err)
			return 1
		}
		return 0
	}
	history := ""
	if home, err := os.UserHomeDir(); err == nil {
		history = filepath.Join(home, HistoryName)
	}
	if err := RunInteractive(b, stdin, stdout, stderr, history); err != nil {
		fmt.Fprintln(stderr, "hybridgo:", err)
		return 1
	}
	return 0
}

// IsTerminal reports whether f is a character device (a terminal).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Backend runs the whole inputs that a front end reads: a *REPL in this
// process, or the REPL of a worker process (Main's).
type Backend interface {
	Execute(input string) (quit bool)
	Interrupt() bool
	IsComplete(code string) (status, indent string)
	Complete(code string, cursor int) (candidates []string, start int)
}

// IsComplete is the session's IsComplete.
func (r *REPL) IsComplete(code string) (status, indent string) { return r.s.IsComplete(code) }

// Complete is the session's Complete.
func (r *REPL) Complete(code string, cursor int) ([]string, int) { return r.s.Complete(code, cursor) }

// Completer is tab completion on b, for a line editor.
func Completer(b Backend) readline.AutoCompleter { return &completer{b: b} }

// CatchInterrupts turns Ctrl-C (SIGINT) into the interruption of the cell
// that b runs rather than the end of the process, until stop is called
// (the terminal is in cooked mode while a cell runs; at the prompt line
// editing reads Ctrl-C itself). With no cell running, the process exits
// as an interrupted program does.
func CatchInterrupts(b Backend) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				if !b.Interrupt() {
					os.Exit(130)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// Interrupt cancels the cell that runs, keeping the session's state. It
// reports whether one was running.
func (r *REPL) Interrupt() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel == nil {
		return false
	}
	r.cancel()
	return true
}

// run calls fn with a context that Interrupt cancels.
func (r *REPL) run(fn func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
		cancel()
	}()
	fn(ctx)
}

// Execute evaluates one whole input: a command (":graph net") or a Go
// cell. It reports whether the REPL should stop (":quit"). Errors and
// panics are printed, never returned: the REPL goes on after them.
func (r *REPL) Execute(input string) (quit bool) {
	if strings.TrimSpace(input) == "" {
		return false
	}
	if cmd, ok := ParseCommand(input); ok {
		return r.command(cmd)
	}
	r.run(func(ctx context.Context) { r.evalCell(ctx, input) })
	return false
}

// evalCell runs a Go cell and prints its value or its error.
func (r *REPL) evalCell(ctx context.Context, cell string) {
	res, err := r.eval(ctx, cell)
	if err != nil {
		r.printError(err)
		return
	}
	if res.HasValue && res.Text != "" {
		text := res.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		io.WriteString(r.out, text)
	}
}

// eval is Session.Eval that turns an escaping panic into an error.
func (r *REPL) eval(ctx context.Context, cell string) (res repl.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.s.Eval(ctx, cell)
}

// printError prints an evaluation error readably.
func (r *REPL) printError(err error) {
	if errors.Is(err, repl.ErrInterrupted) || errors.Is(err, context.Canceled) {
		fmt.Fprintln(r.errOut, "interrupted (variables are kept)")
		return
	}
	msg := strings.TrimRight(err.Error(), "\n")
	if !strings.HasPrefix(msg, "panic") && !strings.HasPrefix(msg, "error") {
		msg = "error: " + msg
	}
	fmt.Fprintln(r.errOut, msg)
}

// RunBatch reads statements and commands from in without prompts or line
// editing, running each in b as soon as it is whole, until the end of in
// or ":quit".
func RunBatch(b Backend, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var pending strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if pending.Len() == 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if _, ok := ParseCommand(line); ok {
				if b.Execute(line) {
					return nil
				}
				continue
			}
		}
		pending.WriteString(line)
		pending.WriteString("\n")
		code := pending.String()
		if status, _ := b.IsComplete(code); status == "incomplete" {
			continue
		}
		pending.Reset()
		if b.Execute(strings.TrimSuffix(code, "\n")) {
			return nil
		}
	}
	if pending.Len() > 0 {
		b.Execute(strings.TrimSuffix(pending.String(), "\n"))
	}
	return sc.Err()
}

// RunInteractive reads statements with line editing, history (kept in
// historyPath unless it is empty) and tab completion, and runs them in
// b, until Ctrl-D on an empty line or ":quit".
func RunInteractive(b Backend, stdin io.ReadCloser, out, errOut io.Writer, historyPath string) error {
	h := &history{path: historyPath}
	entries := h.load()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		DisableAutoSaveHistory: true,
		HistoryLimit:           historyLimit,
		AutoComplete:           Completer(b),
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		Stdin:                  stdin,
		Stdout:                 out,
		Stderr:                 errOut,
	})
	if err != nil {
		return err
	}
	// Close can hang while a Readline call runs; it is only called after
	// Readline returned.
	defer rl.Close()
	for _, e := range entries {
		rl.SaveHistory(e)
	}
	fmt.Fprintln(out, "hybridgo: Go with nd, nn, ops, graph imported. :help lists the commands; Ctrl-D quits.")
	var pending []string
	for {
		if len(pending) == 0 {
			rl.SetPrompt(Prompt)
		} else {
			rl.SetPrompt(ContinuePrompt)
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			pending = nil // Ctrl-C discards what was typed
			continue
		case errors.Is(err, io.EOF):
			if len(pending) > 0 {
				pending = nil
				fmt.Fprintln(out)
				continue
			}
			return nil
		case err != nil:
			return err
		}
		if len(pending) == 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if _, ok := ParseCommand(line); ok {
				h.add(rl, line)
				if b.Execute(line) {
					return nil
				}
				continue
			}
		}
		pending = append(pending, line)
		code := strings.Join(pending, "\n")
		if status, _ := b.IsComplete(code); status == "incomplete" {
			continue
		}
		pending = nil
		h.add(rl, code)
		if b.Execute(code) {
			return nil
		}
	}
}

// history keeps whole statements (multi-line ones as one entry), one Go
// quoted string per line of the file.
type history struct {
	path string
}

// load reads the history file, trimming it to its last entries.
func (h *history) load() []string {
	if h.path == "" {
		return nil
	}
	b, err := os.ReadFile(h.path)
	if err != nil {
		return nil
	}
	var entries []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		if s, err := strconv.Unquote(line); err == nil {
			entries = append(entries, s)
		} else {
			entries = append(entries, line) // a line written by hand
		}
	}
	if len(entries) > historyLimit {
		entries = entries[len(entries)-historyLimit:]
		var buf strings.Builder
		for _, e := range entries {
			buf.WriteString(strconv.Quote(e) + "\n")
		}
		atomicfile.Write(h.path, []byte(buf.String()), 0o600)
	}
	return entries
}

// add records a statement in the editor's history and in the file.
func (h *history) add(rl *readline.Instance, entry string) {
	if rl != nil {
		rl.SaveHistory(entry)
	}
	if h.path == "" {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(strconv.Quote(entry) + "\n")
}

// completer adapts a Backend's Complete to the line editor.
type completer struct {
	b Backend
}

// Do returns the completions of the word before pos in line, as the
// suffixes to insert, and the length of the word typed so far.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	code := string(line[:pos])
	cands, start := c.b.Complete(code, len(code))
	if start < 0 || start > len(code) {
		return nil, 0
	}
	typed := code[start:]
	var out [][]rune
	for _, cand := range cands {
		if strings.HasPrefix(cand, typed) {
			out = append(out, []rune(cand[len(typed):]))
		}
	}
	return out, utf8.RuneCountInString(typed)
}
