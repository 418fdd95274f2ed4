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
	Log            io.Writer // progress; nil for none
}

// Machine describes where a comparison ran.
type Machine struct {
	CPU          string
	Cores        int
	OS, Arch     string
	GoVersion    string
	TorchVersion string // "" when PyTorch is missing
	NumPyVersion string
	Date         time.Time
}

// Report is what a comparison measured.
type Report struct {
	Machine Machine
	Quick   bool
	Results []Result
	// Missing says why the torch side was not run, and how to fix it.
	Missing string
}

// TorchInstallHint is what to do when PyTorch is missing.
const TorchInstallHint = "PyTorch was not found; install it with `apt-get install -y python3-torch python3-numpy libopenblas0-pthread` (Debian) and run the comparison again"

// Compare runs every case at every thread count, alternating our side and
// the torch side, each in a subprocess with the thread count set.
func Compare(o Options) (*Report, error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	rep := &Report{Quick: o.Quick, Machine: Machine{
		CPU: cpuModel(), Cores: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(), Date: time.Now().UTC(),
	}}
	if v, np, err := pythonVersions(o.Python); err != nil {
		rep.Missing = TorchInstallHint
		fmt.Fprintf(logw, "%s (%v)\n", TorchInstallHint, err)
	} else {
		rep.Machine.TorchVersion, rep.Machine.NumPyVersion = v, np
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
	for _, threads := range o.Threads {
		for i, c := range cases {
			sides := []func() ([]Result, error){
				func() ([]Result, error) { return runOurs(o, c, threads) },
			}
			if rep.Missing == "" {
				sides = append(sides, func() ([]Result, error) { return runTorch(o, c.Name, threads) })
			}
			// Alternate which side goes first, so neither always runs
			// on a cooler (or warmer) machine.
			if i%2 == 1 && len(sides) == 2 {
				sides[0], sides[1] = sides[1], sides[0]
			}
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
	return rep, nil
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

func runTorch(o Options, name string, threads int) ([]Result, error) {
	args := []string{o.Script, "--case", name, "--threads", strconv.Itoa(threads)}
	if o.Quick {
		args = append(args, "--quick")
	}
	cmd := exec.Command(o.Python, args...)
	t := strconv.Itoa(threads)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS="+t, "OPENBLAS_NUM_THREADS="+t, "MKL_NUM_THREADS="+t)
	return runSide(cmd)
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

// pythonVersions asks python for the versions of torch and numpy.
func pythonVersions(python string) (torch, numpy string, err error) {
	if python == "" {
		return "", "", fmt.Errorf("no python interpreter")
	}
	out, err := exec.Command(python, "-c", "import torch, numpy; print(torch.__version__, numpy.__version__)").Output()
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("unexpected answer %q", out)
	}
	return f[0], f[1], nil
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

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
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

// Render writes the report as Markdown: a header on the machine, the table,
// and notes on how the numbers were taken.
func Render(w io.Writer, rep *Report) {
	m := rep.Machine
	torch := m.TorchVersion
	if torch == "" {
		torch = "not installed"
	}
	numpy := m.NumPyVersion
	if numpy == "" {
		numpy = "not installed"
	}
	fmt.Fprintf(w, "# hybridgo beside PyTorch and NumPy\n\n")
	fmt.Fprintf(w, "- Machine: %s, %d cores, %s/%s\n", m.CPU, m.Cores, m.OS, m.Arch)
	fmt.Fprintf(w, "- Go: %s; PyTorch: %s; NumPy: %s\n", m.GoVersion, torch, numpy)
	fmt.Fprintf(w, "- Date: %s\n", m.Date.Format("2006-01-02 15:04 MST"))
	if rep.Quick {
		fmt.Fprintf(w, "- Repetitions: few (-quick); these numbers are noisy\n")
	}
	if rep.Missing != "" {
		fmt.Fprintf(w, "- %s\n", rep.Missing)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Times are median (min–max) of one call, or the time of the one run of a case run once; the memory rows give the peak resident set size of the process instead.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | threads | ours eager | ours hybridized | torch eager | torch jit | numpy | ours hybridized / torch eager | hybridization speed-up ² |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
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
		ratio := dash
		ours := rs[ImplOursHybrid]
		mark := ""
		if ours == nil {
			ours, mark = rs[ImplOursEager], " ¹"
		}
		if te := rs[ImplTorchEager]; ours != nil && te != nil {
			switch {
			case memory && te.PeakRSS > 0 && ours.PeakRSS > 0:
				ratio = fmt.Sprintf("%.2f× (memory)", float64(ours.PeakRSS)/float64(te.PeakRSS))
			case !memory && te.Median > 0:
				ratio = fmt.Sprintf("%.2f×%s", ours.Median/te.Median, mark)
			}
		}
		speedup := dash
		if e, h := rs[ImplOursEager], rs[ImplOursHybrid]; !memory && e != nil && h != nil && h.Median > 0 {
			speedup = fmt.Sprintf("%.2f×", e.Median/h.Median)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", title, k.t,
			cell(rs[ImplOursEager], memory), cell(rs[ImplOursHybrid], memory), cell(rs[ImplTorchEager], memory),
			cell(rs[ImplTorchJIT], memory), cell(rs[ImplNumPy], memory), ratio, speedup)
	}
	fmt.Fprint(w, notes)
	fmt.Fprintf(w, "\n## Regenerating\n\nFrom the repository root, with python3-torch and python3-numpy installed:\n\n    %s\n\n"+
		"It takes a few minutes; add -quick for a fast, noisy run. The file is written by that command only.\n", RegenerateCommand)
}

const notes = `
¹ SGEMM has no hybridized form: "ours eager" is accel.Gemm called directly on float32 slices, and the ratio is accel.Gemm / torch.mm.
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
  ` + "`bench/torch/bench.py --case NAME --threads N`" + ` for PyTorch and NumPy; both print one JSON line per
  implementation. The two sides alternate, case by case, which one goes first.
- Threads: hybridgo's worker pool reads GOMAXPROCS once, when the program starts, so our side runs in a
  subprocess with GOMAXPROCS=N in its environment. The Python side runs with OMP_NUM_THREADS,
  OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set to N and calls torch.set_num_threads(N).
- Every implementation is run twice to warm up (hybridized nets trace and compile on their first call,
  torch.jit specializes on its first calls), then for about a second and at least five runs.
- Forward passes: ours runs outside Record (no tape); PyTorch's eager forward runs under torch.no_grad()
  in eval mode; torch jit is torch.jit.trace followed by torch.jit.optimize_for_inference.
- Training step: forward under Record, softmax cross-entropy, Backward, and an SGD step (lr 0.01);
  PyTorch does zero_grad, forward, CrossEntropyLoss, backward and optim.SGD's step; its jit variant
  traces the model (no inference optimization) and trains through the trace.
- All in float32; inputs are random normal, labels cycle through 0–9.
- Driven from interpreted Go: the LeNet is defined and its forward looped in a REPL session (the cells
  of ` + "`hybridgo bench`" + `), so each call goes through the interpreter; the torch side is the same as the
  compiled forward's, for reference.
- Peak memory: the hybridized training step at batch 256 (two warm-up steps, then 20) in a process of its
  own, and PyTorch's eager step in another; the peak resident set size (getrusage's ru_maxrss) is the whole
  process's: the hybridgo binary carries the interpreter's tables, the Python process carries torch.
- Fashion-MNIST epoch: all 60,000 training images (pixels scaled to [0, 1]), batch 64 (the last batch
  has 32), shuffled with a fixed seed, an SGD step (lr 0.01, softmax cross-entropy) per batch. Loading the
  files is not timed. Each implementation warms up with three steps and then runs the epoch once. Ours
  batches with data.DataLoader (no worker goroutines), and the hybridized net compiles once more for the
  smaller last batch, within the epoch; PyTorch indexes its tensors with the shuffled indices. It needs
  the dataset: ` + "`apt-get install dataset-fashion-mnist`" + ` (Debian).
- NumPy and Debian's PyTorch call the system BLAS (the libblas.so.3 alternative); install
  libopenblas0-pthread so that it is OpenBLAS, or the reference BLAS is what gets measured.
`

// RegenerateCommand is the one command that rewrites docs/benchmarks.md.
const RegenerateCommand = "go run ./cmd/hybridgo bench compare -threads 1,2 -out docs/benchmarks.md"
