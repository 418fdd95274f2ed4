package tutorial

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/display"
)

var update = flag.Bool("update", false, "rewrite the output blocks of tutorials/*.md with what the cells print")

// tutorials returns the absolute paths of the tutorials.
func tutorials(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("..", "tutorials", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tutorials found (%v)", err)
	}
	for i, f := range files {
		if files[i], err = filepath.Abs(f); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// needs names, for a tutorial that reads files from outside the
// repository, a file it reads and how to install it.
var needs = map[string]struct{ file, install string }{
	"train-fashion-mnist.md": {filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz"), "apt-get install dataset-fashion-mnist"},
	"model-zoo.md":           {filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz"), "apt-get install dataset-fashion-mnist"},
}

// TestTutorials runs every tutorial and compares what each cell prints
// with its output block; with -update it rewrites the blocks instead.
func TestTutorials(t *testing.T) {
	files := tutorials(t)
	run, err := PrepareDir("..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(run) // files the tutorials write land here
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if n, ok := needs[filepath.Base(f)]; ok {
				if _, err := os.Stat(n.file); err != nil {
					t.Skipf("%s is missing (%s; make deps does it)", n.file, n.install)
				}
			}
			tu, err := Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				src, errs := tu.Update(context.Background())
				for _, err := range errs {
					t.Error(err)
				}
				if err := os.WriteFile(f, src, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, err := range tu.Check(context.Background()) {
				t.Error(err)
			}
		})
	}
}

// cellsOf reads a notebook's cell types and sources.
func cellsOf(t *testing.T, raw []byte) [][2]string {
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	var cells [][2]string
	for _, c := range nb.Cells {
		cells = append(cells, [2]string{c.CellType, strings.Join(c.Source, "")})
	}
	return cells
}

// TestNotebooksUpToDate checks that each tutorial has its notebook,
// notebooks/NAME-tutorial.ipynb, with the cells ToNotebook makes
// (outputs aside, as a notebook may be saved after running).
func TestNotebooksUpToDate(t *testing.T) {
	for _, f := range tutorials(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".md") + "-tutorial.ipynb"
		tu, err := Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ToNotebook(tu)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "notebooks", name))
		if err != nil {
			t.Errorf("%v: run hybridgo notebook %s -o notebooks/%s", err, filepath.Join("tutorials", filepath.Base(f)), name)
			continue
		}
		if !reflect.DeepEqual(cellsOf(t, got), cellsOf(t, want)) {
			t.Errorf("notebooks/%s is not the notebook of %s: run hybridgo notebook %s -o notebooks/%s",
				name, filepath.Base(f), filepath.Join("tutorials", filepath.Base(f)), name)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb\n", true},
		{"a\nb", "a\nc", false},
		{"took …ms", "took 12.5ms", true},
		{"took …ms", "took ms", true},
		{"took …ms", "took 12s", false},
		{"[…]", "[1 2 (3)]", true},
		{"a\n…\nz", "a\nz", true},
		{"a\n…\nz", "a\nb\nc\nz", true},
		{"a\n…\nz", "a\nb\nc", false},
		{"a\n…", "a\nb", true},
		{"", "", true},
		{"", "x", false},
	} {
		if got := Match(c.want, c.got); got != c.ok {
			t.Errorf("Match(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}

func TestParseAndUpdate(t *testing.T) {
	src := "# T\n\ntext\n\n```go\nx := 1\nx\n```\n\n```output\n2\n```\n\n```sh\nls\n```\n\n```go\nfmt.Println(\"hi\")\n```\n"
	tu, err := ParseBytes("t.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, s := range tu.Steps {
		kinds = append(kinds, s.Kind)
	}
	if !reflect.DeepEqual(kinds, []Kind{Prose, Code, Prose, Code}) {
		t.Fatalf("kinds %v", kinds)
	}
	if s := tu.Steps[1]; s.Line != 5 || !s.HasOutput || s.Expected != "2" || s.OutLine != 10 {
		t.Errorf("step 1: %+v", s)
	}
	errs := tu.Check(context.Background())
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "t.md:10:") || !strings.Contains(errs[0].Error(), "- 2\n+ 1") ||
		!strings.Contains(errs[1].Error(), "t.md:18:") {
		t.Errorf("Check: %v", errs)
	}
	out, errs := tu.Update(context.Background())
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := strings.Replace(src, "```output\n2\n```", "```output\n1\n```", 1) + "\n```output\nhi\n```\n"
	want = strings.Replace(want, "```\n\n```output\nhi", "```\n\n```output\nhi", 1)
	if string(out) != want {
		t.Errorf("Update:\n%s\nwant:\n%s", out, want)
	}
	nb1, _ := ToNotebook(tu)
	nb2, _ := ToNotebook(tu)
	if !bytes.Equal(nb1, nb2) || !json.Valid(nb1) {
		t.Error("ToNotebook is not deterministic or not JSON")
	}
}

// What compiled code prints to os.Stdout during a cell (here display's
// fallback, which writes there) is part of the cell's output, in order.
func TestRunCapturesStdout(t *testing.T) {
	src := "```go\nfmt.Println(\"before\")\ndisplay.Markdown(\"*shown*\")\nfmt.Println(\"after\")\n```\n\n" +
		"```output\nbefore\n*shown*\nafter\n```\n\n```go\nfmt.Println(\"next cell\")\n```\n\n```output\nnext cell\n```\n"
	tu, err := ParseBytes("stdout.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	for _, err := range tu.Check(context.Background()) {
		t.Error(err)
	}
	if os.Stdout != stdout {
		t.Error("os.Stdout was not restored")
	}
}

func TestPrepareDir(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tutorials", "testdata", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tutorials", "testdata", "sub", "f.txt"), []byte("fixture"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run, err := PrepareDir(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if run != filepath.Join(dir, "run") {
		t.Errorf("run directory %s", run)
	}
	// From the run directory, fixtures are ../tutorials/testdata/NAME.
	if b, err := os.ReadFile(filepath.Join(run, "..", "tutorials", "testdata", "sub", "f.txt")); err != nil || string(b) != "fixture" {
		t.Errorf("the copy: %q, %v", b, err)
	}
	if _, err := PrepareDir(t.TempDir(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "tutorials") {
		t.Errorf("a root without tutorials/testdata: %v", err)
	}
}

// A cell's map[string]any is a value shown as text; a display.Bundle is a
// bundle.
func TestValueBundle(t *testing.T) {
	m := map[string]any{"text/html": "<i>x</i>"}
	if b := valueBundle(reflect.ValueOf(m), "map[text/html:<i>x</i>]"); len(b) != 1 || b["text/plain"] == nil {
		t.Errorf("map value: %v", b)
	}
	if b := valueBundle(reflect.ValueOf(display.Bundle(m)), "text"); b["text/html"] == nil {
		t.Errorf("display.Bundle value: %v", b)
	}
}
