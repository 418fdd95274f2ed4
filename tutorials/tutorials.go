// Package tutorials holds hybridgo's Markdown tutorials, embedded, so that
// `hybridgo tutorial NAME` can walk through them from any directory.
//
// Each NAME.md here is a tutorial in the format package tutorial reads:
// prose, ```go cells run in order in one REPL session, and ```output
// blocks with what each cell prints. The test suite runs every one of them
// (tutorial.TestTutorials), and notebooks/NAME-tutorial.ipynb is made from
// each with `hybridgo notebook`. Files the cells read are in testdata/,
// embedded too (WriteTestdata).
package tutorials

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed *.md testdata
var files embed.FS

// FS returns the tutorials as a file system of NAME.md files.
func FS() fs.FS { return files }

// WriteTestdata lays out dir the way tutorial cells expect to find their
// files: it writes the embedded testdata to dir/tutorials/testdata and
// returns dir/run, a new directory to run the cells in, where they read
// ../tutorials/testdata/NAME (see package tutorial).
func WriteTestdata(dir string) (run string, err error) {
	err = fs.WalkDir(files, "testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(dir, "tutorials", filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	run = filepath.Join(dir, "run")
	return run, os.MkdirAll(run, 0o755)
}

// Names returns the tutorials' names (their file names without .md),
// sorted.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Source returns the Markdown of the tutorial called name.
func Source(name string) ([]byte, error) {
	name = strings.TrimSuffix(name, ".md")
	b, err := fs.ReadFile(files, name+".md")
	if err != nil {
		return nil, fmt.Errorf("no tutorial is called %q (there are: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Title returns the first "# " heading of a tutorial's Markdown, or "".
func Title(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}
