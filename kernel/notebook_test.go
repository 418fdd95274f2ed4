package kernel

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/data"
	"github.com/hybridgo/hybridgo/tutorial"
)

// notebook is the part of an .ipynb file the test reads.
type notebook struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		Outputs  []struct {
			OutputType string         `json:"output_type"`
			Name       string         `json:"name"`
			Text       any            `json:"text"`
			Data       map[string]any `json:"data"`
			EName      string         `json:"ename"`
			EValue     string         `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
}

// text joins a notebook string, which may be stored as a list of lines.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, s := range x {
			b.WriteString(text(s))
		}
		return b.String()
	}
	return ""
}

// notebookNeeds names, for a notebook that reads files from outside the
// repository, a file it reads and how to install it.
var notebookNeeds = map[string]struct{ file, install string }{
	"train-fashion-mnist-tutorial.ipynb": {filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz"), "apt-get install dataset-fashion-mnist"},
	"model-zoo-tutorial.ipynb":           {filepath.Join(data.FashionMNISTDir, "train-images-idx3-ubyte.gz"), "apt-get install dataset-fashion-mnist"},
}

// TestNotebooksRun executes every notebook in notebooks/ with a real
// Jupyter (nbconvert --execute) against the kernel, checks that no cell
// fails, and checks the hybridize tutorial's key outputs.
func TestNotebooksRun(t *testing.T) {
	env, tmp := jupyterSetup(t)
	if _, err := exec.LookPath("jupyter"); err != nil {
		t.Skip("jupyter is missing: apt-get install jupyter-nbconvert (or make deps)")
	}
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks found (%v)", err)
	}
	// Each notebook runs in its own directory in tmp, next to a copy of
	// tutorials/testdata, as in the repository (see package tutorial).
	if err := tutorial.CopyTestdata("..", tmp); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if n, ok := notebookNeeds[name]; ok {
			if _, err := os.Stat(n.file); err != nil {
				t.Logf("%s skipped: %s is missing (%s; make deps does it)", name, n.file, n.install)
				continue
			}
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, strings.TrimSuffix(name, ".ipynb"))
		os.MkdirAll(dir, 0o755)
		in := filepath.Join(dir, name)
		os.WriteFile(in, src, 0o644)
		cmd := exec.Command("jupyter", "nbconvert", "--to", "notebook", "--execute",
			"--ExecutePreprocessor.kernel_name=hybridgo", "--ExecutePreprocessor.timeout=300",
			"--output", "out.ipynb", name)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: nbconvert --execute failed: %v\n%s", name, err, out)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "out.ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		var nb notebook
		if err := json.Unmarshal(raw, &nb); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var streams, mimes []string
		for _, c := range nb.Cells {
			for _, o := range c.Outputs {
				switch o.OutputType {
				case "error":
					t.Errorf("%s: a cell failed: %s: %s", name, o.EName, o.EValue)
				case "stream":
					streams = append(streams, text(o.Text))
				default:
					for mt := range o.Data {
						mimes = append(mimes, mt)
					}
				}
			}
		}
		all := strings.Join(streams, "\n")
		switch name {
		case "train-fashion-mnist-tutorial.ipynb":
			// The progress display publishes its loss chart; the training
			// reaches its accuracy.
			if !strings.Contains(strings.Join(mimes, " "), "image/svg+xml") {
				t.Errorf("%s: no loss chart (image/svg+xml) from the progress display", name)
			}
			if !strings.Contains(all, "above 60%: true") {
				t.Errorf("%s: the accuracy line is missing:\n%s", name, all)
			}
			continue
		case "export-deploy-tutorial.ipynb":
			// The fixture was found next to the notebook's directory.
			if !strings.Contains(all, "batchnorm0_running_var") || !strings.Contains(all, "largest difference: 0") {
				t.Errorf("%s: the imported models' output is missing:\n%s", name, all)
			}
			continue
		case "hybridize.ipynb":
		default:
			continue
		}
		if !strings.Contains(all, "<NDArray 16x1x28x28 @cpu(0)>") {
			t.Errorf("%s: the NDArray printed before Hybridize is missing", name)
		}
		if n := strings.Count(all, "<Symbol data 16x1x28x28 float32>"); n != 1 {
			t.Errorf("%s: the Symbol was printed %d times, want once (the first hybridized call)", name, n)
		}
		m := strings.Join(mimes, " ")
		for _, want := range []string{"image/svg+xml", "text/html"} {
			if !strings.Contains(m, want) {
				t.Errorf("%s: no %s output (the graph picture, the array table)", name, want)
			}
		}
	}
}
