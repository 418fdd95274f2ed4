package kernel

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// jupyterSetup builds hybridgo, installs its kernelspec under a temporary
// prefix, and returns the environment that makes the Jupyter client find
// it (and keep its files out of the user's home), and the directory.
// It skips the test when the Debian Jupyter client is missing. flags go
// to hybridgo kernel install, and so into the kernel's command line.
func jupyterSetup(t *testing.T, flags ...string) (env []string, tmp string) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: builds hybridgo and runs the Jupyter client")
	}
	if err := exec.Command(python, "-c", "import jupyter_client, zmq").Run(); err != nil {
		t.Skipf("%s cannot import jupyter_client (%v): install it with "+
			"`apt-get install python3-jupyter-client jupyter-client python3-ipykernel` (or `make deps`)", python, err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goTool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	tmp = t.TempDir()
	bin := filepath.Join(tmp, "hybridgo")
	build := exec.Command(goTool, "build", "-o", bin, "./cmd/hybridgo")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(tmp, "prefix")
	out, err := exec.Command(bin, append([]string{"kernel", "install", "--prefix", prefix}, flags...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("hybridgo kernel install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(prefix, "share", "jupyter", "kernels", "hybridgo", "kernel.json")); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"JUPYTER_DATA_DIR="+filepath.Join(tmp, "data"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"IPYTHONDIR="+filepath.Join(tmp, "ipython"),
		"HOME="+tmp,
	)
	return env, tmp
}

// python is the interpreter that has Debian's Jupyter packages.
const python = "/usr/bin/python3"

// TestJupyterConformance starts the kernel from a real Jupyter client
// (jupyter_client, from Debian's python3-jupyter-client) through the
// conformance harness, which checks the protocol feature by feature.
func TestJupyterConformance(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	harness := os.Getenv("JUPYTER_CONFORMANCE")
	if harness == "" {
		harness = filepath.Join(root, "..", "shared", "tools", "jupyter_conformance.py")
	}
	if _, err := os.Stat(harness); err != nil {
		t.Skipf("the conformance harness is not at %s (the repository's sibling shared/tools; "+
			"or set JUPYTER_CONFORMANCE to its path)", harness)
	}
	env, tmp := jupyterSetup(t)
	profile, err := filepath.Abs(filepath.Join("testdata", "conformance.json"))
	if err != nil {
		t.Fatal(err)
	}
	klog := filepath.Join(tmp, "kernel.log")
	cmd := exec.Command(python, harness, "hybridgo", "--profile", profile, "--kernel-log", klog)
	cmd.Env = env
	cmd.Dir = tmp
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := cmd.Run()
	failed := false
	for _, line := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "SKIP"):
			failed = true
			t.Log(line)
		case strings.HasPrefix(line, "PASS"), strings.HasPrefix(line, "SUMMARY"):
			t.Log(line)
		}
	}
	if runErr != nil || failed {
		if b, err := os.ReadFile(klog); err == nil {
			t.Logf("kernel log:\n%s", b)
		}
		t.Fatalf("conformance harness: %v (every feature must PASS)\n%s", runErr, buf.String())
	}
}
