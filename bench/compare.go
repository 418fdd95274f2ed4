package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is one implementation's timing of one case, as both sides print it:
// one JSON line.
type Result struct {
	Case    string  `json:"case"`
	Impl    string  `json:"impl"`
	Threads int     `json:"threads"`
	Median  float64 `json:"median_s"`
	Min     float64 `json:"min_s"`
	Max     float64 `json:"max_s"`
	Runs    int     `json:"runs"`
	// PeakRSS is the process's peak resident set size in bytes, for the
	// cases that measure memory (Case.Memory); 0 for the others.
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
}

// JSON returns r as one line of JSON, without the newline.
func (r Result) JSON() string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // a Result always marshals
	}
	return string(b)
}

// ParseResults reads the JSON lines of r; blank lines and lines that do not
// start with '{' (a library's warnings) are skipped, a malformed JSON line
// is an error.
func ParseResults(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(text, "{") {
			continue
		}
		var res Result
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&res); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if res.Case == "" || res.Impl == "" || res.Runs <= 0 || res.Threads <= 0 || res.PeakRSS < 0 {
			return nil, fmt.Errorf("line %d: incomplete result %s", line, text)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// Options configure a comparison.
type Options struct {
	Threads []int
	Quick   bool
	Cases   []string // names of the cases to run; empty for all
	// Self is the hybridgo binary that runs our side (`hybridgo bench case`).
	Self string
	// Python is the interpreter and Script the script of the torch side.
	Python, Script string
	// ORTScript is the ONNX Runtime side's script (bench/ort/bench.js);
	// empty, ONNX Runtime is not run. ORTModules is the directory holding
	// node_modules/onnxruntime-node; empty, InstallORT's, when a case
	// needs it.
	ORTScript, ORTModules string
	// PeerEnv is the environment of the peers' processes (PyTorch, NumPy,
	// ONNX Runtime), to which the thread counts are added; nil for this
	// process's own. `hybridgo bench compare` gives them OwnKernelsEnv.
	PeerEnv []string
	Log     io.Writer // progress; nil for none
}

// forcedBLAS are the variables that make OpenBLAS use other kernels, or
// other block sizes, than those it chooses for the CPU it runs on.
var forcedBLAS = []string{"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}

// OwnKernelsEnv returns env without the variables that override
// OpenBLAS's choice of kernels (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE): the
// peers' environment in `hybridgo bench compare`, so that OpenBLAS runs
// the kernels it picks for the CPU, as a user's would.
func OwnKernelsEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(forcedBLAS, k) {
			out = append(out, kv)
		}
	}
	return out
}

// Machine describes where a comparison ran.
type Machine struct {
	CPU       string // the model name in /proc/cpuinfo
	SIMD      string // the widest vector extension the CPU has: "AVX-512", "AVX2", …
	Cores     int
	OS, Arch  string
	GoVersion string
	// The peers' versions; "" for those missing.
	TorchVersion, TorchvisionVersion, NumPyVersion, ORTVersion string
	// BLAS is the configuration of the BLAS the Python side loaded
	// (openblas_get_config), and BLASCore the core whose kernels OpenBLAS
	// chose; "" when not known.
	BLAS, BLASCore string
	// ForcedBLAS lists the variables forcing OpenBLAS's kernels
	// (OPENBLAS_CORETYPE=…) that the peers' environment still had.
	ForcedBLAS []string
	Date       time.Time
}

// Report is what a comparison measured.
type Report struct {
	Machine Machine
	Quick   bool
	Results []Result
	// Elapsed is how long the whole comparison took.
	Elapsed time.Duration
	// Missing says which peers were not run, why, and how to fix it.
	Missing []string
}

// NotOpenBLASHint says that the peers' BLAS is not OpenBLAS, and how to
// fix it.
const NotOpenBLASHint = "warning: the peers' BLAS is not OpenBLAS, so NumPy and PyTorch ran far below their best (Debian's python3-numpy falls back to the reference BLAS); install libopenblas0-pthread and run the comparison again"

// TorchInstallHint is what to do when PyTorch is missing.
const TorchInstallHint = "PyTorch was not found; install it with `apt-get install -y python3-torch python3-torchvision python3-numpy libopenblas0-pthread` (Debian) and run the comparison again"

// Compare runs every case at every thread count, alternating which of our
// side, the torch side and ONNX Runtime goes first, each in a subprocess
// with the thread count set. ONNX Runtime runs the cases with an
// ONNXInput, on the model the torch side exports (once per case).
func Compare(o Options) (*Report, error) {
	start := time.Now()
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	if o.PeerEnv == nil {
		o.PeerEnv = os.Environ()
	}
	rep := &Report{Quick: o.Quick, Machine: Machine{
		CPU: cpuModel(), SIMD: cpuSIMD(), Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
		Date: start.UTC(),
	}}
	for _, kv := range o.PeerEnv {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(forcedBLAS, k) {
			rep.Machine.ForcedBLAS = append(rep.Machine.ForcedBLAS, kv)
		}
	}
	torch := true
	if info, err := pythonInfo(o); err != nil {
		torch = false
		rep.Missing = append(rep.Missing, TorchInstallHint)
		fmt.Fprintf(logw, "%s (%v)\n", TorchInstallHint, err)
	} else {
		m := &rep.Machine
		m.TorchVersion, m.TorchvisionVersion, m.NumPyVersion, m.BLAS, m.BLASCore = info.Torch, info.Torchvision, info.NumPy, info.BLAS, info.BLASCore
		fmt.Fprintf(logw, "peers' BLAS: %s\n", info.BLAS)
		if info.BLASCore == "" {
			rep.Missing = append(rep.Missing, NotOpenBLASHint)
			fmt.Fprintln(logw, NotOpenBLASHint)
		}
	}
	cases := Cases()
	if len(o.Cases) > 0 {
		cases = nil
		for _, name := range o.Cases {
			c, err := CaseNamed(name)
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	}
	// ONNX Runtime runs the models the torch side exports.
	ort := torch && o.ORTScript != "" && slices.ContainsFunc(cases, func(c Case) bool { return c.ONNXInput != nil })
	if ort && o.ORTModules == "" {
		dir, err := InstallORT()
		if err != nil {
			fmt.Fprintf(logw, "%s (%v)\n", ORTInstallHint, err)
		}
		o.ORTModules = dir
	}
	if ort && o.ORTModules != "" {
		v, err := ortVersion(o.ORTModules)
		if err != nil {
			return nil, err
		}
		rep.Machine.ORTVersion = v
	} else if ort {
		ort = false
		rep.Missing = append(rep.Missing, ORTInstallHint)
	}
	models, err := os.MkdirTemp("", "hybridgo-bench-onnx-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(models)
	for _, threads := range o.Threads {
		for i, c := range cases {
			sides := []func() ([]Result, error){
				func() ([]Result, error) { return runOurs(o, c, threads) },
			}
			if torch {
				sides = append(sides, func() ([]Result, error) { return runTorch(o, c, threads) })
			}
			if ort && c.ONNXInput != nil {
				sides = append(sides, func() ([]Result, error) { return runORT(o, c, threads, models) })
			}
			// Rotate which side goes first, so none always runs on a
			// cooler (or warmer) machine.
			k := i % len(sides)
			sides = append(sides[k:], sides[:k]...)
			for _, side := range sides {
				rs, err := side()
				if err != nil {
					return nil, err
				}
				for _, r := range rs {
					fmt.Fprintf(logw, "%-20s %-12s %d threads  median %s  (%d runs)\n", r.Case, r.Impl, r.Threads, fmtSeconds(r.Median), r.Runs)
				}
				rep.Results = append(rep.Results, rs...)
			}
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// peerTiming is the timing the peers get for case c: the case's own, or
// the comparison's.
func peerTiming(o Options, c Case) Timing {
	switch {
	case c.Timing != nil:
		return *c.Timing
	case o.Quick:
		return QuickTiming
	}
	return DefaultTiming
}

// timingArgs are the flags that give a peer's script the timing t.
func timingArgs(t Timing) []string {
	return []string{"--budget", strconv.FormatFloat(t.Budget.Seconds(), 'g', -1, 64),
		"--min-runs", strconv.Itoa(t.MinRuns), "--max-runs", strconv.Itoa(t.MaxRuns)}
}

// peerCmd is a command of a peer, in o.PeerEnv with the thread count set
// for every library that reads one from the environment.
func peerCmd(o Options, threads int, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	t := strconv.Itoa(threads)
	cmd.Env = append(slices.Clip(o.PeerEnv), "OMP_NUM_THREADS="+t, "OPENBLAS_NUM_THREADS="+t, "MKL_NUM_THREADS="+t)
	return cmd
}

func quickFlag(o Options) []string {
	if o.Quick {
		return []string{"-quick"}
	}
	return nil
}

// runOurs runs our side of case c: one process for all its
// implementations, or one process each when the case measures memory, so
// that their peaks do not mix.
func runOurs(o Options, c Case, threads int) ([]Result, error) {
	args := append([]string{"bench", "case", c.Name, "-threads", strconv.Itoa(threads)}, quickFlag(o)...)
	if !c.Memory {
		cmd := exec.Command(o.Self, args...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads))
		return runSide(cmd)
	}
	var out []Result
	for _, impl := range c.Ours {
		cmd := exec.Command(o.Self, append(args, "-impl", impl)...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads))
		rs, err := runSide(cmd)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func torchCmd(o Options, c Case, threads int) *exec.Cmd {
	args := append([]string{o.Script, "--case", c.Name, "--threads", strconv.Itoa(threads)}, timingArgs(peerTiming(o, c))...)
	if c.Memory {
		args = append(args, "--memory")
	}
	return peerCmd(o, threads, o.Python, args...)
}

func runTorch(o Options, c Case, threads int) ([]Result, error) {
	return runSide(torchCmd(o, c, threads))
}

// onnxModel is where the ONNX model of case c is, under dir, once the
// torch side has exported it.
func onnxModel(dir string, c Case) string { return filepath.Join(dir, c.Name+".onnx") }

func ortCmd(o Options, c Case, threads int, model string) *exec.Cmd {
	shape := make([]string, len(c.ONNXInput))
	for i, d := range c.ONNXInput {
		shape[i] = strconv.Itoa(d)
	}
	args := append([]string{o.ORTScript, "--modules", o.ORTModules, "--model", model, "--shape", strings.Join(shape, ","),
		"--case", c.Name, "--threads", strconv.Itoa(threads)}, timingArgs(peerTiming(o, c))...)
	return peerCmd(o, threads, "node", args...)
}

// runORT times case c with ONNX Runtime, after exporting its model from
// the torch side into dir when it is not there yet.
func runORT(o Options, c Case, threads int, dir string) ([]Result, error) {
	model := onnxModel(dir, c)
	if _, err := os.Stat(model); err != nil {
		cmd := peerCmd(o, threads, o.Python, o.Script, "--case", c.Name, "--export-onnx", model)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
	}
	return runSide(ortCmd(o, c, threads, model))
}

func runSide(cmd *exec.Cmd) ([]Result, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	rs, err := ParseResults(&stdout)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	return rs, nil
}

// pyInfo is what the torch side's script prints with --info.
type pyInfo struct {
	Torch       string `json:"torch"`
	Torchvision string `json:"torchvision"`
	NumPy       string `json:"numpy"`
	BLAS        string `json:"blas"`
	BLASCore    string `json:"blas_core"`
}

// pythonInfo asks the torch side for the versions of torch, torchvision
// and numpy, and for the BLAS they call, in the peers' environment.
func pythonInfo(o Options) (pyInfo, error) {
	if o.Python == "" || o.Script == "" {
		return pyInfo{}, fmt.Errorf("no python interpreter or no bench/torch/bench.py")
	}
	cmd := peerCmd(o, 1, o.Python, o.Script, "--info")
	out, err := cmd.Output()
	if err != nil {
		return pyInfo{}, err
	}
	var info pyInfo
	if err := json.Unmarshal(out, &info); err != nil || info.Torch == "" {
		return pyInfo{}, fmt.Errorf("unexpected answer %q", out)
	}
	return info, nil
}

// FindPython returns the interpreter to use: /usr/bin/python3 when it
// exists (where Debian's python3-torch lives), else python3 on the PATH.
func FindPython() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	return ""
}

// FindScript looks for bench/torch/bench.py from dir upwards.
func FindScript(dir string) string {
	for {
		p := filepath.Join(dir, "bench", "torch", "bench.py")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// cpuinfo returns the first value of key in /proc/cpuinfo, or "".
func cpuinfo(key string) string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// cpuSIMD names the widest vector extension in the CPU's flags.
func cpuSIMD() string {
	flags := strings.Fields(cpuinfo("flags"))
	for _, f := range []struct{ flag, name string }{{"avx512f", "AVX-512"}, {"avx2", "AVX2"}, {"avx", "AVX"}, {"sse4_2", "SSE4.2"}} {
		if slices.Contains(flags, f.flag) {
			return f.name
		}
	}
	return ""
}

func cpuModel() string {
	if m := cpuinfo("model name"); m != "" {
		return m
	}
	return runtime.GOARCH
}

// fmtSeconds writes a time in the unit that suits it.
func fmtSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	default:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
}

const dash = "—"

// fmtBytes writes a memory size in megabytes (10⁶ bytes).
func fmtBytes(b int64) string {
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

// cell shows a median with its range (a single run, its time), or in a
// memory row the peak RSS.
func cell(r *Result, memory bool) string {
	switch {
	case r == nil:
		return dash
	case memory:
		return fmtBytes(r.PeakRSS)
	case r.Runs == 1:
		return fmtSeconds(r.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtSeconds(r.Median), fmtSeconds(r.Min), fmtSeconds(r.Max))
}

// orMissing is v, or "not installed" when empty.
func orMissing(v string) string {
	if v == "" {
		return "not installed"
	}
	return v
}

// ratio is ours / peer as "0.62×" (with mark), of the medians or, in a
// memory row, of the peak RSS; a dash when either is missing.
func ratio(ours, peer *Result, memory bool, mark string) string {
	switch {
	case ours == nil || peer == nil:
		return dash
	case memory && ours.PeakRSS > 0 && peer.PeakRSS > 0:
		return fmt.Sprintf("%.2f× (memory)", float64(ours.PeakRSS)/float64(peer.PeakRSS))
	case !memory && peer.Median > 0:
		return fmt.Sprintf("%.2f×%s", ours.Median/peer.Median, mark)
	}
	return dash
}

// Render writes the report as Markdown: a header on the machine and the
// peers, the table, and notes on how the numbers were taken.
func Render(w io.Writer, rep *Report) {
	m := rep.Machine
	fmt.Fprintf(w, "# hybridgo beside PyTorch, NumPy and ONNX Runtime\n\n")
	simd := ""
	if m.SIMD != "" {
		simd = " (" + m.SIMD + ")"
	}
	fmt.Fprintf(w, "- CPU: %s%s, %d cores, %s/%s\n", m.CPU, simd, m.Cores, m.OS, m.Arch)
	fmt.Fprintf(w, "- Go: %s; PyTorch: %s; torchvision: %s; NumPy: %s; ONNX Runtime: %s\n", m.GoVersion,
		orMissing(m.TorchVersion), orMissing(m.TorchvisionVersion), orMissing(m.NumPyVersion), orMissing(m.ORTVersion))
	if m.BLAS != "" {
		core := m.BLASCore
		if core == "" {
			core = "none (not OpenBLAS)"
		}
		forced := "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE were removed from the peers' environment, so OpenBLAS chose its kernels for this CPU"
		if len(m.ForcedBLAS) > 0 {
			forced = "forced by the peers' environment: " + strings.Join(m.ForcedBLAS, ", ")
		}
		fmt.Fprintf(w, "- OpenBLAS core: %s (%s); the peers' BLAS: %s\n", core, forced, m.BLAS)
	}
	fmt.Fprintf(w, "- Date: %s", m.Date.Format("2006-01-02 15:04 MST"))
	if rep.Elapsed > 0 {
		fmt.Fprintf(w, "; the whole comparison took %.1f min", rep.Elapsed.Minutes())
	}
	fmt.Fprintln(w)
	if rep.Quick {
		fmt.Fprintf(w, "- Repetitions: few (-quick); these numbers are noisy\n")
	}
	for _, miss := range rep.Missing {
		fmt.Fprintf(w, "- %s\n", miss)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Times are median (min–max) of one call, or the time of the one run of a case run once; the memory rows give the peak resident set size of the process instead. Ours is hybridized, where a case has it. The CPU changes from run to run, so compare the ratios, not the times, with other runs.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | threads | ours eager | ours hybridized | torch eager | torch jit | onnxruntime | numpy | ours / torch eager | ours / torch jit | ours / onnxruntime | hybridization speed-up ² |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	type key struct {
		c string
		t int
	}
	byKey := map[key]map[string]*Result{}
	var order []key
	for i := range rep.Results {
		r := &rep.Results[i]
		k := key{r.Case, r.Threads}
		if byKey[k] == nil {
			byKey[k] = map[string]*Result{}
			order = append(order, k)
		}
		byKey[k][r.Impl] = r
	}
	titles := map[string]string{}
	rank := map[string]int{}
	for i, c := range Cases() {
		titles[c.Name] = c.Title
		rank[c.Name] = i
	}
	// Order rows by case as in Cases (unknown cases last, as met), then by
	// threads.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		ra, oka := rank[a.c]
		rb, okb := rank[b.c]
		if oka != okb {
			return oka
		}
		if ra != rb {
			return ra < rb
		}
		return a.t < b.t
	})
	for _, k := range order {
		rs := byKey[k]
		title := titles[k.c]
		if title == "" {
			title = k.c
		}
		// A row measures memory when any of its results has a peak RSS.
		memory := false
		for _, r := range rs {
			memory = memory || r.PeakRSS > 0
		}
		ours := rs[ImplOursHybrid]
		mark := ""
		if ours == nil {
			ours, mark = rs[ImplOursEager], " ¹"
		}
		speedup := dash
		if e, h := rs[ImplOursEager], rs[ImplOursHybrid]; !memory && e != nil && h != nil && h.Median > 0 {
			speedup = fmt.Sprintf("%.2f×", e.Median/h.Median)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", title, k.t,
			cell(rs[ImplOursEager], memory), cell(rs[ImplOursHybrid], memory), cell(rs[ImplTorchEager], memory),
			cell(rs[ImplTorchJIT], memory), cell(rs[ImplORT], memory), cell(rs[ImplNumPy], memory),
			ratio(ours, rs[ImplTorchEager], memory, mark), ratio(ours, rs[ImplTorchJIT], memory, mark),
			ratio(ours, rs[ImplORT], memory, mark), speedup)
	}
	fmt.Fprint(w, notes)
	fmt.Fprintf(w, "\n## Regenerating\n\nFrom the repository root, with python3-torch, python3-torchvision, python3-numpy, libopenblas0-pthread, nodejs and npm installed:\n\n    %s\n\n"+
		"It takes about 15 minutes on two cores; add -quick for a faster, noisy run (the real-size cases keep their few runs), or -cases to run some cases only. The file is written by that command only.\n", RegenerateCommand)
}

const notes = `
¹ SGEMM has no hybridized form: "ours eager" is accel.Gemm called directly on float32 slices, and the ratios are accel.Gemm / torch.mm.
Below 1 means hybridgo is faster; in a memory row the ratio is of the peak RSS.

² Ours eager / ours hybridized: how much faster the hybridized net is than the same net run eagerly.
The project aims at 5× or more on the LeNet forward at batch 16 driven from interpreted Go, and 1.5×
or more from compiled Go. The first aim comes from MXNet, where an eager op costs a Python call. Here an
eager op called from interpreted Go still runs the same compiled kernel as the hybridized graph, and the
interpreter adds only the calls of the net's forward method. So the eager time is mostly kernel time, and
the speed-up from interpreted Go is close to the one from compiled Go. Reaching 5× would take a hybridized
forward at about a fifth of the eager one: more than the kernels' arithmetic allows at this size.

## How the numbers are taken

- Each case is timed by its own process: ` + "`hybridgo bench case NAME -threads N`" + ` for ours and
  ` + "`bench/torch/bench.py --case NAME --threads N`" + ` for PyTorch and NumPy (and ` + "`bench/ort/bench.js`" + ` for
  ONNX Runtime, below); each prints one JSON line per implementation. The sides take turns, case by
  case, at going first.
- Threads: hybridgo's worker pool reads GOMAXPROCS once, when the program starts, so our side runs in a
  subprocess with GOMAXPROCS=N in its environment. The Python side runs with OMP_NUM_THREADS,
  OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set to N and calls torch.set_num_threads(N).
- ONNX Runtime (npm's onnxruntime-node, CPU execution provider, all graph optimizations) runs the forward
  cases of the real-size networks: ` + "`bench/ort/bench.js`" + ` times the model that ` + "`bench/torch/bench.py --export-onnx`" + `
  writes from the same network as PyTorch's (eval mode, torch.onnx.export, opset 13), with intraOpNumThreads
  N and interOpNumThreads 1. It is installed with ` + "`npm install --ignore-scripts`" + ` into the user's cache
  directory on first use.
- OpenBLAS at its best: the peers run without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in their environment
  (only in this comparison), so OpenBLAS picks the kernels of the CPU it runs on; the core it picked is
  named above (openblas_get_corename of the library the Python side loaded).
- Every implementation is run twice to warm up (hybridized nets trace and compile on their first call,
  torch.jit specializes on its first calls), then for about a second and at least five runs.
- Real-size networks: the model zoo's resnet18_v1 and mobilenetv2_1.0 (package nn/vision, Gluon's
  definitions, hybridized) beside torchvision's resnet18 and mobilenet_v2, all with random parameters, on
  random 3×224×224 images. After the two warm-ups each runs for about a second (the training step two),
  and at least 10 times (5 at batch 16 and for the training step): a median of many runs, which a moment's
  load on the machine does not move. The training step runs at 112×112 (batch 16), as 224×224 made the
  comparison too long on two cores; the peers' jit column for it is a traced network trained through the trace, and ONNX Runtime does not train.
  Gluon's MobileNet v2 differs from torchvision's (nn/vision's doc): its first bottleneck keeps a 1×1
  expansion convolution (expansion 1, 32 to 32 channels at 112×112), which the peers' network is given
  (` + "`bench/torch/zoo.py`" + `), so that all compute the same network; its classifier is a 1×1
  convolution without bias where torchvision's is a Linear with bias.
- Forward passes: ours runs outside Record (no tape); PyTorch's eager forward runs under torch.no_grad()
  in eval mode; torch jit is torch.jit.trace followed by torch.jit.optimize_for_inference.
- Training step: forward under Record, softmax cross-entropy, Backward, and an SGD step (lr 0.01);
  PyTorch does zero_grad, forward, CrossEntropyLoss, backward and optim.SGD's step; its jit variant
  traces the model (no inference optimization) and trains through the trace.
- All in float32; inputs are random normal, labels cycle through 0–9.
- Driven from interpreted Go: the LeNet is defined and its forward looped in a REPL session (the cells
  of ` + "`hybridgo bench`" + `), so each call goes through the interpreter; the torch side is the same as the
  compiled forward's, for reference.
- Peak memory: the hybridized training step (LeNet at batch 256: two warm-up steps, then 20; ResNet-18 at
  batch 16 and 112×112: two, then 5) in a process of its own, and PyTorch's eager step in another; the peak
  resident set size (getrusage's ru_maxrss) is the whole process's: the hybridgo binary carries the
  interpreter's tables, the Python process carries torch.
- Fashion-MNIST epoch: all 60,000 training images (pixels scaled to [0, 1]), batch 64 (the last batch
  has 32), shuffled with a fixed seed, an SGD step (lr 0.01, softmax cross-entropy) per batch. Loading the
  files is not timed. Each implementation warms up with three steps and then runs the epoch once. Ours
  batches with data.DataLoader (no worker goroutines), and the hybridized net compiles once more for the
  smaller last batch, within the epoch; PyTorch indexes its tensors with the shuffled indices. It needs
  the dataset: ` + "`apt-get install dataset-fashion-mnist`" + ` (Debian).
- NumPy and Debian's PyTorch call the system BLAS (the libblas.so.3 alternative) for matrix products;
  install libopenblas0-pthread so that it is OpenBLAS, or the reference BLAS is what gets measured.
  Debian's PyTorch is built with oneDNN (MKL-DNN), which it uses for most convolutions.
`

// RegenerateCommand is the one command that rewrites docs/benchmarks.md.
const RegenerateCommand = "go run ./cmd/hybridgo bench compare -threads 1,2 -out docs/benchmarks.md"
