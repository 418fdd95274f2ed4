// Package torchtest runs Python scripts that use PyTorch (Debian's
// python3-torch and python3-torchvision, which `make deps` installs) for
// the tests that check hybridgo against PyTorch: the model zoo against
// torchvision's networks, ONNX import against models torch.onnx.export
// wrote. A machine without them makes those tests say they are skipped
// and how to install them.
//
// It is for tests only and imports nothing of hybridgo.
package torchtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Python is Debian's interpreter, the one the Debian torch packages
// install into (a python3 earlier on PATH may be another one).
const Python = "/usr/bin/python3"

// Require skips the test unless Python imports torch and torchvision.
func Require(t testing.TB) {
	t.Helper()
	out, err := exec.Command(Python, "-c", "import torch, torchvision").CombinedOutput()
	if err != nil {
		t.Skipf("%s cannot import torch and torchvision (%v: %s): apt-get install python3-torch python3-torchvision (or make deps)",
			Python, err, bytes.TrimSpace(out))
	}
}

// Run runs script with Python in dir, with args after it, on one thread
// (so that the results do not depend on the machine's cores), and fails
// the test with the script's output if it fails. It returns the
// standard output.
func Run(t testing.TB, dir, script string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Python, append([]string{"-c", script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "PYTHONHASHSEED=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python script failed: %v\n%s", err, stderr.Bytes())
	}
	return stdout.Bytes()
}
