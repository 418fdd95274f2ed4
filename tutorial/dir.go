package tutorial

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Testdata is the directory, relative to the repository root, of the
// files that tutorial cells read (model files, say). A cell names them
// from one level below the root, as ../tutorials/testdata/NAME, which
// holds both in tutorials/ and in notebooks/.
const Testdata = "tutorials/testdata"

// PrepareDir lays out dir the way tutorial cells expect: it copies
// root/tutorials/testdata (root being the repository root) to
// dir/tutorials/testdata and returns dir/run, an empty directory to run
// the cells in, from which ../tutorials/testdata/NAME is the copy.
// Test runners use it so that cells read the fixtures and write their
// files in a temporary directory.
func PrepareDir(root, dir string) (string, error) {
	src := filepath.Join(root, filepath.FromSlash(Testdata))
	dst := filepath.Join(dir, filepath.FromSlash(Testdata))
	if _, err := os.Stat(src); err != nil {
		return "", fmt.Errorf("tutorial: the tutorials' files: %w", err)
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("tutorial: copying %s: %w", src, err)
	}
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	return run, nil
}
