package main

import (
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
