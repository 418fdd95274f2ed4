// Command hybridgo is the front door of hybridgo: MXNet Gluon's hybrid
// programming model in Go.
//
//	hybridgo [-no-replay] [-memory SIZE]  the REPL: Go with the framework imported
//	hybridgo repl [flags] the same
//	hybridgo bench        time the tutorial's LeNet, eager and hybridized, from interpreted code
//	hybridgo ops [NAME…]  list the registered operators, or describe some
//	hybridgo graph FILE   draw a symbol file for the terminal, as SVG or as HTML
//	hybridgo convert FILE-symbol.json [FILE.params] -o FILE.onnx  an MXNet model as ONNX
//	hybridgo train        train the tutorial's LeNet on Fashion-MNIST
//	hybridgo run FILE.go  interpret a Go program or script, hybridgo preloaded
//	hybridgo tutorial [NAME]  list the tutorials, or walk through one in the terminal
//	hybridgo notebook FILE.md -o FILE.ipynb  a Markdown tutorial as a notebook
//	hybridgo kernel FILE  the Jupyter kernel (hybridgo kernel install registers it)
//	hybridgo version      print the version
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hybridgo/hybridgo/internal/mpi"
	"github.com/hybridgo/hybridgo/ops"
	"github.com/hybridgo/hybridgo/repl/term"
	"github.com/hybridgo/hybridgo/repl/worker"
	"github.com/hybridgo/hybridgo/tutorial/walk"
)

// version is the release this binary was built from.
const version = "0.1.0-dev"

func main() {
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	// A distributed run (train -kvstore dist_sync, or a script that made
	// a dist_sync store) ends MPI cleanly on success; on failure the
	// non-zero exit makes mpirun end the other workers.
	if code == 0 {
		if err := mpi.Finalize(); err != nil {
			fmt.Fprintf(os.Stderr, "hybridgo: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// stdin is what the REPL reads (a variable for the tests).
var stdin = os.Stdin

// run executes one command line and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runREPL(args, stdout, stderr)
	}
	switch args[0] {
	case "repl":
		return runREPL(args[1:], stdout, stderr)
	case "worker": // the REPL's worker process, which the REPL starts
		return term.Worker()
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "ops":
		return runOps(args[1:], stdout, stderr)
	case "train":
		return runTrain(args[1:], stdout, stderr)
	case "graph":
		return runGraph(args[1:], stdout, stderr)
	case "convert":
		return runConvert(args[1:], stdout, stderr)
	case "run":
		return runFile(args[1:], stdout, stderr)
	case "notebook":
		return runNotebook(args[1:], stdout, stderr)
	case "tutorial", "tutorials":
		return walk.Main(args[1:], stdin, stdout, stderr)
	case "kernel":
		return runKernel(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "hybridgo %s\n", version)
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprintf(stdout, "hybridgo %s — MXNet Gluon's hybrid programming model, in Go\n", version)
		fmt.Fprintf(stdout, "%d operators registered (`hybridgo ops` lists them)\n\n", len(ops.All()))
		printUsage(stdout)
		return 0
	}
	if strings.HasPrefix(args[0], "-") { // the REPL's flags
		return runREPL(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "hybridgo: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return 2
}

// runREPL is the REPL with its flags.
func runREPL(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wf := workerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hybridgo repl takes flags only, not %q\n", fs.Arg(0))
		return 2
	}
	limit, err := wf.limit()
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo:", err)
		return 2
	}
	return term.Main(stdin, stdout, stderr, term.Options{NoReplay: *wf.noReplay, MemoryLimit: limit})
}

// workerFlagSet is the flags of the worker process that runs the cells,
// for the REPL and the kernel.
type workerFlagSet struct {
	noReplay *bool
	memory   *string
}

func workerFlags(fs *flag.FlagSet) workerFlagSet {
	return workerFlagSet{
		noReplay: fs.Bool("no-replay", false, "when a cell ends the worker process, start the new one empty instead of replaying the cells"),
		memory:   fs.String("memory", "", "the worker's memory limit: a size (8GiB), a percentage of physical memory (50%) or off; default "+strconv.Itoa(worker.DefaultMemoryPercent)+"%"),
	}
}

// limit is the -memory flag in bytes, 0 when not given.
func (f workerFlagSet) limit() (int64, error) {
	if *f.memory == "" {
		return 0, nil
	}
	return worker.ParseMemory(*f.memory)
}

// args are the flags as given, for the kernelspec's command line.
func (f workerFlagSet) args() []string {
	var a []string
	if *f.memory != "" {
		a = append(a, "-memory", *f.memory)
	}
	if *f.noReplay {
		a = append(a, "-no-replay")
	}
	return a
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  hybridgo [-no-replay] [-memory SIZE]
                           the REPL: Go statements with nd, nn, ops, graph and
                           the other hybridgo packages imported (:help inside
                           lists them and its commands); reads
                           statements without prompts when stdin is not a terminal.
                           A cell that ends its worker process is reported and the
                           cells are replayed in a new one, unless -no-replay;
                           -memory: the worker's limit (8GiB, 50%, off; default 75%)
  hybridgo repl [flags]    the same
  hybridgo bench [flags]   time the tutorial's LeNet from interpreted code:
                           forward and a training step, eager and hybridized
  hybridgo bench compare [-threads 1,2] [-out docs/benchmarks.md] [-quick]
                           time hybridgo beside PyTorch and NumPy (bench/torch):
                           speed, peak memory, a Fashion-MNIST epoch; write a
                           Markdown table
  hybridgo bench case NAME [-threads N] [-impl IMPL] [-quick]
                           time one case of ours, one JSON line per variant
  hybridgo ops [NAME...]   list every registered operator with its inputs and
                           attributes, or describe the named ones in full
                           (-onnx: the ONNX ops that import; -unsupported:
                           MXNet 1.9's operators hybridgo lacks)
  hybridgo graph FILE-symbol.json [-o out.svg|out.html|out.txt|-]
                 [-collapse N] [-width N] [-passes]
                           draw a model's graph for the terminal, as SVG or as
                           an interactive page; -passes shows it before and
                           after optimization
  hybridgo convert MODEL-symbol.json [MODEL-0000.params] [-o MODEL.onnx]
                 [-shape data=1,3,224,224] [-opset 13] [-static-batch]
                           convert an MXNet model to ONNX (opset 13, dynamic
                           batch N); -shape for inputs the file leaves unshaped
  hybridgo train [flags]   train the LeNet of MXNet's hybridize tutorial on
                           Fashion-MNIST, hybridized (-h for the flags);
                           data-parallel as mpirun -np N hybridgo train
                           -kvstore dist_sync (a build with -tags mpi)
  hybridgo run FILE.go     interpret a Go file (package main with func main,
                           or a script of statements) with hybridgo's packages
                           preloaded, as in the REPL
  hybridgo tutorial [NAME] list the tutorials; with a NAME (or FILE.md), walk
                           through it: each cell shown, run with Enter, its
                           output checked against the tutorial's
  hybridgo notebook FILE.md -o FILE.ipynb
                           turn a Markdown tutorial (tutorials/) into a
                           notebook: prose as Markdown cells, go blocks as code
  hybridgo kernel [-memory SIZE] [-no-replay] CONNECTION_FILE
                           the Jupyter kernel, which Jupyter starts; its cells
                           run in a worker process, as the REPL's
  hybridgo kernel install [--user | --prefix DIR] [-memory SIZE] [-no-replay]
                           register the kernel with Jupyter (kernel.json and
                           logos in DIR/share/jupyter/kernels/hybridgo); the
                           flags go into the kernel's command line
  hybridgo version         print the version
`)
}
