package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/internal/mpi"
	"github.com/hybridgo/hybridgo/ops"
)

// The test binary is also the REPL's worker process, as hybridgo is its
// own (the REPL starts its executable with the argument "worker").
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestOpsListsEveryOp(t *testing.T) {
	code, out, _ := runCmd("ops")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, op := range ops.All() {
		if !strings.Contains(out, "\n"+op.Name()+" ") {
			t.Errorf("the listing lacks %s", op.Name())
		}
	}
}

func TestOpsDescribesOne(t *testing.T) {
	code, out, _ := runCmd("ops", "_plus_scalar")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"_plus_scalar", "aliases: _PlusScalar", "inputs: data", "scalar", "default 1.0", "gradient: yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("description lacks %q:\n%s", want, out)
		}
	}
}

func TestOpsUnknownName(t *testing.T) {
	code, _, errOut := runCmd("ops", "relux")
	if code != 1 || !strings.Contains(errOut, `no operator named "relux"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	_, _, errOut = runCmd("ops", "rel")
	if !strings.Contains(errOut, "did you mean") || !strings.Contains(errOut, "relu") {
		t.Errorf("no suggestion for a near miss: %q", errOut)
	}
}

func TestOpsMXNetNameNotSupported(t *testing.T) {
	for _, tt := range []struct {
		name, want string
	}{
		{"_cvimdecode", `MXNet 1.9 has an operator named "_cvimdecode", but hybridgo does not support it yet`},
		{"_contrib_boolean_mask", "only eagerly, as F.BooleanMask"},
		{"no_such_op", `no operator named "no_such_op"`},
	} {
		code, _, errOut := runCmd("ops", tt.name)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", tt.name, code, errOut, tt.want)
		}
	}
	code, out, _ := runCmd("ops", "-unsupported")
	if code != 0 || !strings.Contains(out, "\n_cvimdecode\n") || strings.Contains(out, "\ntopk\n") || strings.Contains(out, "\n_backward_") {
		t.Errorf("-unsupported: exit %d, output %q", code, out)
	}
}

func TestMXNetOpNames(t *testing.T) {
	// The list is MXNet's: a sample of its operators, aliases included.
	for _, name := range []string{"Convolution", "RNN", "topk", "_contrib_BilinearResize2D", "swapaxes", "_linalg_gemm2", "linalg_gemm2", "_backward_Convolution"} {
		if !isMXNetOp(name) {
			t.Errorf("%s is missing from mxnet_ops.txt", name)
		}
	}
	for _, line := range strings.Split(mxnetOpsFile, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") && strings.ContainsAny(line, " \t(),\"") {
			t.Errorf("mxnet_ops.txt: %q is not a name", line)
		}
	}
	// The registry's ops have MXNet's names, but for a few of hybridgo's own gradients.
	for _, op := range ops.All() {
		if !isMXNetOp(op.Name()) && !strings.HasPrefix(op.Name(), "_backward_") && op.Name() != "_reduce_sum_like" {
			t.Errorf("registered op %s is not an MXNet 1.9 name", op.Name())
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCmd("frobnicate")
	if code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestVersionAndDefault(t *testing.T) {
	if code, out, _ := runCmd("version"); code != 0 || !strings.Contains(out, version) {
		t.Errorf("version: exit %d, %q", code, out)
	}
	if code, out, _ := runCmd("help"); code != 0 || !strings.Contains(out, "hybridgo ops") {
		t.Errorf("help: exit %d, %q", code, out)
	}
}

// With no arguments (and with "repl") hybridgo is the REPL; with stdin not
// a terminal it evaluates the statements it reads, without prompts.
func TestDefaultIsTheREPL(t *testing.T) {
	for _, args := range [][]string{nil, {"repl"}} {
		withStdin(t, "x := nd.Ones(2)\nx.Shape()\n")
		code, out, errOut := runCmd(args...)
		if code != 0 || out != "2\n" || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// withStdin makes text the REPL's input until the test ends.
func withStdin(t *testing.T, text string) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(text)
	f.Seek(0, 0)
	stdin = f
	t.Cleanup(func() { stdin = os.Stdin; f.Close() })
}

// The REPL's flags: after a cell ends the worker, -no-replay starts the
// new one empty; a bad -memory is refused.
func TestREPLFlags(t *testing.T) {
	withStdin(t, "x := 41\nfunc f(n int) int { return f(n+1) + 1 }\nf(0)\nx\n")
	code, out, errOut := runCmd("-no-replay", "-memory", "2GiB")
	want := "stack overflow in f, called in cell 3 (f(0)): infinite recursion? session restarted empty (-no-replay)\n"
	if code != 0 || out != "" || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "undefined: x") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runCmd("repl", "-memory", "lots")
	if code != 2 || !strings.Contains(errOut, `memory limit "lots"`) {
		t.Errorf("-memory lots: exit %d, stderr %q", code, errOut)
	}
}

func TestTrainFlags(t *testing.T) {
	code, _, errOut := runCmd("train", "-epochs", "x")
	if code != 2 || !strings.Contains(errOut, "invalid value") {
		t.Errorf("bad flag: exit %d %q", code, errOut)
	}
	code, _, errOut = runCmd("train", "-data", t.TempDir(), "-save", "")
	if code != 1 || !strings.Contains(errOut, "apt-get install dataset-fashion-mnist") {
		t.Errorf("missing dataset: exit %d %q", code, errOut)
	}
	code, _, errOut = runCmd("train", "-kvstore", "dist_async")
	if code != 1 || !strings.Contains(errOut, "use dist_sync") {
		t.Errorf("-kvstore dist_async: exit %d %q", code, errOut)
	}
	if !mpi.Built {
		code, _, errOut = runCmd("train", "-kvstore", "dist_sync")
		if code != 1 || !strings.Contains(errOut, "go build -tags mpi ./cmd/hybridgo") {
			t.Errorf("-kvstore dist_sync without MPI: exit %d %q", code, errOut)
		}
	}
}

func TestBenchPrintsTheTable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the LeNet")
	}
	code, out, errOut := runCmd("bench", "-time", "1ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"batch 16", "eager", "hybridized", "forward", "training step", "x\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
}
