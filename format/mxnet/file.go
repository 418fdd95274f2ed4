package mxnet

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// writeFile writes data to path atomically: into a temporary file in the
// same directory, synced to disk, then renamed over path. Any failure
// leaves an existing file at path as it was. A new file gets mode 0644; a
// replaced one keeps its mode.
func writeFile(path string, data []byte) (err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
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
	if err = tmp.Chmod(mode); err != nil {
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
	// (some filesystems refuse) does not undo the save.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// readFile reads the regular file at path. It reads no more than the size
// the file had when opened, so a file that is still growing cannot make it
// allocate without bound.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	size := fi.Size()
	if size < 0 || uint64(size) > uint64(math.MaxInt) {
		return nil, fmt.Errorf("file of %d bytes is too large", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("the file shrank while being read: %w", err)
		}
		return nil, err
	}
	return data, nil
}
