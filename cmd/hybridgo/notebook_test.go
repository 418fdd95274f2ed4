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

// The notebook keeps each cell's outputs as the kernel makes them: what
// it printed as a stream, its value as an execute_result with the
// NDArray's HTML table; files the cells write do not land here.
func TestNotebookCommandSavesOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("t.md", []byte("# T\n\n```go\nfmt.Println(\"hi\")\nos.WriteFile(\"junk.txt\", nil, 0o644)\nnd.Ones(2)\n```\n"), 0o644)
	var so, se bytes.Buffer
	if code := run([]string{"notebook", "t.md", "-o", "t.ipynb"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	raw, err := os.ReadFile("t.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			ExecutionCount *int `json:"execution_count"`
			Outputs        []struct {
				OutputType string         `json:"output_type"`
				Name       string         `json:"name"`
				Text       []string       `json:"text"`
				Data       map[string]any `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(raw, &nb); err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 2 || nb.Cells[1].ExecutionCount == nil || *nb.Cells[1].ExecutionCount != 1 || len(nb.Cells[1].Outputs) != 2 {
		t.Fatalf("notebook: %s", raw)
	}
	outs := nb.Cells[1].Outputs
	if outs[0].OutputType != "stream" || outs[0].Name != "stdout" || strings.Join(outs[0].Text, "") != "hi\n" {
		t.Errorf("first output: %+v", outs[0])
	}
	if outs[1].OutputType != "execute_result" || outs[1].Data["text/plain"] == nil || outs[1].Data["text/html"] == nil ||
		!strings.Contains(string(raw), "<NDArray 2 @cpu(0)>") {
		t.Errorf("second output: %+v", outs[1])
	}
	if _, err := os.Stat("junk.txt"); err == nil {
		t.Error("a file the cells wrote landed beside the tutorial")
	}

	// A failing cell fails the command, naming the line; nothing is written.
	os.WriteFile("bad.md", []byte("# B\n\n```go\nundefinedThing\n```\n"), 0o644)
	if code := run([]string{"notebook", "bad.md", "-o", "bad.ipynb"}, &so, &se); code != 1 || !strings.Contains(se.String(), "bad.md:3: the cell failed") {
		t.Errorf("failing cell: exit %d, %s", code, se.String())
	}
	if _, err := os.Stat("bad.ipynb"); err == nil {
		t.Error("a notebook was written for a failing tutorial")
	}
}

// A tutorial copied out of tutorials/ reads the files built into the
// command, as hybridgo tutorial FILE.md does.
func TestNotebookOutsideTutorials(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "tutorials", "export-deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("export-deploy.md", src, 0o644)
	var so, se bytes.Buffer
	if code := run([]string{"notebook", "export-deploy.md", "-o", "e.ipynb"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if raw, err := os.ReadFile("e.ipynb"); err != nil || !strings.Contains(string(raw), `\"op\": \"BatchNorm\",`) {
		t.Errorf("notebook %.300s, %v", raw, err)
	}
}
