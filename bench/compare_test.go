package bench

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseResults(t *testing.T) {
	in := `
some warning from a library
{"case": "sgemm-128", "impl": "torch-eager", "threads": 1, "median_s": 0.0002, "min_s": 0.00015, "max_s": 0.0003, "runs": 40}

{"case":"sgemm-128","impl":"numpy","threads":1,"median_s":1e-4,"min_s":9e-5,"max_s":2e-4,"runs":50}
`
	rs, err := ParseResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Case: "sgemm-128", Impl: ImplTorchEager, Threads: 1, Median: 0.0002, Min: 0.00015, Max: 0.0003, Runs: 40},
		{Case: "sgemm-128", Impl: ImplNumPy, Threads: 1, Median: 1e-4, Min: 9e-5, Max: 2e-4, Runs: 50},
	}
	if len(rs) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(rs), len(want), rs)
	}
	for i := range want {
		if rs[i] != want[i] {
			t.Errorf("result %d: got %+v, want %+v", i, rs[i], want[i])
		}
	}
	// A Result's own JSON reads back the same.
	back, err := ParseResults(strings.NewReader(want[0].JSON() + "\n"))
	if err != nil || len(back) != 1 || back[0] != want[0] {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestParseResultsRejects(t *testing.T) {
	for _, in := range []string{
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": "1", "min_s": 1, "max_s": 1, "runs": 1}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 0}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1, "extra": 2}`,
	} {
		if rs, err := ParseResults(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error, got %+v", in, rs)
		}
	}
}

func fixedReport() *Report {
	return &Report{
		Machine: Machine{
			CPU: "Test CPU 9000", Cores: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26.0",
			TorchVersion: "1.13.1", NumPyVersion: "1.24.2",
			Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		},
		Results: []Result{
			// Out of order on purpose: rows follow Cases(), then threads.
			{Case: "lenet-forward-b16", Impl: ImplOursEager, Threads: 2, Median: 0.004, Min: 0.003, Max: 0.01, Runs: 100},
			{Case: "lenet-forward-b16", Impl: ImplOursHybrid, Threads: 2, Median: 0.002, Min: 0.0019, Max: 0.003, Runs: 120},
			{Case: "lenet-forward-b16", Impl: ImplTorchEager, Threads: 2, Median: 0.001, Min: 0.0009, Max: 0.002, Runs: 300},
			{Case: "lenet-forward-b16", Impl: ImplTorchJIT, Threads: 2, Median: 0.0008, Min: 0.0007, Max: 0.001, Runs: 400},
			{Case: "sgemm-2048", Impl: ImplOursEager, Threads: 1, Median: 1.5, Min: 1.4, Max: 1.6, Runs: 5},
			{Case: "sgemm-2048", Impl: ImplTorchEager, Threads: 1, Median: 0.5, Min: 0.49, Max: 0.52, Runs: 5},
			{Case: "sgemm-2048", Impl: ImplNumPy, Threads: 1, Median: 0.45, Min: 0.44, Max: 0.47, Runs: 5},
			{Case: "lenet-train-b256", Impl: ImplOursEager, Threads: 1, Median: 0.2, Min: 0.19, Max: 0.25, Runs: 6},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  func() *Report
	}{
		{"table.golden.md", fixedReport},
		{"table-notorch.golden.md", func() *Report {
			r := fixedReport()
			r.Machine.TorchVersion, r.Machine.NumPyVersion = "", ""
			r.Missing, r.Quick = TorchInstallHint, true
			var ours []Result
			for _, x := range r.Results {
				if strings.HasPrefix(x.Impl, "ours") {
					ours = append(ours, x)
				}
			}
			r.Results = ours
			return r
		}},
	} {
		var buf bytes.Buffer
		Render(&buf, tc.rep())
		path := filepath.Join("testdata", tc.name)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if buf.String() != string(want) {
			t.Errorf("%s differs; got:\n%s", tc.name, buf.String())
		}
	}
}

func TestRunOneCaseInProcess(t *testing.T) {
	c, err := CaseNamed("lenet-forward-b1")
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range c.Ours {
		r, err := Run(c, impl, Timing{MinRuns: 2, MaxRuns: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Case != c.Name || r.Impl != impl || r.Runs != 2 || r.Threads < 1 || !(r.Min > 0 && r.Min <= r.Median && r.Median <= r.Max) {
			t.Errorf("odd result %+v", r)
		}
	}
	if _, err := Run(c, "nonsense", QuickTiming); err == nil {
		t.Error("an unknown implementation ran")
	}
}

func TestEveryCaseSetsUp(t *testing.T) {
	for _, c := range Cases() {
		for _, impl := range c.Ours {
			if _, err := c.setup(impl); err != nil {
				t.Errorf("%s %s: %v", c.Name, impl, err)
			}
		}
	}
	if _, err := CaseNamed("nope"); err == nil {
		t.Error("CaseNamed found a case that does not exist")
	}
}

// TestTorchSide runs the Python script on the smallest case, when PyTorch
// is installed.
func TestTorchSide(t *testing.T) {
	py := FindPython()
	if py == "" {
		t.Skip("no python3; the torch side is not tested")
	}
	if _, _, err := pythonVersions(py); err != nil {
		t.Skipf("%s: %v", TorchInstallHint, err)
	}
	wd, _ := os.Getwd()
	script := FindScript(wd)
	if script == "" {
		t.Fatal("bench/torch/bench.py not found")
	}
	cmd := exec.Command(py, script, "--case", "sgemm-128", "--threads", "1", "--quick")
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
	rs, err := runSide(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Impl != ImplTorchEager || rs[1].Impl != ImplNumPy || rs[0].Threads != 1 {
		t.Errorf("unexpected results %+v", rs)
	}
}
