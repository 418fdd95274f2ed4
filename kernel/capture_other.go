//go:build !(linux || darwin || freebsd)

package kernel

import (
	"errors"
	"io"
	"os"
)

type fdCapture struct{ orig *os.File }

func captureFD(fd int, dst io.Writer) (*fdCapture, error) {
	return nil, errors.New("kernel: capturing file descriptors is not supported here")
}

func (c *fdCapture) sync() {}
