package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/tutorial"
	"github.com/hybridgo/hybridgo/tutorials"
	"github.com/hybridgo/hybridgo/viz"
)

// runNotebook is `hybridgo notebook FILE.md -o FILE.ipynb`: it turns a
// Markdown tutorial into a notebook for the hybridgo kernel. It runs the
// cells first (in a temporary directory, so files they write land there)
// and saves their outputs in the notebook; -no-run leaves them out.
func runNotebook(args []string, stdout, stderr io.Writer) int {
	var in, out string
	execute, bad := true, false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o" || a == "--o" || a == "-out":
			if i+1 == len(args) {
				bad = true
				break
			}
			out = args[i+1]
			i++
		case a == "-no-run" || a == "--no-run":
			execute = false
		case in == "" && !strings.HasPrefix(a, "-"):
			in = a
		default:
			bad = true
		}
	}
	if bad || in == "" || out == "" {
		fmt.Fprintln(stderr, "usage: hybridgo notebook FILE.md -o FILE.ipynb [-no-run]")
		return 2
	}
	t, err := tutorial.Parse(in)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	var nb []byte
	if execute {
		nb, err = executedNotebook(t)
	} else {
		nb, err = tutorial.ToNotebook(t)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	if err := viz.WriteFile(out, nb); err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	return 0
}

// executedNotebook runs t in a temporary directory and returns its
// notebook with outputs.
func executedNotebook(t *tutorial.Tutorial) (nb []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			nb, err = nil, fmt.Errorf("%s: panic: %v", t.Path, r)
		}
	}()
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if t.Path, err = filepath.Abs(t.Path); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hybridgo-notebook-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// Cells read their files as ../tutorials/testdata/NAME: lay out the
	// testdata like that, and run one level down. The testdata beside a
	// tutorial in tutorials/ is copied; a tutorial elsewhere gets the
	// files built into the command, as hybridgo tutorial FILE.md does.
	var run string
	if tdir := filepath.Dir(t.Path); filepath.Base(tdir) == "tutorials" && isDir(filepath.Join(tdir, "testdata")) {
		run, err = tutorial.PrepareDir(filepath.Dir(tdir), dir)
	} else {
		run, err = tutorials.WriteTestdata(dir)
	}
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(run); err != nil {
		return nil, err
	}
	defer os.Chdir(wd)
	return tutorial.ToNotebookWithOutputs(context.Background(), t)
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
