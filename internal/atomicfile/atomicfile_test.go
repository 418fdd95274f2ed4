package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.txt")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v, %v; want mode 0600", fi, err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "two" {
		t.Fatalf("replaced file holds %q, %v; want two", got, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v, want its old 0640", fi.Mode().Perm())
	}
	// A failed write (the directory is missing) leaves nothing behind.
	if err := Write(filepath.Join(dir, "missing", "y"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory: no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after the writes, want 1 (no temporary files)", len(entries))
	}
}
