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

	"github.com/hybridgo/hybridgo/data"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParseResults(t *testing.T) {
	in := `
some warning from a library
{"case": "sgemm-128", "impl": "torch-eager", "threads": 1, "median_s": 0.0002, "min_s": 0.00015, "max_s": 0.0003, "runs": 40}

{"case":"sgemm-128","impl":"numpy","threads":1,"median_s":1e-4,"min_s":9e-5,"max_s":2e-4,"runs":50}
{"case": "lenet-train-b256-memory", "impl": "torch-eager", "threads": 1, "median_s": 0.013, "min_s": 0.012, "max_s": 0.017, "runs": 20, "peak_rss_bytes": 294518784}
`
	rs, err := ParseResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{Case: "sgemm-128", Impl: ImplTorchEager, Threads: 1, Median: 0.0002, Min: 0.00015, Max: 0.0003, Runs: 40},
		{Case: "sgemm-128", Impl: ImplNumPy, Threads: 1, Median: 1e-4, Min: 9e-5, Max: 2e-4, Runs: 50},
		{Case: "lenet-train-b256-memory", Impl: ImplTorchEager, Threads: 1, Median: 0.013, Min: 0.012, Max: 0.017, Runs: 20, PeakRSS: 294518784},
	}
	if len(rs) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(rs), len(want), rs)
	}
	for i := range want {
		if rs[i] != want[i] {
			t.Errorf("result %d: got %+v, want %+v", i, rs[i], want[i])
		}
	}
	// A Result's own JSON reads back the same, and has the peak RSS only
	// when there is one.
	for _, w := range want {
		back, err := ParseResults(strings.NewReader(w.JSON() + "\n"))
		if err != nil || len(back) != 1 || back[0] != w {
			t.Errorf("round trip: %+v, %v", back, err)
		}
		if has := strings.Contains(w.JSON(), "peak_rss_bytes"); has != (w.PeakRSS != 0) {
			t.Errorf("%s: peak_rss_bytes present %v, PeakRSS %d", w.JSON(), has, w.PeakRSS)
		}
	}
}

func TestParseResultsRejects(t *testing.T) {
	for _, in := range []string{
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": "1", "min_s": 1, "max_s": 1, "runs": 1}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 0}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1, "extra": 2}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1, "peak_rss_bytes": -5}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1, "peak_rss_bytes": "5"}`,
		`{"case": "x", "impl": "numpy", "threads": 1, "median_s": 1, "min_s": 1, "max_s": 1, "runs": 1, "peak_rss": 5}`,
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
			{Case: "lenet-train-b256-memory", Impl: ImplTorchEager, Threads: 1, Median: 0.013, Min: 0.012, Max: 0.017, Runs: 20, PeakRSS: 294_518_784},
			{Case: "lenet-train-b256-memory", Impl: ImplOursHybrid, Threads: 1, Median: 0.09, Min: 0.08, Max: 0.12, Runs: 20, PeakRSS: 60_174_336},
			{Case: "fashion-epoch", Impl: ImplOursEager, Threads: 1, Median: 28, Min: 28, Max: 28, Runs: 1},
			{Case: "fashion-epoch", Impl: ImplOursHybrid, Threads: 1, Median: 20, Min: 20, Max: 20, Runs: 1},
			{Case: "fashion-epoch", Impl: ImplTorchEager, Threads: 1, Median: 5.4, Min: 5.4, Max: 5.4, Runs: 1},
		},
	}
}

// row returns the table row of rendered whose case column is title.
func row(t *testing.T, rendered, title string) []string {
	t.Helper()
	for _, line := range strings.Split(rendered, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) > 2 && strings.TrimSpace(cols[1]) == title {
			var out []string
			for _, c := range cols[1 : len(cols)-1] {
				out = append(out, strings.TrimSpace(c))
			}
			return out
		}
	}
	t.Fatalf("no row %q in:\n%s", title, rendered)
	return nil
}

func TestRenderMemoryAndSpeedUp(t *testing.T) {
	var buf bytes.Buffer
	Render(&buf, fixedReport())
	out := buf.String()
	titles := map[string]string{}
	for _, c := range Cases() {
		titles[c.Name] = c.Title
	}
	// Columns: case, threads, ours eager, ours hybridized, torch eager,
	// torch jit, numpy, ours hybridized / torch eager, speed-up.
	mem := row(t, out, titles["lenet-train-b256-memory"])
	if mem[2] != dash || mem[3] != "60 MB" || mem[4] != "295 MB" {
		t.Errorf("memory row shows %q, want the peak RSS of each side", mem)
	}
	if mem[7] != "0.20× (memory)" || mem[8] != dash {
		t.Errorf("memory row: ratio %q and speed-up %q, want 0.20× (memory) and %s", mem[7], mem[8], dash)
	}
	fwd := row(t, out, titles["lenet-forward-b16"])
	if fwd[7] != "2.00×" || fwd[8] != "2.00×" {
		t.Errorf("forward row: ratio %q, speed-up %q; want 2.00× and 2.00× (4 ms / 2 ms)", fwd[7], fwd[8])
	}
	epoch := row(t, out, titles["fashion-epoch"])
	if epoch[2] != "28.00 s" || epoch[8] != "1.40×" || epoch[7] != "3.70×" {
		t.Errorf("epoch row %q", epoch)
	}
	// Only one of ours: no speed-up.
	if tr := row(t, out, titles["lenet-train-b256"]); tr[8] != dash {
		t.Errorf("a row with only ours eager shows a speed-up %q", tr[8])
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "is the whole process's") {
		t.Error("the notes do not say that the RSS is the whole process's")
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
	_, noData := os.Stat(data.FashionMNISTDir)
	for _, c := range Cases() {
		for _, impl := range c.Ours {
			_, err := c.setup(impl)
			if err != nil && c.Name == "fashion-epoch" && noData != nil {
				if !strings.Contains(err.Error(), "apt-get install dataset-fashion-mnist") {
					t.Errorf("without the dataset, %s says %v; it should say how to install it", c.Name, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", c.Name, impl, err)
			}
		}
	}
	if _, err := CaseNamed("nope"); err == nil {
		t.Error("CaseNamed found a case that does not exist")
	}
}

func TestNewCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ours   []string
		memory bool
		runs   int // the runs a Timing override fixes; 0 for none
	}{
		{"fashion-epoch", []string{ImplOursEager, ImplOursHybrid}, false, 1},
		{"lenet-train-b256-memory", []string{ImplOursHybrid}, true, memorySteps},
		{"lenet-forward-b16-interp", []string{ImplOursEager, ImplOursHybrid}, false, 0},
	} {
		c, err := CaseNamed(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(c.Ours, ",") != strings.Join(tc.ours, ",") || c.Memory != tc.memory {
			t.Errorf("%s: ours %v, memory %v; want %v, %v", c.Name, c.Ours, c.Memory, tc.ours, tc.memory)
		}
		switch {
		case tc.runs == 0 && c.Timing != nil:
			t.Errorf("%s overrides the timing: %+v", c.Name, *c.Timing)
		case tc.runs > 0 && (c.Timing == nil || c.Timing.MinRuns != tc.runs || c.Timing.MaxRuns != tc.runs):
			t.Errorf("%s: timing %+v, want exactly %d runs", c.Name, c.Timing, tc.runs)
		}
	}
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("two cases are called %s", c.Name)
		}
		seen[c.Name] = true
	}
}

// TestRunOverrides checks that a case's own timing and warm-up replace the
// default ones, and that a memory case reports the peak RSS.
func TestRunOverrides(t *testing.T) {
	var warms, runs int
	c := Case{
		Name:   "fake",
		Ours:   []string{ImplOursEager},
		Timing: &Timing{MinRuns: 3, MaxRuns: 3},
		Memory: true,
		setup: func(string) (work, error) {
			return work{
				run:  func() error { runs++; return nil },
				warm: func() error { warms++; return nil },
			}, nil
		},
	}
	r, err := Run(c, ImplOursEager, DefaultTiming)
	if err != nil {
		t.Fatal(err)
	}
	if warms != 1 || runs != 3 || r.Runs != 3 {
		t.Errorf("warm-ups %d, runs %d, result runs %d; want 1, 3, 3", warms, runs, r.Runs)
	}
	// This test process holds at least a few megabytes.
	if r.PeakRSS < 1<<20 {
		t.Errorf("peak RSS %d bytes", r.PeakRSS)
	}
	c.Memory, c.Timing, runs = false, nil, 0
	c.setup = func(string) (work, error) { return work{run: func() error { runs++; return nil }}, nil }
	r, err = Run(c, ImplOursEager, Timing{MinRuns: 4, MaxRuns: 4})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2+4 || r.PeakRSS != 0 {
		t.Errorf("%d calls (want two warm-ups and 4 runs), peak RSS %d (want none)", runs, r.PeakRSS)
	}
}

func TestInterpCase(t *testing.T) {
	c, err := CaseNamed("lenet-forward-b16-interp")
	if err != nil {
		t.Fatal(err)
	}
	for _, impl := range c.Ours {
		r, err := Run(c, impl, Timing{MinRuns: 2, MaxRuns: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Impl != impl || r.Runs != 2 || !(r.Min > 0) {
			t.Errorf("odd result %+v", r)
		}
	}
	if _, err := NewInterpSession(0, nil); err == nil {
		t.Error("a batch of 0 was accepted")
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
