package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.go")
	os.WriteFile(good, []byte("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(nd.Ones(3).Shape())\n}\n"), 0o644)
	code, out, errs := runCmd("run", good)
	if code != 0 || !strings.Contains(out, "3") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	bad := filepath.Join(dir, "bad.go")
	os.WriteFile(bad, []byte("x := 1\nnope(x)\n"), 0o644)
	code, _, errs = runCmd("run", bad)
	if code == 0 || !strings.Contains(errs, "bad.go:2:1: undefined: nope") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd("run"); code == 0 {
		t.Errorf("run without a file exited 0")
	}
}
