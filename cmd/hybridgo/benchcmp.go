package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hybridgo/hybridgo/accel"
	"github.com/hybridgo/hybridgo/bench"
	"github.com/hybridgo/hybridgo/viz"
)

// runBenchCase times one case of ours and prints a JSON line per
// implementation (`hybridgo bench case NAME -threads N`).
func runBenchCase(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo bench case", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threads := fs.Int("threads", 0, "threads the worker pool must have (GOMAXPROCS at start-up); 0 for any")
	impl := fs.String("impl", "", "time only this implementation (ours-eager or ours-hybrid)")
	quick := fs.Bool("quick", false, "few repetitions")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed runs to this file (read it with go tool pprof)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: hybridgo bench case NAME [-threads N] [-impl IMPL] [-quick] [-cpuprofile FILE]\n\n"+
			"Times one case of ours and prints a JSON line per implementation.\n\nCases, and the values of -impl each has:\n")
		tw := tabwriter.NewWriter(stderr, 0, 4, 2, ' ', 0)
		for _, c := range bench.Cases() {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, strings.Join(c.Ours, ", "), c.Title)
		}
		tw.Flush()
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return 2
	}
	name := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	c, err := bench.CaseNamed(name)
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo bench case:", err)
		return 2
	}
	if *threads > 0 && accel.Workers() != *threads {
		fmt.Fprintf(stderr, "hybridgo bench case: the worker pool has %d threads, not %d: it reads GOMAXPROCS at start-up, so run with GOMAXPROCS=%d in the environment\n",
			accel.Workers(), *threads, *threads)
		return 2
	}
	timing := bench.DefaultTiming
	if *quick {
		timing = bench.QuickTiming
	}
	impls := c.Ours
	if *impl != "" {
		if !slices.Contains(c.Ours, *impl) {
			fmt.Fprintf(stderr, "hybridgo bench case: %s has no implementation %q (it has %s)\n", name, *impl, strings.Join(c.Ours, ", "))
			return 2
		}
		impls = []string{*impl}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "hybridgo bench case:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "hybridgo bench case:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	for _, im := range impls {
		r, err := bench.Run(c, im, timing)
		if err != nil {
			fmt.Fprintln(stderr, "hybridgo bench case:", err)
			return 1
		}
		fmt.Fprintln(stdout, r.JSON())
	}
	return 0
}

// runBenchCompare times every case beside PyTorch, NumPy and ONNX Runtime
// and writes a Markdown table (`hybridgo bench compare`).
func runBenchCompare(args []string, stdout, stderr io.Writer) int {
	o, out, code := compareOptions(args, stderr)
	if code != 0 {
		return code
	}
	rep, err := bench.Compare(o)
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo bench compare:", err)
		return 1
	}
	if out == "-" {
		bench.Render(stdout, rep)
		return 0
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		fmt.Fprintln(stderr, "hybridgo bench compare:", err)
		return 1
	}
	var buf bytes.Buffer
	bench.Render(&buf, rep)
	if err := viz.WriteFile(out, buf.Bytes()); err != nil {
		fmt.Fprintln(stderr, "hybridgo bench compare:", err)
		return 1
	}
	fmt.Fprintf(stderr, "wrote %s\n", out)
	return 0
}

// compareOptions reads the flags of `hybridgo bench compare` into the
// comparison's options and the file to write, or returns a non-zero exit
// code. The peers
// run in this process's environment without the variables that force
// OpenBLAS's kernels (bench.OwnKernelsEnv).
func compareOptions(args []string, stderr io.Writer) (o bench.Options, out string, code int) {
	fs := flag.NewFlagSet("hybridgo bench compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	threadList := fs.String("threads", "1,2", "comma-separated thread counts")
	outFlag := fs.String("out", "docs/benchmarks.md", "Markdown file to write (- for stdout)")
	quick := fs.Bool("quick", false, "few repetitions (noisy; for tests)")
	cases := fs.String("cases", "", "comma-separated case names (default: all)")
	python := fs.String("python", bench.FindPython(), "Python interpreter with torch and numpy")
	script := fs.String("script", "", "the torch side's script (default: bench/torch/bench.py, looked for from the working directory up)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: hybridgo bench compare [flags]\n\n"+
			"Times every case (hybridgo bench case -h lists them) beside PyTorch, NumPy\n"+
			"and ONNX Runtime (installed with npm into the user's cache on first use)\n"+
			"and writes a Markdown table. The peers run without OPENBLAS_CORETYPE and\n"+
			"OPENBLAS_L2_SIZE, so that OpenBLAS picks its own kernels.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, "", 2
	}
	var threads []int
	for _, f := range strings.Split(*threadList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "hybridgo bench compare: bad thread count %q\n", f)
			return o, "", 2
		}
		threads = append(threads, n)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo bench compare:", err)
		return o, "", 1
	}
	if *script == "" {
		wd, _ := os.Getwd()
		*script = bench.FindScript(wd)
	}
	o = bench.Options{Threads: threads, Quick: *quick, Self: self, Python: *python, Script: *script,
		PeerEnv: bench.OwnKernelsEnv(os.Environ()), Log: stderr}
	if *script == "" {
		fmt.Fprintln(stderr, "hybridgo bench compare: bench/torch/bench.py not found; run from the repository or pass -script; timing ours only")
		o.Python = ""
	} else if ort := filepath.Join(filepath.Dir(filepath.Dir(*script)), "ort", "bench.js"); fileExists(ort) {
		o.ORTScript = ort
	}
	if *cases != "" {
		o.Cases = strings.Split(*cases, ",")
	}
	return o, *outFlag, 0
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
