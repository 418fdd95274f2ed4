package viz_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hybridgo/hybridgo/viz"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "graph.html")
	for _, content := range []string{"first", "second, longer", ""} {
		if err := viz.WriteFile(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// A failed write leaves nothing and says why.
	if err := viz.WriteFile(filepath.Join(dir, "missing", "x.svg"), []byte("x")); err == nil {
		t.Error("writing into a missing directory gave no error")
	}
	if err := viz.WriteFile(filepath.Join(dir, "graph.html", "x"), []byte("x")); err == nil {
		t.Error("writing under a file gave no error")
	}
	// In the current directory.
	t.Chdir(dir)
	if err := viz.WriteFile("here.svg", []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
}

// Readers never see a partly written file while it is rewritten.
func TestWriteFileAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chart.svg")
	a := bytes.Repeat([]byte("a"), 1<<20)
	b := bytes.Repeat([]byte("b"), 1<<19)
	if err := viz.WriteFile(p, a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < 40; i++ {
			data := a
			if i%2 == 0 {
				data = b
			}
			if err := viz.WriteFile(p, data); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := os.ReadFile(p)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
					t.Errorf("a reader saw %d bytes, neither version", len(got))
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want viz.Format
		err  string
	}{
		{"g.txt", viz.FormatText, ""},
		{"dir/G.SVG", viz.FormatSVG, ""},
		{"g.html", viz.FormatHTML, ""},
		{"g.png", 0, `unknown graph file type ".png": use .svg, .html or .txt`},
		{"g", 0, "graph file g has no extension"},
	} {
		got, err := viz.FormatOf(c.path)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("FormatOf(%s) = %v, %v; want %v", c.path, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("FormatOf(%s): error %v, want %q", c.path, err, c.err)
		}
	}
}
