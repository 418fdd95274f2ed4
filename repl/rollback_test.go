package repl

import (
	"context"
	"testing"
)

// BenchmarkSnapshot is the rollback's cost per cell: a snapshot of a
// session with some declarations.
func BenchmarkSnapshot(b *testing.B) {
	s, err := NewSession(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, cell := range []string{"x := 1", "type P struct{ A int }", "func (p P) M() int { return p.A }", "net := nn.NewDense(3)"} {
		if _, err := s.Eval(context.Background(), cell); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		snapshot(s.in.in)
	}
}

// BenchmarkFailedCell is a cell that fails to compile and is rolled back.
func BenchmarkFailedCell(b *testing.B) {
	s, err := NewSession(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Eval(context.Background(), "bad := nn.NewDense(3, nn.DenseOptions{Nope: 1})"); err == nil {
			b.Fatal("no error")
		}
	}
}

// BenchmarkNewWorld is what rebuilding the interpreter would cost before
// replaying the cells: a fresh interpreter with the packages imported.
func BenchmarkNewWorld(b *testing.B) {
	s, err := NewSession(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.newWorld(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrivialCell is a cell's whole cost, the snapshot included.
func BenchmarkTrivialCell(b *testing.B) {
	s, err := NewSession(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Eval(context.Background(), "1 + 1"); err != nil {
			b.Fatal(err)
		}
	}
}
