package tutorial

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/hybridgo/hybridgo/repl"
)

// Outcome is what one code step printed.
type Outcome struct {
	Step int    // index in Tutorial.Steps
	Got  string // the output, then the displayed value, without trailing newlines
	Err  error  // the cell's error, if it failed
}

// Run evaluates the code steps in order in one fresh session and returns
// what each printed. It stops at the first cell that fails (the outcome
// carries its error) or when ctx is done.
//
// While a cell runs, os.Stdout is a temporary file that also takes the
// session's output, so what compiled code prints to standard output (a
// display.Progress bar, a display without a notebook) is captured in
// order with what the cell prints.
func (t *Tutorial) Run(ctx context.Context) ([]Outcome, error) {
	out, err := os.CreateTemp("", "tutorial-output-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	s, err := repl.NewSession(repl.Options{Stdout: out, Stderr: out})
	if err != nil {
		return nil, err
	}
	var outs []Outcome
	for i, st := range t.Steps {
		if st.Kind != Code {
			continue
		}
		if err := ctx.Err(); err != nil {
			return outs, err
		}
		if err := rewind(out); err != nil {
			return outs, err
		}
		stdout := os.Stdout
		os.Stdout = out
		res, err := s.Eval(ctx, st.Text)
		os.Stdout = stdout
		got, rerr := readAll(out)
		if rerr != nil {
			return outs, rerr
		}
		if res.HasValue {
			if got != "" && !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			got += res.Text
		}
		outs = append(outs, Outcome{Step: i, Got: strings.TrimRight(got, "\n"), Err: err})
		if err != nil {
			break
		}
	}
	return outs, nil
}

// rewind empties f for the next cell.
func rewind(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// readAll returns what was written to f since rewind.
func readAll(f *os.File) (string, error) {
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", err
	}
	b := make([]byte, end)
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return "", err
	}
	return string(b), nil
}

// Check runs the tutorial and returns an error for each code block whose
// output differs from its output block, and for a cell that fails.
func (t *Tutorial) Check(ctx context.Context) []error {
	outs, err := t.Run(ctx)
	var errs []error
	for _, o := range outs {
		st := t.Steps[o.Step]
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: the cell failed: %v", t.Path, st.Line, o.Err))
			continue
		}
		if !Match(st.Expected, o.Got) {
			line := st.Line
			if st.HasOutput {
				line = st.OutLine
			}
			errs = append(errs, fmt.Errorf("%s:%d: the output differs (-want +got):\n%s", t.Path, line, Diff(st.Expected, o.Got)))
		}
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", t.Path, err))
	}
	return errs
}

// Update runs the tutorial and returns its source with every output
// block that does not match what its cell printed rewritten (added where
// a cell prints and has none, removed where it prints nothing). Blocks
// that match are kept as written. Cells that fail are returned as errors.
func (t *Tutorial) Update(ctx context.Context) ([]byte, []error) {
	outs, err := t.Run(ctx)
	var errs []error
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", t.Path, err))
	}
	type edit struct {
		from, to int // 0-based lines [from, to) replaced
		with     []string
	}
	var edits []edit
	for _, o := range outs {
		st := t.Steps[o.Step]
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: the cell failed: %v", t.Path, st.Line, o.Err))
			continue
		}
		if Match(st.Expected, o.Got) {
			continue
		}
		var block []string
		if o.Got != "" {
			block = append([]string{"", "```output"}, splitLines(o.Got)...)
			block = append(block, "```")
		}
		if st.HasOutput {
			edits = append(edits, edit{st.End, st.OutEnd, block})
		} else {
			edits = append(edits, edit{st.End, st.End, block})
		}
	}
	var out []string
	prev := 0
	for _, e := range edits {
		out = append(out, t.lines[prev:e.from]...)
		out = append(out, e.with...)
		prev = e.to
	}
	out = append(out, t.lines[prev:]...)
	return []byte(strings.Join(out, "\n") + "\n"), errs
}

// Match reports whether got matches the expected output: the same lines,
// where … in an expected line matches any run of characters, and a line
// that is … alone matches any run of lines, none included. Spaces at the
// end of a line, and blank lines at the end, are ignored.
func Match(want, got string) bool {
	return matchLines(splitLines(want), splitLines(got))
}

func matchLines(w, g []string) bool {
	for len(w) > 0 {
		if w[0] == "…" {
			for i := 0; i <= len(g); i++ {
				if matchLines(w[1:], g[i:]) {
					return true
				}
			}
			return false
		}
		if len(g) == 0 || !matchLine(w[0], g[0]) {
			return false
		}
		w, g = w[1:], g[1:]
	}
	return len(g) == 0
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}

func matchLine(want, got string) bool {
	if !strings.Contains(want, "…") {
		return want == got
	}
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
	return re.MatchString(got)
}

// Diff shows want and got line by line: "  " where they match, "-" for
// the expected line and "+" for the one printed where they do not.
func Diff(want, got string) string {
	w, g := splitLines(want), splitLines(got)
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		switch {
		case i < len(w) && i < len(g) && matchLine(w[i], g[i]):
			fmt.Fprintf(&b, "  %s\n", g[i])
		default:
			if i < len(w) {
				fmt.Fprintf(&b, "- %s\n", w[i])
			}
			if i < len(g) {
				fmt.Fprintf(&b, "+ %s\n", g[i])
			}
		}
	}
	return b.String()
}
