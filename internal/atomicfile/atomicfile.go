// Package atomicfile writes files so that a reader, or a crash half-way,
// sees the old file or the new one, never a part: the one way hybridgo
// writes a file (model files, drawings, the REPL's history). It imports
// only the standard library.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path atomically: into a temporary file in the same
// directory, synced to disk, then renamed over path. Any failure leaves an
// existing file at path as it was. A new file gets mode perm; a replaced
// one keeps its mode.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Make the rename itself durable; a directory that cannot be synced
	// (some filesystems refuse) does not undo the write.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
