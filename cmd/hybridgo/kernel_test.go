package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTransientBuild(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOCACHE", cache)
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	for _, c := range []struct {
		exe  string
		want bool
	}{
		{filepath.Join(cache, "ab", "abcdef-d", "hybridgo"), true},
		{filepath.Join(home, "go-build", "12", "hybridgo"), true},
		{filepath.Join(os.TempDir(), "go-build804633426", "b001", "exe", "hybridgo"), true},
		{filepath.Join(home, "go", "bin", "hybridgo"), false},
		{cache + "-other/hybridgo", false},
		{"/usr/local/bin/hybridgo", false},
	} {
		if got := transientBuild(c.exe); got != c.want {
			t.Errorf("transientBuild(%s) = %v, want %v", c.exe, got, c.want)
		}
	}
}

// kernel install refuses a go run build, and installs an installed one.
func TestKernelInstallRefusesGoRunBuild(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("GOCACHE", cache)
	data := t.TempDir()
	t.Setenv("JUPYTER_DATA_DIR", data)
	touch := func(path string) string {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o755)
		return path
	}
	exe := touch(filepath.Join(cache, "0f", "hybridgo"))
	defer func(prev func() (string, error)) { executable = prev }(executable)
	executable = func() (string, error) { return exe, nil }
	var so, se bytes.Buffer
	if code := run([]string{"kernel", "install", "--user"}, &so, &se); code != 1 || !strings.Contains(se.String(), "go install ./cmd/hybridgo") {
		t.Errorf("go run build: exit %d, %s", code, se.String())
	}
	if _, err := os.Stat(filepath.Join(data, "kernels", "hybridgo")); err == nil {
		t.Error("a kernelspec was written for a go run build")
	}

	exe = touch(filepath.Join(t.TempDir(), "bin", "hybridgo"))
	so.Reset()
	se.Reset()
	if code := run([]string{"kernel", "install", "--user"}, &so, &se); code != 0 {
		t.Fatalf("installed binary: exit %d, %s", code, se.String())
	}
	spec, err := os.ReadFile(filepath.Join(data, "kernels", "hybridgo", "kernel.json"))
	if err != nil || !strings.Contains(string(spec), exe) {
		t.Errorf("kernel.json %s (%v) does not name %s", spec, err, exe)
	}
}

// kernel install writes the worker's flags into the kernelspec's command
// line, before the connection file, and refuses a bad memory limit.
func TestKernelInstallFlags(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "hybridgo")
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func(prev func() (string, error)) { executable = prev }(executable)
	executable = func() (string, error) { return exe, nil }
	for _, c := range []struct {
		flags []string
		code  int
		argv  []string
	}{
		{nil, 0, []string{exe, "kernel", "{connection_file}"}},
		{[]string{"-memory", "1GiB", "-no-replay"}, 0, []string{exe, "kernel", "-memory", "1GiB", "-no-replay", "{connection_file}"}},
		{[]string{"-memory", "lots"}, 2, nil},
	} {
		prefix := t.TempDir()
		var so, se bytes.Buffer
		if code := run(append([]string{"kernel", "install", "--prefix", prefix}, c.flags...), &so, &se); code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.flags, code, c.code, se.String())
			continue
		}
		b, err := os.ReadFile(filepath.Join(prefix, "share", "jupyter", "kernels", "hybridgo", "kernel.json"))
		if c.argv == nil {
			if err == nil {
				t.Errorf("%v: a kernelspec was written", c.flags)
			}
			continue
		}
		var spec struct{ Argv []string }
		if err := json.Unmarshal(b, &spec); err != nil || strings.Join(spec.Argv, " ") != strings.Join(c.argv, " ") {
			t.Errorf("%v: argv %q (%v), want %q", c.flags, spec.Argv, err, c.argv)
		}
	}
}
