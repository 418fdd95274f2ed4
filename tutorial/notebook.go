package tutorial

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToNotebook returns t as a Jupyter notebook (nbformat 4.5) for the
// hybridgo kernel: a Markdown cell per run of prose, a code cell per code
// block, no outputs. The same tutorial always gives the same bytes.
func ToNotebook(t *Tutorial) ([]byte, error) {
	return notebook(t, nil)
}

// notebook makes the notebook of t; outputs, when not nil, holds the
// outputs and execution count of each code step, by step index.
func notebook(t *Tutorial, outputs map[int]*cellOutputs) ([]byte, error) {
	cells := []map[string]any{}
	for i, st := range t.Steps {
		c := map[string]any{
			"id":       fmt.Sprintf("cell-%d", i+1),
			"metadata": map[string]any{},
			"source":   sourceLines(st.Text),
		}
		if st.Kind == Code {
			c["cell_type"] = "code"
			c["execution_count"] = nil
			c["outputs"] = []any{}
			if o := outputs[i]; o != nil {
				c["execution_count"] = o.count
				c["outputs"] = o.list
			}
		} else {
			c["cell_type"] = "markdown"
		}
		cells = append(cells, c)
	}
	nb := map[string]any{
		"cells": cells,
		"metadata": map[string]any{
			"kernelspec": map[string]any{
				"display_name": "Go (hybridgo)",
				"language":     "go",
				"name":         "hybridgo",
			},
			"language_info": map[string]any{
				"codemirror_mode": "go",
				"file_extension":  ".go",
				"mimetype":        "text/x-go",
				"name":            "go",
			},
		},
		"nbformat":       4,
		"nbformat_minor": 5,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sourceLines splits a cell's text as notebooks store it: lines that
// keep their newline, the last without one.
func sourceLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
