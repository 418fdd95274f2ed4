package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/bench"
)

func TestBenchCasePrintsJSON(t *testing.T) {
	code, out, errs := runCmd("bench", "case", "mlp-forward-b1", "-quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs, err := bench.ParseResults(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Impl != bench.ImplOursEager || rs[1].Impl != bench.ImplOursHybrid {
		t.Errorf("unexpected results %+v", rs)
	}
}

func TestBenchCaseRejects(t *testing.T) {
	if code, _, _ := runCmd("bench", "case", "no-such-case"); code != 2 {
		t.Errorf("an unknown case: exit %d, want 2", code)
	}
	if code, _, errs := runCmd("bench", "case", "sgemm-128", "-threads", "1000"); code != 2 || !strings.Contains(errs, "GOMAXPROCS=1000") {
		t.Errorf("a thread count the pool does not have: exit %d, %s", code, errs)
	}
	// The memory case has only the hybridized implementation of ours.
	if code, _, errs := runCmd("bench", "case", "lenet-train-b256-memory", "-impl", "ours-eager"); code != 2 || !strings.Contains(errs, "ours-hybrid") {
		t.Errorf("an implementation the case does not have: exit %d, %s", code, errs)
	}
}

// bench -h shows the three forms; bench case -h lists the cases and
// their implementations.
func TestBenchUsage(t *testing.T) {
	_, _, errs := runCmd("bench", "-h")
	for _, want := range []string{"hybridgo bench [-batch N]", "hybridgo bench case NAME", "hybridgo bench compare", "-time"} {
		if !strings.Contains(errs, want) {
			t.Errorf("bench -h lacks %q:\n%s", want, errs)
		}
	}
	_, _, errs = runCmd("bench", "case", "-h")
	for _, want := range []string{"mlp-forward-b1", "ours-eager, ours-hybrid", "-impl", "-threads"} {
		if !strings.Contains(errs, want) {
			t.Errorf("bench case -h lacks %q:\n%s", want, errs)
		}
	}
}

// TestBenchComparePeerEnv checks that `hybridgo bench compare` runs the
// peers without the variables forcing OpenBLAS's kernels, even when they
// are set, and leaves this process's environment (ours) as it is.
func TestBenchComparePeerEnv(t *testing.T) {
	t.Setenv("OPENBLAS_CORETYPE", "Haswell")
	t.Setenv("OPENBLAS_L2_SIZE", "1048576")
	o, out, code := compareOptions([]string{"-threads", "1,2", "-out", "-", "-cases", "resnet18-forward-b1"}, io.Discard)
	if code != 0 || out != "-" {
		t.Fatalf("exit %d, out %q", code, out)
	}
	for _, kv := range o.PeerEnv {
		if strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") || strings.HasPrefix(kv, "OPENBLAS_L2_SIZE=") {
			t.Errorf("the peers' environment has %s", kv)
		}
	}
	if !slices.Contains(o.PeerEnv, "PATH="+os.Getenv("PATH")) {
		t.Error("the peers' environment lost PATH")
	}
	if os.Getenv("OPENBLAS_CORETYPE") != "Haswell" {
		t.Error("the command changed its own environment")
	}
	if !slices.Equal(o.Threads, []int{1, 2}) || !slices.Equal(o.Cases, []string{"resnet18-forward-b1"}) {
		t.Errorf("threads %v, cases %v", o.Threads, o.Cases)
	}
	if filepath.Base(o.Script) != "bench.py" || !strings.HasSuffix(o.ORTScript, filepath.Join("bench", "ort", "bench.js")) {
		t.Errorf("scripts %q and %q", o.Script, o.ORTScript)
	}
	if _, _, code := compareOptions([]string{"-threads", "0"}, io.Discard); code != 2 {
		t.Errorf("-threads 0: exit %d, want 2", code)
	}
}
