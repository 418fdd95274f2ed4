package repl

import (
	"context"
	"errors"
	"fmt"
)

// Run runs a Go file in a new session with the same preloads as the REPL:
// either a package main with a func main (its declarations, then main),
// or a script of statements and declarations, as typed into the REPL.
// Errors name the file and the line.
func Run(ctx context.Context, o Options, filename, src string) error {
	s, err := NewSession(o)
	if err != nil {
		return err
	}
	s.runMode = true
	if _, err := s.Eval(ctx, src); err != nil {
		return fileError(filename, err)
	}
	s.mu.Lock()
	_, hasMain := s.funcDecl(mainAlias)
	s.mu.Unlock()
	if hasMain {
		if _, err := s.Eval(ctx, mainAlias+"()"); err != nil {
			return fileError(filename, err)
		}
	}
	return nil
}

func fileError(filename string, err error) error {
	var ce *CompileError
	if errors.As(err, &ce) && ce.Line > 0 {
		return fmt.Errorf("%s:%w", filename, err)
	}
	return fmt.Errorf("%s: %w", filename, err)
}
