package bench

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/format/onnx"
	"github.com/hybridgo/hybridgo/ops"
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
			CPU: "Test CPU 9000", SIMD: "AVX-512", Cores: 2, OS: "linux", Arch: "amd64", GoVersion: "go1.26.0",
			TorchVersion: "1.13.1", TorchvisionVersion: "0.14.1", NumPyVersion: "1.24.2", ORTVersion: "1.30.0",
			BLAS: "OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX MAX_THREADS=64", BLASCore: "SkylakeX",
			Date: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		},
		Elapsed: 754 * time.Second,
		Results: []Result{
			{Case: "resnet18-forward-b1", Impl: ImplORT, Threads: 1, Median: 0.025, Min: 0.024, Max: 0.03, Runs: 10},
			{Case: "resnet18-forward-b1", Impl: ImplOursHybrid, Threads: 1, Median: 0.09, Min: 0.088, Max: 0.1, Runs: 10},
			{Case: "resnet18-forward-b1", Impl: ImplTorchEager, Threads: 1, Median: 0.045, Min: 0.043, Max: 0.05, Runs: 10},
			{Case: "resnet18-forward-b1", Impl: ImplTorchJIT, Threads: 1, Median: 0.03, Min: 0.029, Max: 0.031, Runs: 10},
			{Case: "resnet18-train-b16", Impl: ImplOursHybrid, Threads: 2, Median: 3, Min: 2.9, Max: 3.2, Runs: 5},
			{Case: "resnet18-train-b16", Impl: ImplTorchEager, Threads: 2, Median: 1.5, Min: 1.4, Max: 1.6, Runs: 5},
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
	// torch jit, onnxruntime, numpy, ours / torch eager, ours / torch jit,
	// ours / onnxruntime, speed-up.
	const oursE, oursH, torchE, torchJ, ortC, numpyC, vsEager, vsJIT, vsORT, speedUp = 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	mem := row(t, out, titles["lenet-train-b256-memory"])
	if mem[oursE] != dash || mem[oursH] != "60 MB" || mem[torchE] != "295 MB" {
		t.Errorf("memory row shows %q, want the peak RSS of each side", mem)
	}
	if mem[vsEager] != "0.20× (memory)" || mem[vsJIT] != dash || mem[vsORT] != dash || mem[speedUp] != dash {
		t.Errorf("memory row %q, want only the ratio to torch eager, 0.20× (memory)", mem)
	}
	fwd := row(t, out, titles["lenet-forward-b16"])
	if fwd[vsEager] != "2.00×" || fwd[vsJIT] != "2.50×" || fwd[vsORT] != dash || fwd[speedUp] != "2.00×" {
		t.Errorf("forward row %q; want ratios 2.00× and 2.50×, no ONNX Runtime, speed-up 2.00× (4 ms / 2 ms)", fwd)
	}
	epoch := row(t, out, titles["fashion-epoch"])
	if epoch[oursE] != "28.00 s" || epoch[speedUp] != "1.40×" || epoch[vsEager] != "3.70×" {
		t.Errorf("epoch row %q", epoch)
	}
	// Only one of ours: no speed-up.
	if tr := row(t, out, titles["lenet-train-b256"]); tr[speedUp] != dash {
		t.Errorf("a row with only ours eager shows a speed-up %q", tr[speedUp])
	}
	// SGEMM: ours eager against torch.mm, marked; numpy in its column.
	if g := row(t, out, titles["sgemm-2048"]); g[vsEager] != "3.00× ¹" || g[numpyC] != "450 ms (440 ms–470 ms)" {
		t.Errorf("SGEMM row %q", g)
	}
	// A real-size forward: ours hybridized against each peer at its best.
	r18 := row(t, out, titles["resnet18-forward-b1"])
	if r18[ortC] != "25 ms (24 ms–30 ms)" || r18[torchJ] != "30 ms (29 ms–31 ms)" || r18[oursE] != dash {
		t.Errorf("ResNet-18 row %q", r18)
	}
	if r18[vsEager] != "2.00×" || r18[vsJIT] != "3.00×" || r18[vsORT] != "3.60×" {
		t.Errorf("ResNet-18 ratios %q, want 2.00×, 3.00×, 3.60×", r18[vsEager:vsORT+1])
	}
	if tr := row(t, out, titles["resnet18-train-b16"]); tr[1] != "2" || tr[vsEager] != "2.00×" || tr[ortC] != dash || tr[vsORT] != dash {
		t.Errorf("ResNet-18 training row %q", tr)
	}
	for _, want := range []string{
		"- CPU: Test CPU 9000 (AVX-512), 2 cores",
		"ONNX Runtime: 1.30.0",
		"- OpenBLAS core: SkylakeX (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE were removed",
		"the whole comparison took 12.6 min",
		"112×112",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// A forced core is named as such.
	rep := fixedReport()
	rep.Machine.BLASCore, rep.Machine.ForcedBLAS = "Haswell", []string{"OPENBLAS_CORETYPE=Haswell"}
	buf.Reset()
	Render(&buf, rep)
	if !strings.Contains(buf.String(), "- OpenBLAS core: Haswell (forced by the peers' environment: OPENBLAS_CORETYPE=Haswell)") {
		t.Errorf("a forced core is not reported as forced:\n%s", buf.String())
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
			r.Machine.TorchvisionVersion, r.Machine.ORTVersion, r.Machine.BLAS, r.Machine.BLASCore = "", "", "", ""
			r.Missing, r.Quick = []string{TorchInstallHint, ORTInstallHint}, true
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
	// Initializing the real-size networks takes seconds under the race
	// detector; a build without it sets them up.
	real := map[string]bool{}
	for _, c := range realCases() {
		real[c.Name] = raceDetector
	}
	for _, c := range Cases() {
		if real[c.Name] {
			continue
		}
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
		runs   int           // the runs a Timing override fixes, or its fewest with a budget; 0 for none
		budget time.Duration // the time it runs for; 0 for exactly runs
	}{
		{"fashion-epoch", []string{ImplOursEager, ImplOursHybrid}, false, 1, 0},
		{"lenet-train-b256-memory", []string{ImplOursHybrid}, true, memorySteps, 0},
		{"lenet-forward-b16-interp", []string{ImplOursEager, ImplOursHybrid}, false, 0, 0},
		{"resnet18-forward-b1", []string{ImplOursHybrid}, false, 10, time.Second},
		{"resnet18-forward-b16", []string{ImplOursHybrid}, false, 5, time.Second},
		{"mobilenetv2-forward-b1", []string{ImplOursHybrid}, false, 10, time.Second},
		{"resnet18-train-b16", []string{ImplOursHybrid}, false, 5, 2 * time.Second},
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
		case tc.runs > 0 && tc.budget == 0 && (c.Timing == nil || c.Timing.MinRuns != tc.runs || c.Timing.MaxRuns != tc.runs):
			t.Errorf("%s: timing %+v, want exactly %d runs", c.Name, c.Timing, tc.runs)
		case tc.budget > 0 && (c.Timing == nil || c.Timing.MinRuns != tc.runs || c.Timing.Budget != tc.budget || c.Timing.MaxRuns < 100):
			t.Errorf("%s: timing %+v, want %v and at least %d runs", c.Name, c.Timing, tc.budget, tc.runs)
		}
	}
	// ONNX Runtime runs the real-size forward cases only, on 3×224×224
	// images.
	for _, c := range Cases() {
		want := map[string][]int{
			"resnet18-forward-b1":    {1, 3, 224, 224},
			"resnet18-forward-b16":   {16, 3, 224, 224},
			"mobilenetv2-forward-b1": {1, 3, 224, 224},
		}[c.Name]
		if !slices.Equal(c.ONNXInput, want) {
			t.Errorf("%s: ONNX Runtime input %v, want %v", c.Name, c.ONNXInput, want)
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
	wd, _ := os.Getwd()
	script := FindScript(wd)
	if script == "" {
		t.Fatal("bench/torch/bench.py not found")
	}
	o := Options{Quick: true, Python: py, Script: script, PeerEnv: os.Environ()}
	info, err := pythonInfo(o)
	if err != nil {
		t.Skipf("%s: %v", TorchInstallHint, err)
	}
	c, err := CaseNamed("sgemm-128")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := runTorch(o, c, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Impl != ImplTorchEager || rs[1].Impl != ImplNumPy || rs[0].Threads != 1 || rs[0].Runs < QuickTiming.MinRuns {
		t.Errorf("unexpected results %+v", rs)
	}
	if info.Torchvision == "" || info.NumPy == "" || info.BLAS == "" {
		t.Errorf("incomplete --info %+v", info)
	}
	if strings.HasPrefix(info.BLAS, "OpenBLAS") != (info.BLASCore != "") {
		t.Errorf("BLAS %q with core %q", info.BLAS, info.BLASCore)
	}
}

func TestOwnKernelsEnv(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"HOME=/root", "PATH=/bin"}, []string{"HOME=/root", "PATH=/bin"}},
		{[]string{"OPENBLAS_CORETYPE=Haswell", "HOME=/root", "OPENBLAS_L2_SIZE=1048576", "OPENBLAS_NUM_THREADS=2"},
			[]string{"HOME=/root", "OPENBLAS_NUM_THREADS=2"}},
		{[]string{"OPENBLAS_CORETYPE_X=1", "XOPENBLAS_L2_SIZE=2"}, []string{"OPENBLAS_CORETYPE_X=1", "XOPENBLAS_L2_SIZE=2"}},
	} {
		if got := OwnKernelsEnv(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("OwnKernelsEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPeerCommands checks the peers' command lines: their environment is
// Options.PeerEnv with the thread counts added, their timing the case's.
func TestPeerCommands(t *testing.T) {
	env := []string{"HOME=/home/x", "OPENBLAS_CORETYPE=Haswell", "OPENBLAS_L2_SIZE=1048576"}
	o := Options{Python: "/usr/bin/python3", Script: "bench/torch/bench.py", ORTModules: "/cache/ort", ORTScript: "bench/ort/bench.js",
		PeerEnv: OwnKernelsEnv(env)}
	r18, err := CaseNamed("resnet18-forward-b16")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := CaseNamed("lenet-train-b256-memory")
	if err != nil {
		t.Fatal(err)
	}
	mlp, err := CaseNamed("mlp-forward-b1")
	if err != nil {
		t.Fatal(err)
	}
	o.Quick = true
	for _, tc := range []struct {
		name string
		cmd  *exec.Cmd
		args string
	}{
		{"torch, quick", torchCmd(o, mlp, 2), "/usr/bin/python3 bench/torch/bench.py --case mlp-forward-b1 --threads 2 --budget 0.05 --min-runs 3 --max-runs 50"},
		{"torch, memory", torchCmd(o, mem, 2), "/usr/bin/python3 bench/torch/bench.py --case lenet-train-b256-memory --threads 2 --budget 0 --min-runs 20 --max-runs 20 --memory"},
		{"onnxruntime", ortCmd(o, r18, 2, "/tmp/m.onnx"), "node bench/ort/bench.js --modules /cache/ort --model /tmp/m.onnx --shape 16,3,224,224 --case resnet18-forward-b16 --threads 2 --budget 1 --min-runs 5 --max-runs 2000"},
	} {
		if got := strings.Join(tc.cmd.Args, " "); got != tc.args {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.args)
		}
		want := []string{"HOME=/home/x", "OMP_NUM_THREADS=2", "OPENBLAS_NUM_THREADS=2", "MKL_NUM_THREADS=2"}
		if !slices.Equal(tc.cmd.Env, want) {
			t.Errorf("%s: environment %q, want %q", tc.name, tc.cmd.Env, want)
		}
	}
	// The thread counts are added to a copy: PeerEnv is not changed.
	if !slices.Equal(o.PeerEnv, []string{"HOME=/home/x"}) {
		t.Errorf("PeerEnv became %q", o.PeerEnv)
	}
}

// TestORTSide times a small exported model with bench/ort/bench.js, when
// node and npm are installed.
func TestORTSide(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running ONNX Runtime")
	}
	modules, err := InstallORT()
	if err != nil {
		t.Skipf("%s (%v)", ORTInstallHint, err)
	}
	wd, _ := os.Getwd()
	script := FindScript(wd)
	if script == "" {
		t.Fatal("bench/torch/bench.py not found")
	}
	model := filepath.Join(t.TempDir(), "mlp.onnx")
	writeMLPModel(t, model)
	o := Options{Quick: true, ORTModules: modules, ORTScript: filepath.Join(filepath.Dir(filepath.Dir(script)), "ort", "bench.js"), PeerEnv: os.Environ()}
	c := Case{Name: "mlp-forward-b1", ONNXInput: []int{1, 784}}
	rs, err := runSide(ortCmd(o, c, 1, model))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Impl != ImplORT || rs[0].Case != c.Name || rs[0].Threads != 1 || rs[0].Runs < QuickTiming.MinRuns ||
		!(rs[0].Min > 0 && rs[0].Min <= rs[0].Median && rs[0].Median <= rs[0].Max) {
		t.Errorf("unexpected results %+v", rs)
	}
	if v, err := ortVersion(modules); err != nil || v == "" {
		t.Errorf("version %q, %v", v, err)
	}
}

// writeMLPModel writes NewMLP, for inputs of 784 features, as ONNX.
func writeMLPModel(t *testing.T, path string) {
	t.Helper()
	net := NewMLP()
	if err := prepare(net, ImplOursHybrid); err != nil {
		t.Fatal(err)
	}
	net.Forward(eager.RandomNormal(1, 784))
	prefix := filepath.Join(t.TempDir(), "mlp")
	if err := net.Export(prefix, 0); err != nil {
		t.Fatal(err)
	}
	sym, params, err := mxnet.LoadCheckpoint(prefix, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := onnx.Export(sym, params, onnx.Options{InputShapes: map[string]ops.Shape{"data": {1, 784}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
