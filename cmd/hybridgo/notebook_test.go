package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotebookCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.md")
	out := filepath.Join(dir, "t.ipynb")
	os.WriteFile(in, []byte("# T\n\n```go\nx := 1\n```\n\n```output\n```\n"), 0o644)
	var so, se bytes.Buffer
	if code := run([]string{"notebook", in, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
		Metadata struct {
			Kernelspec struct{ Name string } `json:"kernelspec"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 2 || nb.Cells[1].CellType != "code" || strings.Join(nb.Cells[1].Source, "") != "x := 1" ||
		nb.Metadata.Kernelspec.Name != "hybridgo" {
		t.Errorf("notebook: %s", raw)
	}
	if code := run([]string{"notebook", in}, &so, &se); code != 2 {
		t.Errorf("without -o: exit %d, want 2", code)
	}
}
