package walk

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/repl/term"
	"github.com/hybridgo/hybridgo/tutorial"
	"github.com/hybridgo/hybridgo/tutorials"
)

// List prints the tutorials hybridgo carries, with their titles and
// numbers of cells.
func List(w io.Writer) error {
	fmt.Fprintln(w, "Tutorials (hybridgo tutorial NAME walks through one):")
	names := tutorials.Names()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		src, err := tutorials.Source(n)
		if err != nil {
			return err
		}
		t, err := tutorial.ParseBytes(n+".md", src)
		if err != nil {
			return err
		}
		cells := 0
		for _, st := range t.Steps {
			if st.Kind == tutorial.Code {
				cells++
			}
		}
		fmt.Fprintf(w, "  %-*s  %s (%d cells)\n", width, n, tutorials.Title(src), cells)
	}
	return nil
}

// Load finds a tutorial by name (one of tutorials.Names) or by the path
// of a Markdown file, and parses it.
func Load(nameOrPath string) (*tutorial.Tutorial, string, error) {
	if strings.HasSuffix(nameOrPath, ".md") {
		if _, err := os.Stat(nameOrPath); err == nil {
			t, err := tutorial.Parse(nameOrPath)
			return t, strings.TrimSuffix(filepath.Base(nameOrPath), ".md"), err
		}
	}
	name := strings.TrimSuffix(filepath.Base(nameOrPath), ".md")
	src, err := tutorials.Source(name)
	if err != nil {
		return nil, "", err
	}
	t, err := tutorial.ParseBytes(name+".md", src)
	return t, name, err
}

// Main is `hybridgo tutorial [NAME]`: with no name it lists the
// tutorials; with one it walks through it in a fresh directory (files the
// tutorial writes land there, and the files it reads are laid out beside
// it, see tutorials.WriteTestdata), on the process's terminal, and removes
// the directory at the end. It returns the exit code.
func Main(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		if err := List(stdout); err != nil {
			fmt.Fprintln(stderr, "hybridgo tutorial:", err)
			return 1
		}
		return 0
	case len(args) > 1 || strings.HasPrefix(args[0], "-"):
		fmt.Fprintln(stderr, "usage: hybridgo tutorial [NAME | FILE.md]")
		return 2
	}
	t, name, err := Load(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo tutorial:", err)
		return 1
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = os.TempDir()
	}
	dir, err := os.MkdirTemp("", "hybridgo-"+name+"-")
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo tutorial:", err)
		return 1
	}
	// Leave the directory before removing it (Windows cannot remove the
	// working directory).
	defer func() {
		os.Chdir(wd)
		os.RemoveAll(dir)
	}()
	run, err := tutorials.WriteTestdata(dir)
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo tutorial:", err)
		return 1
	}
	if err := os.Chdir(run); err != nil {
		fmt.Fprintln(stderr, "hybridgo tutorial:", err)
		return 1
	}
	interactive := term.IsTerminal(stdin)
	w, err := New(t, name, Options{In: stdin, Out: stdout, Err: stderr, Color: interactive && os.Getenv("NO_COLOR") == "", Dir: run})
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo tutorial:", err)
		return 1
	}
	return w.Run()
}
