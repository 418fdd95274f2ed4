package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hybridgo/hybridgo/tutorial"
)

// runNotebook is `hybridgo notebook FILE.md -o FILE.ipynb`: it turns a
// Markdown tutorial into a notebook for the hybridgo kernel, without
// running it.
func runNotebook(args []string, stdout, stderr io.Writer) int {
	var in, out string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o" || a == "--o" || a == "-out":
			if i+1 == len(args) {
				in = ""
				break
			}
			out = args[i+1]
			i++
		case in == "":
			in = a
		default:
			in, out = "", ""
			i = len(args)
		}
	}
	if in == "" || out == "" {
		fmt.Fprintln(stderr, "usage: hybridgo notebook FILE.md -o FILE.ipynb")
		return 2
	}
	t, err := tutorial.Parse(in)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	nb, err := tutorial.ToNotebook(t)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	if err := writeAtomic(out, nb); err != nil {
		fmt.Fprintf(stderr, "hybridgo notebook: %v\n", err)
		return 1
	}
	return 0
}

// writeAtomic writes data to a temporary file beside path and renames
// it into place, so that path is never left half written.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
