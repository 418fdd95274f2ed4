package viz

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes data to path atomically: into a temporary file in the
// same directory, synced, then renamed over path, so that a reader (a
// browser reloading the page, a notebook) sees the old file or the new one,
// never a part. The new file has mode 0644.
func WriteFile(path string, data []byte) error { return WriteFileMode(path, data, 0o644) }

// WriteFileMode is WriteFile giving the new file the permissions perm
// (0600 for a file only its owner reads).
func WriteFileMode(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

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
