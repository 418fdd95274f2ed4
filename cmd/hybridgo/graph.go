package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/viz"
)

// runGraph draws a symbol file: SVG, a terminal drawing, or the
// optimizer's before and after.
func runGraph(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "-", "where to write: FILE.svg, FILE.html (interactive), FILE.txt, or - for the terminal")
	assets := fs.String("assets", "", "for .html: a directory (or URL) holding echarts.min.js, for offline use (default: echarts' CDN)")
	collapse := fs.Int("collapse", 0, "draw every block deeper than N prefix levels as one node (0: none)")
	width := fs.Int("width", 80, "terminal columns for the text drawing, at least 20 (80 or 120 are usual)")
	passes := fs.Bool("passes", false, "show the graph before and after optimization (.svg or text), with the pass reports and memory plan")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: hybridgo graph FILE-symbol.json [flags]\n\nDraws a model's graph for the terminal, as text (.txt), as SVG (.svg) or\nas an interactive page (.html).\n\nFlags:")
		fs.PrintDefaults()
	}
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 {
		fs.Usage()
		return 2
	}
	if *width < 20 {
		fmt.Fprintf(stderr, "hybridgo graph: -width %d is too narrow (want at least 20; 80 or 120 are usual)\n", *width)
		return 2
	}
	sym, err := mxnet.LoadSymbol(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
		return 1
	}
	g := sym.Graph()
	o := viz.DefaultOptions()
	o.CollapseDepth = *collapse
	o.ParamCounts = true

	format := viz.FormatText
	if *out != "-" {
		if format, err = viz.FormatOf(*out); err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: -o %v\n", err)
			return 2
		}
	}
	if format == viz.FormatHTML && *passes {
		fmt.Fprintln(stderr, "hybridgo graph: -passes draws .svg or text; write .svg for the picture")
		return 2
	}
	var data []byte
	switch {
	case *passes && format == viz.FormatSVG:
		if data, _, err = viz.PassView(g, o); err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
	case *passes:
		s, err := passesText(g, o, *width)
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		data = []byte(s)
	case format == viz.FormatSVG:
		l, err := viz.LayoutGraph(g, o)
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		data = viz.SVG(l, viz.SVGOptions{Title: filepath.Base(files[0]), Legend: true})
	case format == viz.FormatHTML:
		page, err := viz.DrawHTML(g, o, viz.HTMLOptions{Title: filepath.Base(files[0]), AssetsHost: *assets})
		if err != nil {
			fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
			return 1
		}
		data = page
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
	if err := viz.WriteFile(*out, data); err != nil {
		fmt.Fprintf(stderr, "hybridgo graph: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", *out, len(data))
	return 0
}

// passesText is -passes for the terminal: the graph before and after
// graph.Optimize as text drawings, then PassView's report of each pass
// and the memory plan.
func passesText(g *graph.Graph, o viz.Options, width int) (string, error) {
	_, report, err := viz.PassView(g, o)
	if err != nil {
		return "", err
	}
	after, _, err := graph.Optimize(g, graph.InferencePassOptions())
	if err != nil {
		return "", err
	}
	before, err := viz.DrawText(g, o, width)
	if err != nil {
		return "", err
	}
	afterText, err := viz.DrawText(after, o, width)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("before:\n" + strings.TrimRight(before, "\n") + "\n\n")
	b.WriteString("after:\n" + strings.TrimRight(afterText, "\n") + "\n\n")
	b.WriteString(report)
	return b.String(), nil
}

// parseInterspersed parses args with fs, letting flags come before, after
// or between the file names, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
