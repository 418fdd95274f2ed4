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

// CopyTestdata copies root/tutorials/testdata (root being the repository
// root) to dir/tutorials/testdata, so that cells run in a directory
// inside dir find the files as ../tutorials/testdata/NAME.
func CopyTestdata(root, dir string) error {
	src := filepath.Join(root, filepath.FromSlash(Testdata))
	dst := filepath.Join(dir, filepath.FromSlash(Testdata))
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("tutorial: the tutorials' files: %w", err)
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
		return fmt.Errorf("tutorial: copying %s: %w", src, err)
	}
	return nil
}

// PrepareDir lays out dir the way tutorial cells expect: it copies the
// tutorials' files with CopyTestdata and returns dir/run, a new empty
// directory to run the cells in. Test runners use it so that cells read
// the fixtures, and write their own files, in a temporary directory.
func PrepareDir(root, dir string) (string, error) {
	if err := CopyTestdata(root, dir); err != nil {
		return "", err
	}
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	return run, nil
}
