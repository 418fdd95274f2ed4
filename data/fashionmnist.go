package data

import (
	"bufio"
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

// idx is an IDX file read whole.
type idx struct {
	path string
	gz   bool   // the file was gzipped
	dims []int  // from the header
	data []byte // the elements, row-major
}

// readIDX reads an IDX file of unsigned bytes (gzipped or not) whose magic
// number must be magic, and returns its dims and its data.
func readIDX(path string, magic uint32) (*idx, error) {
	x, err := openIDX(path, magic)
	if err != nil {
		return nil, err
	}
	defer x.close()
	data := make([]byte, x.size)
	if err := x.each(func(at int, chunk []byte) { copy(data[at:], chunk) }); err != nil {
		return nil, err
	}
	return &idx{path, x.gz, x.dims, data}, nil
}

// idxFile is an IDX file opened for streaming, its header read and checked.
type idxFile struct {
	path   string
	gz     bool
	dims   []int
	size   int   // the number of data bytes the dims describe
	header int64 // the header's length in bytes
	f      *os.File
	r      io.Reader // the bytes after the header: the file's, or its decompressed stream's
}

func (x *idxFile) bad(off int64, format string, args ...any) error {
	return &FormatError{File: x.path, Offset: off, Gzipped: x.gz, Msg: fmt.Sprintf(format, args...)}
}

func (x *idxFile) close() { x.f.Close() }

// openIDX opens an IDX file of unsigned bytes (gzipped or not) whose magic
// number must be magic, and reads its header. The file is untrusted: the
// dims are checked against what a file of its size can hold, so nothing
// is allocated for a header that lies; a plain file's size must match the
// dims exactly, and each checks a gzipped one as it decompresses.
func openIDX(path string, magic uint32) (*idxFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	x := &idxFile{path: path, f: f}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	fileSize := st.Size()
	br := bufio.NewReaderSize(f, 1<<16)
	x.r = br
	limit := uint64(fileSize) // the most data bytes the file could hold
	if sig, _ := br.Peek(2); len(sig) == 2 && sig[0] == 0x1f && sig[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, x.bad(0, "not a valid gzip stream: %v", err)
		}
		x.gz, x.r = true, zr
		limit = uint64(fileSize) * maxDeflateRatio
	}

	// Header: the magic number, then one big-endian uint32 per dim.
	var word [4]byte
	var off int64
	readWord := func(what string) (uint32, error) {
		n, err := io.ReadFull(x.r, word[:])
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, x.bad(off+int64(n), "the file ends inside the header, reading %s", what)
			}
			return 0, x.bad(off+int64(n), "reading %s: %v", what, err)
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
		return nil, x.bad(0, "magic number 0x%08x is not that of an IDX %s file (want 0x%08x: unsigned bytes, %d dims)", m, kind, magic, magic&0xff)
	}
	x.dims = make([]int, magic&0xff)
	size := uint64(1)
	for k := range x.dims {
		at := off
		d, err := readWord(fmt.Sprintf("dim %d", k))
		if err != nil {
			return nil, err
		}
		if d == 0 {
			return nil, x.bad(at, "dim %d is 0", k)
		}
		// size*d > limit, tested without overflow (size <= limit here).
		if size > limit/uint64(d) {
			return nil, x.bad(at, "dim %d is %d, making the data larger than a %d-byte file can hold", k, d, fileSize)
		}
		size *= uint64(d)
		x.dims[k] = int(d)
	}
	x.header, x.size = off, int(size)

	if !x.gz {
		have := uint64(fileSize - off)
		switch {
		case have < size:
			return nil, x.bad(fileSize, "the file is truncated: dims %v need %d bytes of data after the %d-byte header, the file has %d", x.dims, size, off, have)
		case have > size:
			return nil, x.bad(off+int64(size), "%d bytes follow the %d bytes of data that dims %v describe", have-size, size, x.dims)
		}
	}
	ok = true
	return x, nil
}

// each reads the data in chunks, handing fn each chunk and its offset in
// the data, then checks that the file ends there (and, for a gzipped
// file, that its checksum holds). For large data, reading (decompressing)
// and fn run on two goroutines, overlapped; fn sees the chunks in order.
func (x *idxFile) each(fn func(at int, chunk []byte)) error {
	const chunkSize = 1 << 18
	type chunk struct {
		at  int
		buf []byte
	}
	var err error
	if x.size <= 4*chunkSize {
		buf := make([]byte, min(x.size, chunkSize))
		err = x.readChunks(func() []byte { return buf }, func(at int, b []byte) { fn(at, b) })
	} else {
		free := make(chan []byte, 3)
		for range cap(free) {
			free <- make([]byte, chunkSize)
		}
		full := make(chan chunk, cap(free))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for c := range full {
				fn(c.at, c.buf)
				free <- c.buf[:cap(c.buf)]
			}
		}()
		err = x.readChunks(func() []byte { return <-free }, func(at int, b []byte) { full <- chunk{at, b} })
		close(full)
		<-done
	}
	if err != nil {
		return err
	}
	// The data must end here; reading on also checks the gzip checksum.
	var extra [1]byte
	n, err := x.r.Read(extra[:])
	for n == 0 && err == nil {
		n, err = x.r.Read(extra[:])
	}
	end := x.header + int64(x.size)
	if n > 0 {
		return x.bad(end, "more data follows the %d bytes that dims %v describe", x.size, x.dims)
	}
	if !errors.Is(err, io.EOF) {
		return x.bad(end, "reading past the data: %v", err)
	}
	return nil
}

// readChunks reads the data into buffers from next, passing each filled
// one to put with its offset in the data.
func (x *idxFile) readChunks(next func() []byte, put func(at int, b []byte)) error {
	for at := 0; at < x.size; {
		buf := next()
		n, err := io.ReadFull(x.r, buf[:min(len(buf), x.size-at)])
		if n > 0 {
			put(at, buf[:n])
			at += n
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return x.bad(x.header+int64(at), "the file is truncated: dims %v need %d bytes of data after the %d-byte header, the file has %d", x.dims, x.size, x.header, at)
			}
			return x.bad(x.header+int64(at), "reading the data: %v", err)
		}
	}
	return nil
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
// images is float32 of shape (N, 1, 28, 28) (IDX files of other image
// sizes give (N, 1, rows, cols)), the pixels scaled to [0, 1]
// (what gluon.data.vision.transforms.ToTensor makes of them); labels is
// float32 of shape (N,) holding the class numbers 0..9, MXNet's convention
// for SoftmaxCrossEntropyLoss labels (FashionMNISTClasses names them).
//
// The files are checked as untrusted input: magic numbers, dims against
// the file size, image and label counts against each other, labels in
// range. Errors name the file and the byte offset. A gzipped file's dims
// can only be bounded by deflate's largest expansion (about 1032 times the
// compressed size) before it is decompressed.
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
	img, err := openIDX(imgPath, idxImagesMagic)
	if err != nil {
		return nil, nil, err
	}
	defer img.close()
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
	px := make([]float32, img.size)
	err = img.each(func(at int, chunk []byte) {
		out := px[at : at+len(chunk)]
		for i, p := range chunk {
			out[i] = scale[p]
		}
	})
	if err != nil {
		return nil, nil, err
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
