package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/ops"
)

// FashionMNISTDir is where Debian's dataset-fashion-mnist package installs
// the four IDX files (gzipped).
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// FashionMNISTClasses names the ten labels, in label order.
var FashionMNISTClasses = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

const fashionMNISTInstall = "apt-get install dataset-fashion-mnist (Debian) puts the files in " + FashionMNISTDir +
	"; or download train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz from github.com/zalandoresearch/fashion-mnist into a directory and pass that"

// The IDX magic numbers: two zero bytes, the element type (0x08, unsigned
// byte), and the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// FormatError reports a malformed IDX file: which file, at which byte, and
// what was wrong. For a gzipped file the offset counts bytes of the
// decompressed data.
type FormatError struct {
	File    string
	Offset  int64
	Gzipped bool
	Msg     string
}

func (e *FormatError) Error() string {
	where := fmt.Sprintf("byte offset %d", e.Offset)
	if e.Gzipped {
		where += " (of the decompressed data)"
	}
	return fmt.Sprintf("data: %s: %s: %s", e.File, where, e.Msg)
}

// maxDeflateRatio bounds how much deflate can expand its input (about
// 1032:1), so a gzipped file's claimed size can be checked against its
// compressed size before anything is allocated.
const maxDeflateRatio = 1032

// idx is a parsed IDX file.
type idx struct {
	path string
	gz   bool   // the file was gzipped
	dims []int  // from the header
	data []byte // the elements, row-major
}

// readIDX reads an IDX file of unsigned bytes (gzipped or not) whose magic
// number must be magic, and returns its dims and its data. The file is
// untrusted: the dims are checked against what the file can hold before
// the data is allocated, and the data must end where the dims say.
func readIDX(path string, magic uint32) (*idx, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	bad := func(off int64, gz bool, format string, args ...any) error {
		return &FormatError{File: path, Offset: off, Gzipped: gz, Msg: fmt.Sprintf(format, args...)}
	}

	gz := len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b
	var r io.Reader = bytes.NewReader(raw)
	limit := uint64(len(raw)) // the most data bytes the file could hold
	if gz {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, bad(0, false, "not a valid gzip stream: %v", err)
		}
		defer zr.Close()
		r = zr
		limit = uint64(len(raw)) * maxDeflateRatio
	}

	// Header: the magic number, then one big-endian uint32 per dim.
	var word [4]byte
	var off int64
	readWord := func(what string) (uint32, error) {
		n, err := io.ReadFull(r, word[:])
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, bad(off+int64(n), gz, "the file ends inside the header, reading %s", what)
			}
			return 0, bad(off+int64(n), gz, "reading %s: %v", what, err)
		}
		off += 4
		return binary.BigEndian.Uint32(word[:]), nil
	}
	m, err := readWord("the magic number")
	if err != nil {
		return nil, err
	}
	if m != magic {
		kind := "labels"
		if magic == idxImagesMagic {
			kind = "images"
		}
		return nil, bad(0, gz, "magic number 0x%08x is not that of an IDX %s file (want 0x%08x: unsigned bytes, %d dims)", m, kind, magic, magic&0xff)
	}
	ndims := int(magic & 0xff)
	dims := make([]int, ndims)
	size := uint64(1)
	for k := range dims {
		at := off
		d, err := readWord(fmt.Sprintf("dim %d", k))
		if err != nil {
			return nil, err
		}
		if d == 0 {
			return nil, bad(at, gz, "dim %d is 0", k)
		}
		// size*d > limit, tested without overflow (size <= limit here).
		if size > limit/uint64(d) {
			return nil, bad(at, gz, "dim %d is %d, making the data larger than a %d-byte file can hold", k, d, len(raw))
		}
		size *= uint64(d)
		dims[k] = int(d)
	}
	header := off

	if !gz {
		have := uint64(len(raw)) - uint64(header)
		switch {
		case have < size:
			return nil, bad(int64(len(raw)), gz, "the file is truncated: dims %v need %d bytes of data after the %d-byte header, the file has %d", dims, size, header, have)
		case have > size:
			return nil, bad(header+int64(size), gz, "%d bytes follow the %d bytes of data that dims %v describe", have-size, size, dims)
		}
		return &idx{path, gz, dims, raw[header : header+int64(size)]}, nil
	}

	payload := make([]byte, size)
	n, err := io.ReadFull(r, payload)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, bad(header+int64(n), gz, "the file is truncated: dims %v need %d bytes of data after the %d-byte header, the file has %d", dims, size, header, n)
		}
		return nil, bad(header+int64(n), gz, "corrupt gzip data: %v", err)
	}
	// The data must end here; reading on also checks the gzip checksum.
	var extra [1]byte
	k, err := r.Read(extra[:])
	for k == 0 && err == nil {
		k, err = r.Read(extra[:])
	}
	if k > 0 {
		return nil, bad(header+int64(size), gz, "more data follows the %d bytes that dims %v describe", size, dims)
	}
	if !errors.Is(err, io.EOF) {
		return nil, bad(header+int64(size), gz, "corrupt gzip data: %v", err)
	}
	return &idx{path, gz, dims, payload}, nil
}

// findIDX returns the path of name or name.gz in dir, whichever exists.
func findIDX(dir, name string) (string, error) {
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".gz")} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("data: Fashion-MNIST file %s (or %s.gz) is not in %s; %s", name, name, dir, fashionMNISTInstall)
}

// LoadFashionMNIST reads the Fashion-MNIST training set (train true, 60000
// samples) or test set (10000) from dir; "" means FashionMNISTDir. The
// files are train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each gzipped (.gz)
// or not.
//
// images is float32 of shape (N, 1, 28, 28), the pixels scaled to [0, 1]
// (what gluon.data.vision.transforms.ToTensor makes of them); labels is
// float32 of shape (N,) holding the class numbers 0..9, MXNet's convention
// for SoftmaxCrossEntropyLoss labels (FashionMNISTClasses names them).
//
// The files are checked as untrusted input: magic numbers, dims against
// the file size, image and label counts against each other, labels in
// range. Errors name the file and the byte offset.
func LoadFashionMNIST(dir string, train bool) (images, labels *eager.NDArray, err error) {
	if dir == "" {
		dir = FashionMNISTDir
	}
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("data: the Fashion-MNIST directory %s does not exist; %s", dir, fashionMNISTInstall)
		}
		return nil, nil, fmt.Errorf("data: %w", err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("data: %s is not a directory; %s", dir, fashionMNISTInstall)
	}
	prefix := "t10k"
	if train {
		prefix = "train"
	}
	imgPath, err := findIDX(dir, prefix+"-images-idx3-ubyte")
	if err != nil {
		return nil, nil, err
	}
	lblPath, err := findIDX(dir, prefix+"-labels-idx1-ubyte")
	if err != nil {
		return nil, nil, err
	}
	img, err := readIDX(imgPath, idxImagesMagic)
	if err != nil {
		return nil, nil, err
	}
	lbl, err := readIDX(lblPath, idxLabelsMagic)
	if err != nil {
		return nil, nil, err
	}
	n := img.dims[0]
	if lbl.dims[0] != n {
		return nil, nil, fmt.Errorf("data: image and label counts disagree: %s says %d images (byte offset 4), %s says %d labels (byte offset 4)",
			imgPath, n, lblPath, lbl.dims[0])
	}

	lab := make([]float32, n)
	for i, c := range lbl.data {
		if int(c) >= len(FashionMNISTClasses) {
			return nil, nil, &FormatError{File: lblPath, Offset: 8 + int64(i), Gzipped: lbl.gz,
				Msg: fmt.Sprintf("label %d of sample %d is not a class number 0..%d", c, i, len(FashionMNISTClasses)-1)}
		}
		lab[i] = float32(c)
	}

	var scale [256]float32
	for v := range scale {
		scale[v] = float32(v) / 255
	}
	px := make([]float32, len(img.data))
	for i, p := range img.data {
		px[i] = scale[p]
	}

	rows, cols := img.dims[1], img.dims[2]
	images = eager.FromValue(ops.Value{Shape: ops.Shape{n, 1, rows, cols}, DType: ops.Float32, Data: px})
	labels = eager.FromValue(ops.Value{Shape: ops.Shape{n}, DType: ops.Float32, Data: lab})
	return images, labels, nil
}

// FashionMNIST is LoadFashionMNIST as a dataset of (image, label) samples:
// a 1x28x28 float32 image in [0, 1] and a scalar float32 label. It is
// Gluon's gluon.data.vision.FashionMNIST followed by ToTensor.
func FashionMNIST(dir string, train bool) (*ArrayDataset, error) {
	images, labels, err := LoadFashionMNIST(dir, train)
	if err != nil {
		return nil, err
	}
	return NewArrayDataset(images, labels)
}
