package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// idxBytes encodes an IDX file of unsigned bytes.
func idxBytes(magic uint32, dims []uint32, payload []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(payload)
	return b.Bytes()
}

func gzipBytes(raw []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(raw)
	w.Close()
	return b.Bytes()
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallSet writes n images of rows x cols pixels (pixel j of image i is
// (i*7+j)%256) and labels i%10 into dir under the prefix's names.
func smallSet(t *testing.T, dir, prefix string, n, rows, cols int, gzImages, gzLabels bool) {
	t.Helper()
	px := make([]byte, n*rows*cols)
	for i := range n {
		for j := range rows * cols {
			px[i*rows*cols+j] = byte((i*7 + j) % 256)
		}
	}
	lab := make([]byte, n)
	for i := range lab {
		lab[i] = byte(i % 10)
	}
	img := idxBytes(idxImagesMagic, []uint32{uint32(n), uint32(rows), uint32(cols)}, px)
	lbl := idxBytes(idxLabelsMagic, []uint32{uint32(n)}, lab)
	imgName, lblName := prefix+"-images-idx3-ubyte", prefix+"-labels-idx1-ubyte"
	if gzImages {
		img, imgName = gzipBytes(img), imgName+".gz"
	}
	if gzLabels {
		lbl, lblName = gzipBytes(lbl), lblName+".gz"
	}
	writeFile(t, filepath.Join(dir, imgName), img)
	writeFile(t, filepath.Join(dir, lblName), lbl)
}

func TestLoadFashionMNISTSmall(t *testing.T) {
	for _, gz := range [][2]bool{{false, false}, {true, true}, {true, false}, {false, true}} {
		dir := t.TempDir()
		smallSet(t, dir, "train", 12, 28, 28, gz[0], gz[1])
		smallSet(t, dir, "t10k", 3, 4, 5, gz[0], gz[1])

		images, labels, err := LoadFashionMNIST(dir, true)
		if err != nil {
			t.Fatalf("gzip %v: %v", gz, err)
		}
		if images.Shape().Tuple() != "(12, 1, 28, 28)" || labels.Shape().Tuple() != "(12,)" {
			t.Fatalf("shapes %v %v", images.Shape(), labels.Shape())
		}
		if images.DType().String() != "float32" || labels.DType().String() != "float32" {
			t.Errorf("dtypes %v %v, want float32", images.DType(), labels.DType())
		}
		// Image 1, pixel (0, 3): (7+3)/255.
		if got, want := images.At(1, 0, 0, 3), float64(float32(10)/255); got != want {
			t.Errorf("pixel = %v, want %v", got, want)
		}
		if got := labels.At(11); got != 1 {
			t.Errorf("label 11 = %v, want 1", got)
		}

		ds, err := FashionMNIST(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ds.Get(2)
		if ds.Len() != 3 || s[0].Shape().Tuple() != "(1, 4, 5)" || s[1].Scalar() != 2 {
			t.Errorf("test set: %d samples, sample 2 %v label %v", ds.Len(), s[0].Shape(), s[1].Scalar())
		}
	}
}

// wantFormatError checks that err is a *FormatError for file at offset.
func wantFormatError(t *testing.T, err error, file string, offset int64, words ...string) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v (%T), want a *FormatError", err, err)
	}
	if fe.File != file || fe.Offset != offset {
		t.Errorf("error at %s byte %d, want %s byte %d: %v", fe.File, fe.Offset, file, offset, err)
	}
	msg := err.Error()
	for _, w := range append([]string{file, "byte offset"}, words...) {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

func TestReadIDXErrors(t *testing.T) {
	img := idxBytes(idxImagesMagic, []uint32{2, 3, 3}, make([]byte, 18))
	for _, gz := range []bool{false, true} {
		enc := func(b []byte) []byte {
			if gz {
				return gzipBytes(b)
			}
			return b
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "f")

		writeFile(t, p, enc(img))
		if _, err := readIDX(p, idxImagesMagic); err != nil {
			t.Fatalf("gzip %v: a good file: %v", gz, err)
		}

		// Bad magic: a labels file read as images, and garbage.
		writeFile(t, p, enc(idxBytes(idxLabelsMagic, []uint32{2}, []byte{1, 2})))
		_, err := readIDX(p, idxImagesMagic)
		wantFormatError(t, err, p, 0, "magic", "0x00000801", "0x00000803")
		writeFile(t, p, enc([]byte("GIF89a....")))
		_, err = readIDX(p, idxLabelsMagic)
		wantFormatError(t, err, p, 0, "magic")

		// Truncated inside the header, and inside the data.
		writeFile(t, p, enc(img[:10]))
		_, err = readIDX(p, idxImagesMagic)
		wantFormatError(t, err, p, 10, "header")
		writeFile(t, p, enc(img[:len(img)-5]))
		_, err = readIDX(p, idxImagesMagic)
		wantFormatError(t, err, p, int64(len(img)-5), "truncated")

		// Bytes after the data.
		writeFile(t, p, enc(append(append([]byte(nil), img...), 0, 0)))
		_, err = readIDX(p, idxImagesMagic)
		wantFormatError(t, err, p, int64(len(img)), "follow")

		// Dims claiming more than the file could hold fail before allocating
		// (4 G x 4 G x 4 G bytes would not fit in memory, nor in an int).
		huge := idxBytes(idxImagesMagic, []uint32{0xffffffff, 0xffffffff, 0xffffffff}, make([]byte, 100))
		writeFile(t, p, enc(huge))
		_, err = readIDX(p, idxImagesMagic)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), p) {
			t.Errorf("huge dims: err = %v", err)
		}

		// A zero dim.
		writeFile(t, p, enc(idxBytes(idxImagesMagic, []uint32{2, 0, 3}, nil)))
		_, err = readIDX(p, idxImagesMagic)
		wantFormatError(t, err, p, 8, "dim 1 is 0")
	}

	// A gzip stream cut short, and one with a broken checksum.
	dir := t.TempDir()
	p := filepath.Join(dir, "f.gz")
	z := gzipBytes(img)
	writeFile(t, p, z[:len(z)-6])
	if _, err := readIDX(p, idxImagesMagic); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("cut gzip: err = %v", err)
	}
	bad := append([]byte(nil), z...)
	bad[len(bad)-8] ^= 0xff // the CRC-32
	writeFile(t, p, bad)
	if _, err := readIDX(p, idxImagesMagic); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("bad gzip checksum: err = %v", err)
	}
}

func TestLoadFashionMNISTErrors(t *testing.T) {
	// Counts that disagree: the error names both files.
	dir := t.TempDir()
	smallSet(t, dir, "train", 4, 2, 2, true, false)
	lbl := filepath.Join(dir, "train-labels-idx1-ubyte")
	writeFile(t, lbl, idxBytes(idxLabelsMagic, []uint32{3}, []byte{0, 1, 2}))
	_, _, err := LoadFashionMNIST(dir, true)
	if err == nil {
		t.Fatal("no error for 4 images and 3 labels")
	}
	for _, w := range []string{filepath.Join(dir, "train-images-idx3-ubyte.gz"), lbl, "4 images", "3 labels"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}

	// A label that is not a class.
	writeFile(t, lbl, idxBytes(idxLabelsMagic, []uint32{4}, []byte{0, 1, 10, 2}))
	_, _, err = LoadFashionMNIST(dir, true)
	wantFormatError(t, err, lbl, 10, "label 10")

	// A bad file inside the set is reported with its name.
	writeFile(t, lbl, []byte{0, 0, 8, 3, 0, 0, 0, 1})
	_, _, err = LoadFashionMNIST(dir, true)
	wantFormatError(t, err, lbl, 0, "magic")

	// Missing files and directories say how to install the dataset.
	const hint = "apt-get install dataset-fashion-mnist (Debian) puts the files in /usr/share/datasets/fashion-mnist"
	_, _, err = LoadFashionMNIST(dir, false)
	if err == nil || !strings.Contains(err.Error(), "t10k-images-idx3-ubyte") || !strings.Contains(err.Error(), hint) {
		t.Errorf("missing file: err = %v", err)
	}
	_, err = FashionMNIST(filepath.Join(dir, "nowhere"), true)
	if err == nil || !strings.Contains(err.Error(), "nowhere") || !strings.Contains(err.Error(), hint) {
		t.Errorf("missing directory: err = %v", err)
	}
}

func FuzzReadIDX(f *testing.F) {
	img := idxBytes(idxImagesMagic, []uint32{2, 3, 3}, make([]byte, 18))
	f.Add(img)
	f.Add(gzipBytes(img))
	f.Add(idxBytes(idxImagesMagic, []uint32{0xffffffff, 0xffffffff, 1}, nil))
	f.Add(gzipBytes(idxBytes(idxImagesMagic, []uint32{1, 1 << 20, 1 << 10}, nil)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := readIDX(p, idxImagesMagic)
		if err != nil {
			return
		}
		if len(x.dims) != 3 || len(x.data) != x.dims[0]*x.dims[1]*x.dims[2] {
			t.Fatalf("dims %v with %d bytes of data", x.dims, len(x.data))
		}
	})
}

// realFashionMNIST skips the test when the dataset is not installed.
func realFashionMNIST(tb testing.TB) {
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		tb.Skipf("the Fashion-MNIST dataset is absent (%s does not exist); apt-get install dataset-fashion-mnist (Debian) puts the files there", FashionMNISTDir)
	}
}

func TestFashionMNISTReal(t *testing.T) {
	realFashionMNIST(t)
	for _, c := range []struct {
		train bool
		n     int
	}{{true, 60000}, {false, 10000}} {
		start := time.Now()
		images, labels, err := LoadFashionMNIST("", c.train)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("train=%v: read %d images in %v", c.train, c.n, time.Since(start))
		if got := images.Shape().Tuple(); got != fmt.Sprintf("(%d, 1, 28, 28)", c.n) {
			t.Errorf("images %s", got)
		}
		if got := labels.Shape().Tuple(); got != fmt.Sprintf("(%d,)", c.n) {
			t.Errorf("labels %s", got)
		}
		px := images.Data().([]float32)
		lo, hi := px[0], px[0]
		for _, v := range px {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo != 0 || hi != 1 {
			t.Errorf("pixels in [%v, %v], want [0, 1]", lo, hi)
		}
		// Fashion-MNIST is balanced: n/10 of each class.
		var count [10]int
		for i, v := range labels.Data().([]float32) {
			if v != float32(int(v)) || v < 0 || v > 9 {
				t.Fatalf("label %d is %v, not a class", i, v)
			}
			count[int(v)]++
		}
		for k, m := range count {
			if m != c.n/10 {
				t.Errorf("class %d (%s): %d samples, want %d", k, FashionMNISTClasses[k], m, c.n/10)
			}
		}
	}

	ds, err := FashionMNIST("", false)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewDataLoader(ds, LoaderOptions{BatchSize: 256, Shuffle: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for b, err := range l.Epoch() {
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && (b[0].Shape().Tuple() != "(256, 1, 28, 28)" || b[1].Shape().Tuple() != "(256,)") {
			t.Errorf("batch shapes %v %v", b[0].Shape(), b[1].Shape())
		}
		n++
	}
	if n != 40 || l.NumBatches() != 40 {
		t.Errorf("%d batches (NumBatches %d), want 40", n, l.NumBatches())
	}
}

func BenchmarkLoadFashionMNISTTrain(b *testing.B) {
	realFashionMNIST(b)
	for b.Loop() {
		if _, _, err := LoadFashionMNIST("", true); err != nil {
			b.Fatal(err)
		}
	}
}
