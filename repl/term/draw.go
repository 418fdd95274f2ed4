package term

import (
	"os"
	"strconv"

	"github.com/chzyer/readline"

	"github.com/hybridgo/hybridgo/graph"
	"github.com/hybridgo/hybridgo/viz"
)

// screenWidth is the terminal's width in columns: the terminal's own, or
// COLUMNS (what the front end tells a worker process), or 100.
func screenWidth() int {
	if w := readline.GetScreenWidth(); w > 20 {
		return w
	}
	if w, _ := strconv.Atoi(os.Getenv("COLUMNS")); w > 20 {
		return w
	}
	return 100
}

// drawText draws a graph for a terminal of width columns with boxes and
// arrows, or, if that fails, as a listing of its ops.
func drawText(sym *graph.Symbol, width int) string {
	g := sym.Graph()
	if s, err := viz.DrawText(g, viz.DefaultOptions(), width); err == nil {
		return s
	}
	return g.String()
}

// drawFile renders a graph as the file type of the name file (".txt",
// ".svg", ".html").
func drawFile(sym *graph.Symbol, file, title string) ([]byte, error) {
	f, err := viz.FormatOf(file)
	if err != nil {
		return nil, err
	}
	switch f {
	case viz.FormatSVG:
		return viz.DrawSVG(sym.Graph(), viz.DefaultOptions())
	case viz.FormatHTML:
		return viz.DrawHTML(sym.Graph(), viz.DefaultOptions(), viz.HTMLOptions{Title: title})
	}
	return []byte(drawText(sym, 100)), nil
}
