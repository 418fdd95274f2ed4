package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"strconv"
	"strings"
)

// The interpreter keeps the first declaration of a type or a method and
// silently ignores a second one. So when a cell declares again a type or
// a method that an earlier cell declared (differently), the session
// builds a fresh interpreter, runs the earlier cells again without the
// replaced declarations (their output discarded), then the new cell. The
// session's variables are thereby recomputed with the new definitions.
// If an earlier cell fails on the way, or the new cell does, the session
// stays as it was. Functions can be redefined in place and need no
// replay.

// redefinitions returns the declarations of pc that replace different
// earlier ones (type and method declarations, which need a replay), and
// all the declarations that pc declares again (to drop from the record).
func (s *Session) redefinitions(pc *parsedCell) (redefined []declKey, again map[declKey]bool) {
	again = map[declKey]bool{}
	for _, c := range pc.chunks {
		for _, k := range c.keys {
			if k.kind != "type" && k.kind != "method" && k.kind != "func" {
				continue
			}
			old, ok := s.latestDecl(k)
			if !ok {
				continue
			}
			again[k] = true
			if k.kind != "func" && normalize(old) != normalize(pc.src[c.start:c.end]) {
				redefined = append(redefined, k)
			}
		}
	}
	return redefined, again
}

// latestDecl returns the source of the chunk that declares k.
func (s *Session) latestDecl(k declKey) (string, bool) {
	for i := len(s.history) - 1; i >= 0; i-- {
		r := s.history[i]
		for j, c := range r.cell.chunks {
			if r.dropped[j] {
				continue
			}
			for _, ck := range c.keys {
				if ck == k {
					return r.cell.src[c.start:c.end], true
				}
			}
		}
	}
	return "", false
}

func normalize(src string) string { return strings.Join(strings.Fields(src), " ") }

func (s *Session) replay(ctx context.Context, pc *parsedCell, redefined []declKey) (Result, error) {
	_, again := s.redefinitions(pc)
	w, err := s.newWorld()
	if err != nil {
		return Result{}, err
	}
	w.stdout.set(io.Discard)
	w.stderr.setQuiet(true)
	pl := s.plan(pc)
	for i, r := range s.history {
		if _, err := s.run(ctx, w, r.cell, pl.skip[i], pl.extra[i]); err != nil {
			return Result{}, fmt.Errorf("redefining %s runs the earlier cells again, and cell %d failed: %v; the session is unchanged", keysString(redefined), i+1, err)
		}
	}
	w.stdout.set(s.opts.Stdout)
	w.stderr.setQuiet(false)
	last := len(s.history)
	res, err := s.run(ctx, w, pc, pl.skip[last], pl.extra[last])
	if err != nil {
		return Result{}, err
	}
	s.in = w
	s.commit(pc, again)
	return res, nil
}

func keysString(keys []declKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, ", ")
}

// placed is a declaration chunk of a cell.
type placed struct {
	cell *parsedCell
	idx  int
}

// plan lays out a replay of the history, then pc (when not nil): every
// declaration is evaluated, in its latest version, with the cell that
// first declared its name ("its home"), so that the cells in between see
// it; skip[i] are the chunks of cell i evaluated elsewhere or replaced,
// extra[i] the declarations of later cells evaluated with cell i.
type plan struct {
	skip  []map[int]bool
	extra [][]placed
}

func (s *Session) plan(pc *parsedCell) plan {
	type entry struct {
		cell    *parsedCell
		dropped map[int]bool
	}
	var cells []entry
	for _, r := range s.history {
		cells = append(cells, entry{r.cell, r.dropped})
	}
	if pc != nil {
		cells = append(cells, entry{pc, nil})
	}
	pl := plan{skip: make([]map[int]bool, len(cells)), extra: make([][]placed, len(cells))}
	home := map[declKey]int{}
	for i, e := range cells {
		pl.skip[i] = map[int]bool{}
		for _, c := range e.cell.chunks {
			for _, k := range c.keys {
				if _, ok := home[k]; !ok && (k.kind == "type" || k.kind == "func" || k.kind == "method") {
					home[k] = i
				}
			}
		}
	}
	// A declaration is replaced when a later one declares all its names.
	latest := map[declKey]int{}
	for i, e := range cells {
		for _, c := range e.cell.chunks {
			for _, k := range c.keys {
				latest[k] = i
			}
		}
	}
	for i, e := range cells {
		for j, c := range e.cell.chunks {
			if c.kind != chunkType && c.kind != chunkFunc {
				continue
			}
			replaced := len(c.keys) > 0
			for _, k := range c.keys {
				if latest[k] == i {
					replaced = false
				}
			}
			if e.dropped[j] || replaced {
				pl.skip[i][j] = true
				continue
			}
			h := i
			if len(c.keys) > 0 {
				h = home[c.keys[0]]
			}
			if h != i {
				pl.skip[i][j] = true
				pl.extra[h] = append(pl.extra[h], placed{e.cell, j})
			}
		}
	}
	return pl
}

func sharesKey(a, b chunk) bool {
	for _, x := range a.keys {
		for _, y := range b.keys {
			if x == y {
				return true
			}
		}
	}
	return false
}

// importAll imports what a cell imports.
func (s *Session) importAll(w *world, pc *parsedCell) error {
	for _, d := range pc.decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			path, _ := strconv.Unquote(is.Path.Value)
			name := ""
			if is.Name != nil {
				name = is.Name.Name
			}
			if err := w.importPath(name, path); err != nil {
				return err
			}
		}
	}
	return nil
}
