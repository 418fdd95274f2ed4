package viz

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/internal/atomicfile"
)

// WriteFile writes data to path atomically: into a temporary file in the
// same directory, synced, then renamed over path, so that a reader (a
// browser reloading the page, a notebook) sees the old file or the new one,
// never a part. A new file has mode 0644; a replaced one keeps its mode.
func WriteFile(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }

// Format is a kind of graph drawing file.
type Format int

// The drawings a file can hold.
const (
	FormatText Format = iota // boxes and arrows in text (DrawText)
	FormatSVG                // a picture (DrawSVG)
	FormatHTML               // an interactive page (DrawHTML)
)

// FormatOf returns the drawing that a file named path holds, from its
// extension (.txt, .svg or .html, in any case); any other extension is an
// error.
func FormatOf(path string) (Format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".txt":
		return FormatText, nil
	case ".svg":
		return FormatSVG, nil
	case ".html":
		return FormatHTML, nil
	case "":
		return 0, fmt.Errorf("graph file %s has no extension: use .svg, .html or .txt", path)
	default:
		return 0, fmt.Errorf("unknown graph file type %q: use .svg, .html or .txt", ext)
	}
}
