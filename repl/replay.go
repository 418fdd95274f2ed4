package repl

import (
	"context"
	"fmt"
	"io"
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
	for i, r := range s.history {
		skip := map[int]bool{}
		for j, c := range r.cell.chunks {
			if r.dropped[j] {
				skip[j] = true
			}
			for _, k := range c.keys {
				if again[k] {
					skip[j] = true
				}
			}
		}
		if _, err := s.run(ctx, w, r.cell, skip); err != nil {
			return Result{}, fmt.Errorf("redefining %s runs the earlier cells again, and cell %d failed: %v; the session is unchanged", keysString(redefined), i+1, err)
		}
	}
	w.stdout.set(s.opts.Stdout)
	w.stderr.setQuiet(false)
	res, err := s.run(ctx, w, pc, nil)
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
