package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/tutorial"
)

const root = "../.."

var tutorialFile = filepath.Join(root, "tutorials", "export-deploy.md")

// shown returns, from the tutorial's Markdown, the arguments of the
// "./deploy ..." line of its sh block and the text block after it.
func shown(t *testing.T, md string) (args []string, output string) {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "./deploy ") {
			continue
		}
		args = strings.Fields(strings.TrimPrefix(l, "./deploy "))
		for j := i + 1; j < len(lines); j++ {
			if lines[j] != "```text" {
				continue
			}
			var out []string
			for k := j + 1; k < len(lines) && lines[k] != "```"; k++ {
				out = append(out, lines[k])
			}
			return args, strings.Join(out, "\n")
		}
	}
	t.Fatalf("%s has no ./deploy line followed by a text block", tutorialFile)
	return nil, ""
}

// exported runs the tutorial's cells in a temporary directory, which
// leaves the files they export there, and changes to it.
func exported(t *testing.T) {
	tu, err := tutorial.Parse(tutorialFile)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := tutorial.PrepareDir(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	outs, err := tu.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Err != nil {
			t.Fatalf("%s: a cell failed: %v", tutorialFile, o.Err)
		}
	}
}

// TestTutorialOutput runs the program as the export tutorial shows, on
// the files the tutorial exports, and checks that it prints what the
// tutorial says it prints.
func TestTutorialOutput(t *testing.T) {
	md, err := os.ReadFile(tutorialFile)
	if err != nil {
		t.Fatal(err)
	}
	args, want := shown(t, string(md))
	exported(t)
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("deploy %s: exit code %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	if !tutorial.Match(want, stdout.String()) {
		t.Errorf("deploy %s prints what %s does not show (-shown +printed):\n%s", strings.Join(args, " "), tutorialFile,
			tutorial.Diff(want, stdout.String()))
	}
}

// TestFashionMNIST classifies real images with the untrained LeNet: the
// labels are printed beside the predictions.
func TestFashionMNIST(t *testing.T) {
	if _, err := os.Stat(filepath.Join(data.FashionMNISTDir, "t10k-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("Fashion-MNIST is not installed in %s (apt-get install dataset-fashion-mnist; make deps does it)", data.FashionMNISTDir)
	}
	exported(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-fashion-mnist", "-n", "3", "lenet-symbol.json", "lenet-0001.params"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	// The first three test images are an ankle boot, a pullover and a
	// trouser.
	for i, want := range []string{"image 0: ", ", is Ankle boot", "image 1: ", ", is Pullover", "image 2: ", ", is Trouser"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q (%d):\n%s", want, i, stdout.String())
		}
	}
}

func TestBadInput(t *testing.T) {
	fixture := filepath.Join(root, filepath.FromSlash(tutorial.Testdata))
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no files", nil, 2, "Usage: deploy"},
		{"no images", []string{"-n", "0", "a-symbol.json", "a-0000.params"}, 2, "Usage: deploy"},
		{"missing file", []string{"absent-symbol.json", "absent-0000.params"}, 1, "absent-symbol.json"},
		{"a model for other inputs", []string{filepath.Join(fixture, "mxnet1x-symbol.json"), filepath.Join(fixture, "mxnet1x-0000.params")},
			1, "deploy: the model cannot run on images 4x1x28x28: "},
		{"missing params", []string{filepath.Join(fixture, "mxnet1x-symbol.json"), filepath.Join(fixture, "absent-0000.params")},
			1, "absent-0000.params"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, &stdout, &stderr)
			if code != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("exit code %d, stderr:\n%s\nwant code %d and %q", code, stderr.String(), c.code, c.want)
			}
		})
	}
}
