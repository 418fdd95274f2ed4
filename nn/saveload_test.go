package nn_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/format/mxnet"
	"github.com/hybridgo/hybridgo/nn"
	"github.com/hybridgo/hybridgo/ops"
)

// fileKeys lists the names in a params file.
func fileKeys(t *testing.T, file string) string {
	t.Helper()
	list, err := mxnet.LoadParams(file)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range list {
		keys = append(keys, e.Name)
	}
	return strings.Join(keys, " ")
}

func TestSaveLoad(t *testing.T) {
	net1, x := newLeNet(t, 11)
	y := net1.Forward(x)
	file := filepath.Join(t.TempDir(), "lenet.params")
	if err := net1.SaveParameters(file); err != nil {
		t.Fatal(err)
	}
	want := "fc3_weight conv1.weight conv1.bias conv2.weight conv2.bias fc1.weight fc1.bias fc2.weight fc2.bias"
	if got := fileKeys(t, file); got != want {
		t.Errorf("keys\n%s\nwant\n%s", got, want)
	}

	// A new net (another prefix, shapes still unknown) loads them.
	net2 := NewNet()
	if err := net2.LoadParameters(file); err != nil {
		t.Fatal(err)
	}
	assertClose(t, "loaded net", net2.Forward(x), y)
	net2.Hybridize()
	assertClose(t, "loaded net, hybridized", net2.Forward(x), y)

	// Loading again into initialised parameters keeps their arrays (and
	// gradient buffers), overwriting the values.
	before := net2.Fc1.Weight.Data()
	eager.Pause(func() { eager.CopyFrom(before, eager.ZerosOf(ops.Float32, before.Shape()...)) })
	if err := net2.LoadParameters(file); err != nil {
		t.Fatal(err)
	}
	if net2.Fc1.Weight.Data() != before || net2.Fc1.Weight.Grad() == nil {
		t.Error("loading replaced an initialised parameter's array")
	}
	assertClose(t, "reloaded net", net2.Forward(x), y)
}

func TestSaveParametersKeys(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		block interface {
			Initialize(...nn.InitializeOptions) error
			SaveParameters(string, ...bool) error
			LoadParameters(string, ...nn.LoadParametersOptions) error
		}
		want string
	}{
		{"HybridSequential", nn.NewHybridSequential(nn.NewDense(3, nn.DenseOptions{InUnits: 2}), nn.NewDense(1, nn.DenseOptions{InUnits: 3, NoBias: true})),
			"0.weight 0.bias 1.weight"},
		{"Sequential (a plain block)", nn.NewSequential(nn.NewDense(3, nn.DenseOptions{InUnits: 2}), nn.NewHybridSequential(nn.NewDense(2, nn.DenseOptions{InUnits: 3}))),
			"0.weight 0.bias 1.0.weight 1.0.bias"},
		{"Dense", nn.NewDense(3, nn.DenseOptions{InUnits: 2}), "weight bias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.block.Initialize(); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := tc.block.SaveParameters(file); err != nil {
				t.Fatal(err)
			}
			if got := fileKeys(t, file); got != tc.want {
				t.Errorf("keys %q, want %q", got, tc.want)
			}
			if err := tc.block.LoadParameters(file); err != nil {
				t.Errorf("loading its own file: %v", err)
			}
		})
	}
}

// sharedB holds a weight, its own or one shared with another block.
type sharedB struct {
	nn.HybridBlock
	Weight *nn.Parameter
}

func newSharedB(w *nn.Parameter) *sharedB {
	if w == nil {
		w = nn.NewParameter("weight", ops.Shape{10, 10})
	}
	b := &sharedB{Weight: w}
	b.Bind(b, "sharedb")
	return b
}

func (b *sharedB) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return F.Dot(x, nn.Param(F, b.Weight))
}

type sharedC struct {
	nn.HybridBlock
	B1, B2 *sharedB
}

func newSharedC(share bool) *sharedC {
	b1 := newSharedB(nil)
	var w *nn.Parameter
	if share {
		w = b1.Weight
	}
	c := &sharedC{B1: b1, B2: newSharedB(w)}
	c.Bind(c, "sharedc")
	return c
}

func (c *sharedC) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return c.B2.Forward(c.B1.Forward(x))
}

func TestSaveLoadDeduplicateWithSharedParams(t *testing.T) {
	dir := t.TempDir()
	c := newSharedC(true)
	if err := c.Initialize(); err != nil {
		t.Fatal(err)
	}
	dedup, full := filepath.Join(dir, "dedup.params"), filepath.Join(dir, "full.params")
	if err := c.SaveParameters(dedup, true); err != nil {
		t.Fatal(err)
	}
	if err := c.SaveParameters(full); err != nil {
		t.Fatal(err)
	}
	// Only a single copy of the shared parameter is saved, under its first name.
	if got := fileKeys(t, dedup); got != "b1.weight" {
		t.Errorf("deduplicated keys %q", got)
	}
	if got := fileKeys(t, full); got != "b1.weight b2.weight" {
		t.Errorf("keys %q", got)
	}

	// A net with the same sharing loads either file.
	x := eager.RandomNormal(2, 10)
	y := c.Forward(x)
	for _, file := range []string{dedup, full} {
		c2 := newSharedC(true)
		if err := c2.LoadParameters(file); err != nil {
			t.Fatalf("%s: %v", filepath.Base(file), err)
		}
		if c2.B1.Weight != c2.B2.Weight {
			t.Fatal("the weight is no longer shared")
		}
		assertClose(t, filepath.Base(file), c2.Forward(x), y)
	}

	// A net without the sharing misses b2.weight in the deduplicated file.
	err := newSharedC(false).LoadParameters(dedup)
	if err == nil || !strings.Contains(err.Error(), "b2.weight") || !strings.Contains(err.Error(), dedup) {
		t.Errorf("got %v", err)
	}
}

func newFillNet() *nn.HybridSequential {
	return nn.NewHybridSequential(
		nn.NewConv2D(8, []int{2}, nn.ConvOptions{Padding: []int{1}}),
		nn.NewConv2D(8, []int{3}, nn.ConvOptions{Padding: []int{1}}),
		nn.NewDense(10))
}

func TestFillShapeLoad(t *testing.T) {
	eager.Seed(12)
	net1 := newFillNet()
	net1.Hybridize()
	if err := net1.Initialize(); err != nil {
		t.Fatal(err)
	}
	x := eager.Ones(2, 3, 5, 7)
	y := net1.Forward(x)
	file := filepath.Join(t.TempDir(), "net_fill.params")
	if err := net1.SaveParameters(file); err != nil {
		t.Fatal(err)
	}

	net2 := newFillNet()
	if err := net2.LoadParameters(file); err != nil {
		t.Fatal(err)
	}
	ps := net2.CollectParams().List()
	for i, want := range []ops.Shape{{8, 3, 2, 2}, {8}, {8, 8, 3, 3}, {8}, {10, 8 * 6 * 8}, {10}} {
		if got := ps[i].Shape(); !got.Equal(want) || !ps[i].Initialized() {
			t.Errorf("%s: shape %v (initialised: %v), want %v", ps[i].Name(), got, ps[i].Initialized(), want)
		}
	}
	// No Initialize needed: the file completed the deferred initialisation.
	assertClose(t, "loaded net", net2.Forward(x), y)
}

func TestLoadParametersErrors(t *testing.T) {
	dir := t.TempDir()
	mk := func(units ...int) *nn.HybridSequential {
		s := nn.NewHybridSequential()
		for _, u := range units {
			s.Add(nn.NewDense(u))
		}
		return s
	}
	save := func(name string, net *nn.HybridSequential, cast ...ops.DType) string {
		if err := net.Initialize(); err != nil {
			t.Fatal(err)
		}
		net.Forward(eager.Ones(1, 4))
		for _, d := range cast {
			net.Cast(d)
		}
		file := filepath.Join(dir, name)
		if err := net.SaveParameters(file); err != nil {
			t.Fatal(err)
		}
		return file
	}
	base := save("base.params", mk(3, 2))
	small := save("small.params", mk(3))
	big := save("big.params", mk(3, 2, 1))
	f64 := save("f64.params", mk(3, 2), ops.Float64)
	for _, tc := range []struct {
		name   string
		target *nn.HybridSequential
		file   string
		opts   nn.LoadParametersOptions
		want   []string // in the error; none: no error
		dtype  ops.DType
	}{
		{"same", mk(3, 2), base, nn.LoadParametersOptions{}, nil, ops.Float32},
		{"missing", mk(3, 2), small, nn.LoadParametersOptions{}, []string{"1.weight", "missing", "AllowMissing"}, 0},
		{"missing allowed", mk(3, 2), small, nn.LoadParametersOptions{AllowMissing: true}, nil, ops.Float32},
		{"extra", mk(3, 2), big, nn.LoadParametersOptions{}, []string{`"2.weight"`, "IgnoreExtra", "its parameters: 0.weight"}, 0},
		{"extra ignored", mk(3, 2), big, nn.LoadParametersOptions{IgnoreExtra: true}, nil, ops.Float32},
		{"shape", mk(5, 2), base, nn.LoadParametersOptions{}, []string{"0.weight", "shape incompatible", "(5, 0)", "(3, 4)"}, 0},
		{"dtype", mk(3, 2), f64, nn.LoadParametersOptions{}, []string{"0.weight", "dtype incompatible", "float32", "float64", "CastDType"}, 0},
		{"cast to current", mk(3, 2), f64, nn.LoadParametersOptions{CastDType: true}, nil, ops.Float32},
		{"cast to current, named", mk(3, 2), f64, nn.LoadParametersOptions{CastDType: true, DTypeSource: "current"}, nil, ops.Float32},
		{"keep saved", mk(3, 2), f64, nn.LoadParametersOptions{CastDType: true, DTypeSource: "saved"}, nil, ops.Float64},
		{"bad dtype source", mk(3, 2), f64, nn.LoadParametersOptions{CastDType: true, DTypeSource: "file"}, []string{`"file"`, "current"}, 0},
		{"no file", mk(3, 2), filepath.Join(dir, "absent.params"), nn.LoadParametersOptions{}, []string{"absent.params"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.target.LoadParameters(tc.file, tc.opts)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if d := tc.target.CollectParams().List()[0].DType(); d != tc.dtype {
					t.Errorf("dtype %v, want %v", d, tc.dtype)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range append(tc.want, tc.file) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			// A failed load changes nothing.
			for _, p := range tc.target.CollectParams().List() {
				if p.Initialized() {
					t.Errorf("%s was loaded by a failed load", p.Name())
				}
			}
		})
	}
}

// Files written by Export (full names with arg:/aux:) load with
// LoadParameters into a block of the same structure, even one named
// differently (MXNet issues 10601 and 19257).
func TestLoadExportedParams(t *testing.T) {
	prefix, net1, x := exportLeNet(t, 13)
	file := prefix + "-0000.params"
	y := net1.Forward(x)
	for _, tc := range []struct {
		name string
		net  *Net
	}{
		{"the same net", net1},
		{"a net named differently", NewNet()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.net.LoadParameters(file); err != nil {
				t.Fatal(err)
			}
			assertClose(t, "loaded", tc.net.Forward(x), y)
		})
	}
	// Into another structure: names that match nothing are reported as
	// full names, and a name that matches with the wrong shape says which
	// name of the file it was.
	err := newSharedC(true).LoadParameters(file)
	if err == nil || !strings.Contains(err.Error(), "full parameter names") || !strings.Contains(err.Error(), file) {
		t.Errorf("loading into another structure: %v", err)
	}
	fill := newFillNet()
	err = fill.LoadParameters(file)
	want := fill.Name() + `_conv0_weight (saved as "arg:` + net1.Conv1.Weight.Name() + `"): shape incompatible`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("loading into another structure: %v\nwant %s", err, want)
	}
}

func TestSaveParametersIsAtomic(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "model.params")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, s := range append(want, file) {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not mention %q", what, err, s)
			}
		}
		if b, _ := os.ReadFile(file); string(b) != "old" {
			t.Errorf("%s: the file was changed: %q", what, b)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: files left behind: %v", what, entries)
		}
	}
	// Encoding fails half-way through the list (a 0-dim parameter).
	check("0-dim", newScaled(t).SaveParameters(file), "scale", "0-dim")
	// A parameter without values.
	check("uninitialised", NewNet().SaveParameters(file), "fc3_weight", "not been initialised")
}

// TestLoadGluonSequentialFile loads a file whose keys follow Gluon's
// naming rule for a HybridSequential of three Dense layers: the children
// are registered under their index, so the keys are "0.weight",
// "0.bias", "1.weight", … (as net.save_parameters writes them). A file
// saved by earlier versions of hybridgo ("layers.0.weight") loads too.
func TestLoadGluonSequentialFile(t *testing.T) {
	dir := t.TempDir()
	units := []int{4, 3, 2} // Dense(4), Dense(3), Dense(2) on 5 inputs
	write := func(name, prefix string) (string, map[string]*eager.NDArray) {
		var list []mxnet.NamedArray
		want := map[string]*eager.NDArray{}
		in := 5
		for i, u := range units {
			w := make([]float32, u*in)
			for j := range w {
				w[j] = float32(10*i + j)
			}
			b := make([]float32, u)
			for j := range b {
				b[j] = float32(-i - j)
			}
			wk, bk := fmt.Sprintf("%s%d.weight", prefix, i), fmt.Sprintf("%s%d.bias", prefix, i)
			list = append(list, mxnet.NamedArray{Name: wk, Array: eager.Array(w, u, in)}, mxnet.NamedArray{Name: bk, Array: eager.Array(b, u)})
			want[fmt.Sprintf("%d.weight", i)], want[fmt.Sprintf("%d.bias", i)] = eager.Array(w, u, in), eager.Array(b, u)
			in = u
		}
		file := filepath.Join(dir, name)
		if err := mxnet.SaveParams(file, list); err != nil {
			t.Fatal(err)
		}
		return file, want
	}
	newNet := func() *nn.HybridSequential {
		return nn.NewHybridSequential(nn.NewDense(units[0]), nn.NewDense(units[1]), nn.NewDense(units[2]))
	}
	for _, tc := range []struct{ name, prefix string }{
		{"gluon", ""},
		{"older hybridgo", "layers."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, want := write(tc.name+".params", tc.prefix)
			net := newNet() // shapes unknown until the file gives them
			if err := net.LoadParameters(file); err != nil {
				t.Fatal(err)
			}
			params := net.CollectParams().List()
			if len(params) != len(want) {
				t.Fatalf("%d parameters, want %d", len(params), len(want))
			}
			for i, p := range params {
				key := fmt.Sprintf("%d.%s", i/2, []string{"weight", "bias"}[i%2])
				assertClose(t, key, p.Data(), want[key])
			}
		})
	}
}

// TestStructuralNamesOfNestedSequentials checks the names of Gluon's
// nesting: a block's field holding a HybridSequential of
// HybridSequentials ("features.1.0.weight").
func TestStructuralNamesOfNestedSequentials(t *testing.T) {
	net := &featuresNet{Features: nn.NewHybridSequential(
		nn.NewDense(2, nn.DenseOptions{InUnits: 2}),
		nn.NewHybridSequential(nn.NewDense(2, nn.DenseOptions{InUnits: 2, NoBias: true}))),
		Output: nn.NewDense(1, nn.DenseOptions{InUnits: 2})}
	net.Bind(net)
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "f.params")
	if err := net.SaveParameters(file); err != nil {
		t.Fatal(err)
	}
	if got, want := fileKeys(t, file), "features.0.weight features.0.bias features.1.0.weight output.weight output.bias"; got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
	if s := net.String(); !strings.Contains(s, "(0): featuresnet0_hybridsequential0_dense0") {
		t.Errorf("the tree does not name the child by its index:\n%s", s)
	}
}

type featuresNet struct {
	nn.HybridBlock
	Features *nn.HybridSequential
	Output   *nn.Dense
}

func (n *featuresNet) HybridForward(F ops.F, x ops.Tensor) ops.Tensor {
	return n.Output.Forward(n.Features.Forward(x))
}

type initialisms struct {
	nn.HybridBlock
	BN1       *nn.Dense
	HTTPLayer *nn.Dense
	Fc1       *nn.Dense
}

func (n *initialisms) HybridForward(F ops.F, x ops.Tensor) ops.Tensor { return n.Fc1.Forward(x) }

// TestStructuralNamesOfInitialisms checks that a field's leading
// initialism is lowered as a whole: BN1 is Gluon's attribute bn1.
func TestStructuralNamesOfInitialisms(t *testing.T) {
	d := func() *nn.Dense { return nn.NewDense(1, nn.DenseOptions{InUnits: 1, NoBias: true}) }
	net := &initialisms{BN1: d(), HTTPLayer: d(), Fc1: d()}
	net.Bind(net)
	if err := net.Initialize(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "i.params")
	if err := net.SaveParameters(file); err != nil {
		t.Fatal(err)
	}
	if got, want := fileKeys(t, file), "bn1.weight httpLayer.weight fc1.weight"; got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
}

// TestLoadPrefixStrippedFile loads a file saved as Gluon's
// collect_params().save(file, strip_prefix=net.prefix) writes it: full
// names without the block's prefix ("dense0_weight").
func TestLoadPrefixStrippedFile(t *testing.T) {
	mk := func() *nn.HybridSequential {
		return nn.NewHybridSequential(nn.NewDense(3, nn.DenseOptions{InUnits: 2}), nn.NewDense(1, nn.DenseOptions{InUnits: 3}))
	}
	src := mk()
	if err := src.Initialize(); err != nil {
		t.Fatal(err)
	}
	var list []mxnet.NamedArray
	for _, p := range src.CollectParams().List() {
		list = append(list, mxnet.NamedArray{Name: strings.TrimPrefix(p.Name(), src.Prefix()), Array: p.Data()})
	}
	if list[0].Name != "dense0_weight" {
		t.Fatalf("stripped name %q", list[0].Name)
	}
	file := filepath.Join(t.TempDir(), "stripped.params")
	if err := mxnet.SaveParams(file, list); err != nil {
		t.Fatal(err)
	}
	dst := mk()
	if err := dst.LoadParameters(file); err != nil {
		t.Fatal(err)
	}
	x := eager.Ones(1, 2)
	assertClose(t, "loaded", dst.Forward(x), src.Forward(x))
}
