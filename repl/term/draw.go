package term

import (
	"fmt"

	"github.com/hybridgo/hybridgo/graph"
)

// drawText draws a graph for the terminal: one op per line, with shapes.
func drawText(sym *graph.Symbol) string { return sym.Graph().String() }

// drawFile renders a graph as the file type ext names (".txt", ".svg",
// ".html").
func drawFile(sym *graph.Symbol, ext string) ([]byte, error) {
	switch ext {
	case ".txt":
		return []byte(drawText(sym)), nil
	case ".svg", ".html":
		return nil, fmt.Errorf("drawing %s files is not available in this build; use a .txt file", ext)
	}
	return nil, fmt.Errorf("unknown graph file type %q: use .svg, .html or .txt", ext)
}
