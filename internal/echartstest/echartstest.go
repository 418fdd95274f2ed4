// Package echartstest fetches echarts.min.js for the browser tests that
// draw interactive charts (viz's page screenshots, the kernel's notebook
// web UI test). It takes the echarts@5 package from the npm registry with
// npm, which keeps its own cache, into a directory the test names; nothing
// is written to the repository.
//
// It is for tests only and imports nothing of hybridgo.
package echartstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ErrUnavailable is wrapped by Fetch's error when npm is missing or
// cannot fetch the package (no registry): tests then say they skip.
var ErrUnavailable = errors.New("echarts is unavailable")

// Fetch writes echarts.min.js into dir and returns the name of the npm
// package file it came from ("echarts-5.6.0.tgz").
func Fetch(dir string) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm is not on PATH (apt-get install npm)", ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "--pack-destination", dir, "echarts@5")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: npm pack echarts@5 failed (no registry?): %v\n%s", ErrUnavailable, err, stderr.String())
	}
	tgz, _ := filepath.Glob(filepath.Join(dir, "echarts-*.tgz"))
	if len(tgz) != 1 {
		return "", fmt.Errorf("npm pack echarts@5 left %v in %s", tgz, dir)
	}
	js, err := extract(tgz[0], "package/dist/echarts.min.js")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "echarts.min.js"), js, 0o644); err != nil {
		return "", err
	}
	return filepath.Base(tgz[0]), nil
}

// extract reads one file out of a .tgz.
func extract(tgz, name string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	r := tar.NewReader(z)
	for {
		h, err := r.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s has no %s", tgz, name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(r)
		}
	}
}
