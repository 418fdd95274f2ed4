package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/viz"
)

// runGraph draws a symbol file: SVG, a terminal drawing, or the
// optimizer's before and after.
func runGraph(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "-", "where to write: FILE.svg, FILE.txt, or - for the terminal")
	collapse := fs.Int("collapse", 0, "draw every block deeper than N prefix levels as one node (0: none)")
	width := fs.Int("width", 80, "terminal columns for the text drawing (80 or 120)")
	passes := fs.Bool("passes", false, "show the graph before and after optimization, with the pass reports and memory plan")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: hybridgo graph FILE-symbol.json [flags]\n\nDraws a model's graph as SVG or for the terminal.\n\nFlags:")
		fs.PrintDefaults()
	}
	// Flags may come before or after the file name.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	if *width < 20 {
		fmt.Fprintf(stderr, "hybridgo graph: -width %d is too narrow (want 80 or 120)\n", *width)
		return 2
	}
	if strings.HasSuffix(*out, ".html") {
		fmt.Fprintln(stderr, "hybridgo graph: html output needs viz.HTML; write .svg or .txt instead")
		return 2
	}
	sym, err := graph.LoadSymbol(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
		return 1
	}
	g := sym.Graph()
	o := viz.DefaultOptions()
	o.CollapseDepth = *collapse
	o.ParamCounts = true

	svg := strings.HasSuffix(*out, ".svg")
	var data []byte
	switch {
	case *passes:
		pic, report, err := viz.PassView(g, o)
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		if svg {
			data = pic
		} else {
			data = []byte(report)
		}
	case svg:
		l, err := viz.LayoutGraph(g, o)
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		data = viz.SVG(l, viz.SVGOptions{Title: filepath.Base(files[0]), Legend: true})
	default:
		s, err := viz.DrawText(g, o, *width)
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		data = []byte(s)
	}
	if *out == "-" {
		stdout.Write(data)
		return 0
	}
	if err := writeFileAtomic(*out, data); err != nil {
		fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", *out, len(data))
	return 0
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path, so that readers see the old file or the new one.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
