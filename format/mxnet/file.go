package mxnet

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/hybridgo/hybridgo/internal/atomicfile"
)

// writeFile writes data to path atomically (a new file gets mode 0644; a
// replaced one keeps its mode).
func writeFile(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }

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
