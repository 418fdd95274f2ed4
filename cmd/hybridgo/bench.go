package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hybridgo/hybridgo/bench"
)

// runBench times the tutorial's LeNet driven from a REPL session.
func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "compare":
			return runBenchCompare(args[1:], stdout, stderr)
		case "case":
			return runBenchCase(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("hybridgo bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	batch := fs.Int("batch", 16, "batch size")
	budget := fs.Duration("time", 2*time.Second, "how long to time each case")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage:
  hybridgo bench [-batch N] [-time D]
        time the tutorial's LeNet from interpreted code: forward and a
        training step, eager and hybridized
  hybridgo bench case NAME [-threads N] [-impl IMPL] [-quick] [-cpuprofile FILE]
        time one case of ours, one JSON line per implementation
        (hybridgo bench case -h lists the cases)
  hybridgo bench compare [-threads 1,2] [-out FILE.md] [-quick] [-cases A,B]
        time hybridgo beside PyTorch, NumPy and ONNX Runtime and write a
        Markdown table
        (hybridgo bench compare -h for its flags)

Flags of hybridgo bench:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *batch <= 0 {
		fmt.Fprintln(stderr, "hybridgo bench: -batch must be positive")
		return 2
	}
	s, err := bench.NewInterpSession(*batch, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo bench:", err)
		return 1
	}
	fmt.Fprintf(stdout, "The LeNet of MXNet's hybridize tutorial, defined and driven from interpreted Go (a REPL session), batch %d.\n", *batch)
	fmt.Fprintf(stdout, "Each time is the median over about %v of runs.\n\n", *budget)
	tw := tabwriter.NewWriter(stdout, 0, 4, 3, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\teager\thybridized\tspeed-up\t")
	for _, c := range []struct{ name, eager, hybrid string }{
		{"forward", "forwardE", "forwardH"},
		{"training step (Record + Backward + SGD)", "stepE", "stepH"},
		{"41 small ops (Dense, 20 x MulScalar+Tanh) on 16x32", "smallE", "smallH"},
	} {
		var times [2]time.Duration
		for i, fn := range []string{c.eager, c.hybrid} {
			v, ok := s.Lookup(fn)
			if !ok || v.Kind() != reflect.Func {
				fmt.Fprintf(stderr, "hybridgo bench: %s is not defined\n", fn)
				return 1
			}
			d, err := medianRun(v, *budget)
			if err != nil {
				fmt.Fprintf(stderr, "hybridgo bench: %s: %v\n", fn, err)
				return 1
			}
			times[i] = d
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1fx\t\n", c.name, ms(times[0]), ms(times[1]), float64(times[0])/float64(times[1]))
	}
	tw.Flush()
	return 0
}

// medianRun calls fn(1) (one run, in the interpreter) twice to warm up
// (the hybridized net traces and compiles on its first call), then
// repeatedly for about budget, and returns the median time of a run.
func medianRun(fn reflect.Value, budget time.Duration) (d time.Duration, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	one := []reflect.Value{reflect.ValueOf(1)}
	runs, err := bench.Time(func() error { fn.Call(one); return nil }, nil, bench.Timing{Budget: budget, MinRuns: 5})
	if err != nil {
		return 0, err
	}
	slices.Sort(runs)
	return time.Duration(runs[len(runs)/2] * float64(time.Second)), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
