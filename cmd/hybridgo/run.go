package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/hybridgo/hybridgo/repl"
)

// runFile is `hybridgo run FILE.go`: it interprets a Go file (a package
// main with func main, or a script of statements) with hybridgo's
// packages preloaded, as the REPL has them. Ctrl-C stops it.
func runFile(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: hybridgo run FILE.go")
		return 2
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo run: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := repl.Run(ctx, repl.Options{Stdout: stdout, Stderr: stderr}, args[0], string(src)); err != nil {
		fmt.Fprintf(stderr, "hybridgo run: %v\n", err)
		return 1
	}
	return 0
}
