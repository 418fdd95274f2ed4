// Package tmuxtest drives a terminal program in a private tmux server, for
// end-to-end tests that type keys the way a person does and read the
// screen back. Tests that use it build the hybridgo binary with Build and
// skip, saying why, when tmux is not installed (make deps installs it).
package tmuxtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Timeout is how long WaitFor polls before failing the test.
var Timeout = 60 * time.Second

// Available reports whether tmux is installed.
func Available() bool {
	_, err := exec.LookPath("tmux")
	return err == nil
}

// Build builds the hybridgo command into dir and returns its path.
func Build(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "hybridgo")
	build := exec.Command(goTool(), "build", "-o", bin, "github.com/hybridgo/hybridgo/cmd/hybridgo")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

// Pane is one program running in a 150x50 tmux pane.
type Pane struct {
	t      testing.TB
	sock   string
	marker int // the screen's line count at the last Mark
}

// Start runs command (a shell command line) in a new tmux server whose
// socket lives in dir, with HOME=dir and TERM=screen. The server is killed
// when the test ends.
func Start(t testing.TB, dir, command string) *Pane {
	t.Helper()
	p := &Pane{t: t, sock: filepath.Join(dir, "tmux.sock")}
	cmd := fmt.Sprintf("env HOME=%s TERM=screen %s", dir, command)
	p.run("-f", "/dev/null", "new-session", "-d", "-s", "hg", "-x", "150", "-y", "50", cmd, ";",
		"set-option", "-t", "hg", "remain-on-exit", "on", ";",
		"set-option", "-t", "hg", "history-limit", "50000")
	t.Cleanup(func() { exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	return p
}

func (p *Pane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// Send types keys: tmux send-keys arguments, "-l" and literal text, or
// key names such as "Enter", "Tab", "C-c".
func (p *Pane) Send(keys ...string) {
	p.t.Helper()
	p.run(append([]string{"send-keys", "-t", "hg"}, keys...)...)
}

// Screen is the whole pane, scrollback included, with wrapped lines
// joined.
func (p *Pane) Screen() string {
	p.t.Helper()
	return strings.TrimRight(p.run("capture-pane", "-p", "-J", "-S", "-", "-t", "hg"), "\n")
}

// LastLine is the last non-blank line of the pane, trimmed.
func (p *Pane) LastLine() string {
	lines := strings.Split(p.Screen(), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Dead reports whether the program has exited.
func (p *Pane) Dead() bool {
	return strings.TrimSpace(p.run("list-panes", "-t", "hg", "-F", "#{pane_dead}")) == "1"
}

// Mark remembers where the screen ends; SinceMark returns what came
// after, between newlines.
func (p *Pane) Mark() { p.marker = strings.Count(p.Screen(), "\n") }

func (p *Pane) SinceMark() string {
	lines := strings.Split(p.Screen(), "\n")
	if p.marker >= len(lines) {
		return ""
	}
	return "\n" + strings.Join(lines[p.marker:], "\n") + "\n"
}

// WaitFor polls the screen until ok holds, or fails the test after
// Timeout, showing the screen and what it waited for.
func (p *Pane) WaitFor(ok func(screen string) bool, what string) {
	p.t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		s := p.Screen()
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
