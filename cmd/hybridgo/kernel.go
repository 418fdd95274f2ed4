package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/hybridgo/hybridgo/kernel"
)

// runKernel is `hybridgo kernel [-memory SIZE] [-no-replay]
// CONNECTION_FILE`, `hybridgo kernel install [--user | --prefix DIR]
// [-memory SIZE] [-no-replay]` and the kernel's worker process
// (`hybridgo kernel worker`, which the kernel starts).
func runKernel(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "install" {
		return installKernel(args[1:], stdout, stderr)
	}
	if len(args) == 1 && args[0] == kernel.WorkerArgs[1] {
		return kernel.Worker()
	}
	fs := flag.NewFlagSet("hybridgo kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wf := workerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: hybridgo kernel [-memory SIZE] [-no-replay] CONNECTION_FILE | hybridgo kernel install [--user | --prefix DIR] [-memory SIZE] [-no-replay]")
		return 2
	}
	limit, err := wf.limit()
	if err != nil {
		fmt.Fprintln(stderr, "hybridgo kernel:", err)
		return 2
	}
	ci, err := kernel.ReadConnectionFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo kernel: %v\n", err)
		return 1
	}
	opts := kernel.Options{MemoryLimit: limit, NoReplay: *wf.noReplay}
	if os.Getenv("HYBRIDGO_KERNEL_LOG") != "" {
		opts.Log = log.New(stderr, "hybridgo kernel: ", log.LstdFlags)
	}
	k, err := kernel.New(ci, opts)
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo kernel: %v\n", err)
		return 1
	}
	if err := k.Run(); err != nil {
		fmt.Fprintf(stderr, "hybridgo kernel: %v\n", err)
		return 1
	}
	return 0
}

func installKernel(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hybridgo kernel install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.Bool("user", false, "install for the current user ($HOME/.local/share/jupyter/kernels, or $JUPYTER_DATA_DIR/kernels)")
	prefix := fs.String("prefix", "", "install under `DIR`/share/jupyter/kernels (default /usr/local)")
	wf := workerFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*user && *prefix != "") {
		fmt.Fprintln(stderr, "usage: hybridgo kernel install [--user | --prefix DIR] [-memory SIZE] [-no-replay]")
		return 2
	}
	if _, err := wf.limit(); err != nil {
		fmt.Fprintln(stderr, "hybridgo kernel install:", err)
		return 2
	}
	var dir string
	switch {
	case *user:
		data := os.Getenv("JUPYTER_DATA_DIR")
		if data == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				fmt.Fprintf(stderr, "hybridgo kernel install: %v\n", err)
				return 1
			}
			data = filepath.Join(home, ".local", "share", "jupyter")
		}
		dir = filepath.Join(data, "kernels", "hybridgo")
	default:
		p := *prefix
		if p == "" {
			p = "/usr/local"
		}
		dir = filepath.Join(p, "share", "jupyter", "kernels", "hybridgo")
	}
	exe, err := executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hybridgo kernel install: %v\n", err)
		return 1
	}
	if transientBuild(exe) {
		fmt.Fprintf(stderr, "hybridgo kernel install: %s is a go run build, which the Go build cache removes;\n"+
			"install the command with `go install ./cmd/hybridgo` and run the installed binary: hybridgo kernel install\n", exe)
		return 1
	}
	if err := kernel.InstallSpec(dir, exe, wf.args()...); err != nil {
		fmt.Fprintf(stderr, "hybridgo kernel install: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, dir)
	return 0
}

// executable is os.Executable; tests replace it.
var executable = os.Executable

// transientBuild reports whether exe is a binary that go run built: in
// the Go build cache ($GOCACHE, by default the user cache directory's
// go-build) or in a go-build* temporary directory. Such a binary is
// removed when go run ends or the cache is trimmed, so a kernelspec must
// not name it.
func transientBuild(exe string) bool {
	var caches []string
	if c := os.Getenv("GOCACHE"); c != "" && c != "off" {
		caches = append(caches, c)
	}
	if c, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(c, "go-build"))
	}
	for _, c := range caches {
		if within(exe, c) {
			return true
		}
	}
	tmp := os.TempDir()
	if t, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = t
	}
	if rel, err := filepath.Rel(tmp, exe); err == nil && strings.HasPrefix(rel, "go-build") {
		return true
	}
	return false
}

// within reports whether path lies under dir (both resolved when they
// exist).
func within(path, dir string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
