package worker

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Cause is what ended a worker process.
type Cause int

const (
	Exited         Cause = iota // it exited, with no fatal message
	StackOverflow               // a goroutine's stack passed its limit
	OutOfMemory                 // an allocation failed (the memory limit, or the machine's memory)
	GoroutinePanic              // a panic that no one recovered, in a goroutine a cell started
	FatalError                  // another fatal error of the Go runtime (concurrent map writes, …)
	Killed                      // a signal ended it: SIGKILL is the system's OOM killer, or a limit
)

// Death is the end of a worker process: what ended it, read from the
// fatal message on its stderr and its exit status, and the input that was
// running (or had run last).
type Death struct {
	Cause  Cause
	Detail string // the panic's value, the fatal error, the allocation's size ("40 GiB"), the exit status
	Input  int    // the number of the input (1 for the first sent), 0 when none was sent
	Text   string // that input
	During bool   // the input was running
	Func   string // for a stack overflow: the session's function that calls itself, when found
	Limit  int64  // the worker's memory limit in bytes, -1 for none
}

// Restarted is the message of Error followed by tail, as in "stack
// overflow in cell 3 (f(0)): infinite recursion? session restarted".
func (d *Death) Restarted(tail string) string {
	msg := d.Error()
	if strings.HasSuffix(msg, "?") {
		return msg + " " + tail
	}
	return msg + ", " + tail
}

// Error says what happened in one line, in the user's terms:
// "stack overflow in f, called in cell 3 (f(0)): infinite recursion?".
func (d *Death) Error() string {
	where := d.where()
	switch d.Cause {
	case StackOverflow:
		if d.Func != "" {
			return fmt.Sprintf("stack overflow in %s, called %s: infinite recursion?", d.Func, where)
		}
		return fmt.Sprintf("stack overflow %s: infinite recursion?", where)
	case OutOfMemory:
		msg := "out of memory"
		if d.Detail != "" {
			msg += " allocating " + d.Detail
		}
		msg += " " + where
		if d.Limit > 0 {
			msg += fmt.Sprintf(" (the limit is %s; hybridgo -memory changes it)", FormatBytes(d.Limit))
		}
		return msg
	case GoroutinePanic:
		return fmt.Sprintf("panic in a goroutine %s: %s", where, d.Detail)
	case FatalError:
		return fmt.Sprintf("fatal error %s: %s", where, d.Detail)
	case Killed:
		msg := fmt.Sprintf("the worker was killed (%s) %s", d.Detail, where)
		if d.Detail == "signal: killed" {
			msg += ": out of memory? (the system's OOM killer)"
		}
		return msg
	}
	return fmt.Sprintf("the worker ended (%s) %s", d.Detail, where)
}

// where names the input: "in cell 3 (f(0))", "after cell 3 (x := 1)".
func (d *Death) where() string {
	switch {
	case d.Input == 0:
		return "while starting"
	case d.During && d.Cause == GoroutinePanic:
		return fmt.Sprintf("during cell %d (%s)", d.Input, Snippet(d.Text))
	case d.During:
		return fmt.Sprintf("in cell %d (%s)", d.Input, Snippet(d.Text))
	}
	return fmt.Sprintf("after cell %d (%s)", d.Input, Snippet(d.Text))
}

// Snippet shortens an input to one short line for a message.
func Snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}

var (
	allocRE  = regexp.MustCompile(`cannot allocate (\d+)-byte block`)
	mallocRE = regexp.MustCompile(`runtime\.mallocgc\((0x[0-9a-f]+)`)
	panicRE  = regexp.MustCompile(`(?m)^panic: (.*)$`)
	fatalRE  = regexp.MustCompile(`(?m)^fatal error: (.*)$`)
)

// Diagnose reads what ended a worker from the fatal message its stderr
// held (see stream) and its exit status, and returns the cause and its
// detail.
func Diagnose(stderr string, st *os.ProcessState) (Cause, string) {
	fatal := ""
	if m := fatalRE.FindStringSubmatch(stderr); m != nil {
		fatal = strings.TrimSpace(m[1])
	}
	switch {
	case fatal == "stack overflow" || strings.Contains(stderr, "runtime: goroutine stack exceeds"):
		return StackOverflow, ""
	case strings.Contains(fatal, "out of memory") || strings.Contains(fatal, "cannot allocate memory") ||
		strings.HasPrefix(stderr, "runtime: out of memory"):
		size := ""
		if m := allocRE.FindStringSubmatch(stderr); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			size = FormatBytes(n)
		} else if m := mallocRE.FindStringSubmatch(stderr); m != nil {
			n, _ := strconv.ParseInt(m[1], 0, 64)
			size = FormatBytes(n)
		}
		return OutOfMemory, size
	case fatal != "":
		return FatalError, fatal
	}
	if m := panicRE.FindStringSubmatch(stderr); m != nil && goroutineRE.MatchString(firstGoroutineLine(stderr)) {
		v := strings.TrimSpace(m[1])
		for _, suffix := range []string{" [recovered, repanicked]", " [recovered]"} {
			v = strings.TrimSuffix(v, suffix)
		}
		return GoroutinePanic, v
	}
	status := "exit status unknown"
	if st != nil {
		status = st.String()
	}
	if strings.HasPrefix(status, "signal: ") {
		return Killed, status
	}
	return Exited, status
}

func firstGoroutineLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "goroutine ") {
			return l
		}
	}
	return ""
}

// recursiveCallee returns a function or method that input calls, by
// name, and that calls itself, as declared in cells or input; "" when
// there is none. It reads tokens only: a cheap guess that names the
// likely culprit of a stack overflow.
func recursiveCallee(cells []string, input string) string {
	self := map[string]bool{}
	for _, c := range append(cells, input) {
		for name := range selfCallers(scan(c)) {
			self[name] = true
		}
	}
	toks := scan(input)
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].tok == token.IDENT && toks[i+1].tok == token.LPAREN && self[toks[i].lit] {
			return toks[i].lit
		}
	}
	return ""
}

type tok struct {
	tok token.Token
	lit string
}

func scan(src string) []tok {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	var out []tok
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			return out
		}
		out = append(out, tok{t, lit})
	}
}

// selfCallers returns the names of the functions and methods declared in
// toks whose bodies call a function or method of their own name.
func selfCallers(toks []tok) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < len(toks); i++ {
		if toks[i].tok != token.FUNC {
			continue
		}
		j := i + 1
		if j < len(toks) && toks[j].tok == token.LPAREN { // a method's receiver
			j = matching(toks, j) + 1
		}
		if j+1 >= len(toks) || toks[j].tok != token.IDENT || (toks[j+1].tok != token.LPAREN && toks[j+1].tok != token.LBRACK) {
			continue
		}
		name := toks[j].lit
		// The body is the first brace outside parentheses that does not
		// open a struct or interface type.
		depth := 0
		for j++; j < len(toks); j++ {
			switch toks[j].tok {
			case token.LPAREN, token.LBRACK:
				depth++
			case token.RPAREN, token.RBRACK:
				depth--
			case token.LBRACE:
				if toks[j-1].tok == token.STRUCT || toks[j-1].tok == token.INTERFACE {
					j = matching(toks, j)
					continue
				}
				if depth == 0 {
					end := matching(toks, j)
					for k := j; k+1 < end; k++ {
						if toks[k].tok == token.IDENT && toks[k].lit == name && toks[k+1].tok == token.LPAREN {
							out[name] = true
						}
					}
					j = len(toks)
				}
			}
		}
	}
	return out
}

// matching returns the index of the token that closes the bracket at i
// (len(toks) when it is not closed).
func matching(toks []tok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}
