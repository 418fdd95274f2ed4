package tutorials

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every Markdown file in the directory is embedded, and has a title.
func TestEmbedsEveryTutorial(t *testing.T) {
	onDisk, err := filepath.Glob("*.md")
	if err != nil || len(onDisk) == 0 {
		t.Fatalf("no tutorials on disk (%v)", err)
	}
	var want []string
	for _, f := range onDisk {
		want = append(want, strings.TrimSuffix(f, ".md"))
	}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, n := range want {
		src, err := Source(n)
		if err != nil {
			t.Fatal(err)
		}
		disk, _ := os.ReadFile(n + ".md")
		if string(src) != string(disk) {
			t.Errorf("%s: embedded source differs from the file", n)
		}
		if Title(src) == "" {
			t.Errorf("%s.md has no \"# \" title", n)
		}
	}
}

func TestSourceOfUnknownNameListsTheTutorials(t *testing.T) {
	_, err := Source("nope")
	if err == nil || !strings.Contains(err.Error(), `no tutorial is called "nope"`) || !strings.Contains(err.Error(), "hybridize") {
		t.Errorf("Source(nope) error = %v", err)
	}
}

func TestWriteTestdata(t *testing.T) {
	dir := t.TempDir()
	run, err := WriteTestdata(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run != filepath.Join(dir, "run") {
		t.Errorf("run dir %s", run)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "mxnet1x-symbol.json"))
	got, err := os.ReadFile(filepath.Join(run, "..", "tutorials", "testdata", "mxnet1x-symbol.json"))
	if err != nil || len(want) == 0 || string(got) != string(want) {
		t.Errorf("the fixture is not at ../tutorials/testdata from the run directory: %v", err)
	}
}
