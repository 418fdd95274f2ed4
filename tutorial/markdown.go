package tutorial

import (
	"fmt"
	"os"
	"strings"
)

// Kind says what a step is.
type Kind int

const (
	Prose Kind = iota // Markdown text
	Code              // a ```go block: one cell
)

// Step is a piece of a tutorial: prose, or a code block with the output
// block that follows it.
type Step struct {
	Kind Kind
	Text string // the prose, or the code, without fences
	Line int    // 1-based line of the step's first line (the opening fence for code)
	End  int    // 1-based line of the step's last line (the closing fence for code)

	// Expected is the body of the output block after a code block, and
	// HasOutput whether there is one; OutLine and OutEnd are its fences.
	Expected        string
	HasOutput       bool
	OutLine, OutEnd int
}

// Tutorial is a parsed Markdown tutorial.
type Tutorial struct {
	Path  string
	Steps []Step
	lines []string
}

// Parse reads the tutorial at path.
func Parse(path string) (*Tutorial, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseBytes(path, src)
}

// fence reports whether line opens or closes a fenced block, and its
// info string.
func fence(line string) (info string, ok bool) {
	t := strings.TrimRight(line, " \t\r")
	if !strings.HasPrefix(t, "```") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimLeft(t, "`")), true
}

// ParseBytes parses a tutorial held in memory; path names it in errors.
func ParseBytes(path string, src []byte) (*Tutorial, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	t := &Tutorial{Path: path, lines: lines}
	var prose []string
	proseStart := 0
	flush := func(end int) {
		p := strings.Trim(strings.Join(prose, "\n"), "\n")
		if strings.TrimSpace(p) != "" {
			t.Steps = append(t.Steps, Step{Kind: Prose, Text: p, Line: proseStart, End: end})
		}
		prose, proseStart = nil, 0
	}
	// body returns the lines up to the closing fence after line i (0-based)
	// and the closing fence's index.
	body := func(i int) ([]string, int, error) {
		for j := i + 1; j < len(lines); j++ {
			if info, ok := fence(lines[j]); ok && info == "" {
				return lines[i+1 : j], j, nil
			}
		}
		return nil, 0, fmt.Errorf("%s:%d: the block is not closed", path, i+1)
	}
	for i := 0; i < len(lines); i++ {
		info, ok := fence(lines[i])
		switch {
		case ok && info == "go":
			flush(i)
			b, j, err := body(i)
			if err != nil {
				return nil, err
			}
			st := Step{Kind: Code, Text: strings.Join(b, "\n"), Line: i + 1, End: j + 1}
			k := j + 1
			for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
				k++
			}
			if k < len(lines) {
				if inf, ok := fence(lines[k]); ok && inf == "output" {
					ob, e, err := body(k)
					if err != nil {
						return nil, err
					}
					st.HasOutput, st.Expected = true, strings.Join(ob, "\n")
					st.OutLine, st.OutEnd = k+1, e+1
					j = e
				}
			}
			t.Steps = append(t.Steps, st)
			i = j
		case ok && info == "output":
			return nil, fmt.Errorf("%s:%d: an output block must follow a go block", path, i+1)
		case ok:
			// Another language: prose, fences and all.
			_, j, err := body(i)
			if err != nil {
				return nil, err
			}
			if proseStart == 0 {
				proseStart = i + 1
			}
			prose = append(prose, lines[i:j+1]...)
			i = j
		default:
			if proseStart == 0 && strings.TrimSpace(lines[i]) != "" {
				proseStart = i + 1
			}
			if proseStart != 0 {
				prose = append(prose, lines[i])
			}
		}
	}
	flush(len(lines))
	return t, nil
}
