package walk

import "strings"

// style formats text for the terminal: ANSI bold and colours when on,
// plain text otherwise.
type style struct{ on bool }

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\x1b[" + code + "m" + l + "\x1b[0m"
		}
	}
	return strings.Join(lines, "\n")
}

func (s style) title(t string) string { return s.wrap("1", t) }
func (s style) dim(t string) string   { return s.wrap("2", t) }
func (s style) ok(t string) string    { return s.wrap("32", t) }
func (s style) bad(t string) string   { return s.wrap("31", t) }

// code shows a cell indented, in cyan.
func (s style) code(t string) string { return s.wrap("36", indent(t)) }

// prose renders a tutorial's Markdown prose for the terminal: headings in
// bold (a top heading underlined), other fenced blocks indented without
// their fences, the rest as written.
func (s style) prose(md string) string {
	var out []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inFence = !inFence
			continue
		case inFence:
			out = append(out, s.dim("    "+line))
		case strings.HasPrefix(line, "# "):
			h := strings.TrimPrefix(line, "# ")
			out = append(out, s.title(h), s.title(strings.Repeat("═", len([]rune(h)))))
		case strings.HasPrefix(line, "#"):
			h := strings.TrimSpace(strings.TrimLeft(line, "#"))
			out = append(out, s.title("── "+h+" ──"))
		default:
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
