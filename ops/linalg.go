package ops

import "github.com/hybridgo/hybridgo/accel"

// Matrix products: dot, batch_dot and FullyConnected. Every kernel views
// its operands as row-major matrices and hands the work to accel.Gemm, so
// a faster Gemm speeds them all up.

// DotAttrs are the attributes of dot and batch_dot.
type DotAttrs struct {
	TransposeA   bool   `attr:"transpose_a" default:"False" doc:"transpose lhs before the product"`
	TransposeB   bool   `attr:"transpose_b" default:"False" doc:"transpose rhs before the product"`
	ForwardStype string `attr:"forward_stype" default:"None" enum:"None,default,csr,row_sparse" doc:"storage type of the output; only dense storage exists, so it is ignored"`
}

// FullyConnectedAttrs are the attributes of FullyConnected.
type FullyConnectedAttrs struct {
	NumHidden int  `attr:"num_hidden" doc:"number of output units"`
	NoBias    bool `attr:"no_bias" default:"False" doc:"leave out the bias input"`
	Flatten   bool `attr:"flatten" default:"True" doc:"collapse every data dim after the first; when False only the last axis is transformed"`
}

// dotDims is how dot views its operands: lhs as an m x k matrix (stored
// k x m when transposed), rhs as k x n (stored n x k when transposed).
type dotDims struct {
	m, n, k  int
	out      Shape
	lhsK     int // k as lhs sees it (0 when unknown)
	rhsK     int
	lhsShape Shape // lhs as a stored matrix
	rhsShape Shape
}

// product of dims; 0 when any is unknown.
func prodDims(s Shape) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// dotShape follows MXNet's rule: lhs contracts its last axis (its first
// when transpose_a), rhs its first axis (its last when transpose_b); the
// remaining axes of lhs, then of rhs, make the output. Two vectors give (1,).
func dotShape(a *DotAttrs, l, r Shape) (dotDims, error) { return dotDimsOf(a, l, r, true) }

// dotDimsOf is dotShape; without shapes it leaves the dims' Shape fields
// nil and allocates nothing (the kernel needs only m, n and k).
func dotDimsOf(a *DotAttrs, l, r Shape, shapes bool) (dotDims, error) {
	if len(l) == 0 || len(r) == 0 {
		return dotDims{}, Errorf("lhs %v and rhs %v: dot needs arrays of at least one dim", l, r)
	}
	if len(l) == 1 && len(r) == 1 {
		if a.TransposeA || a.TransposeB {
			return dotDims{}, Errorf("lhs %v and rhs %v are vectors, which cannot be transposed (transpose_a=%v, transpose_b=%v)", l, r, pyBool(a.TransposeA), pyBool(a.TransposeB))
		}
		if l[0] != 0 && r[0] != 0 && l[0] != r[0] {
			return dotDims{}, Errorf("lhs %v and rhs %v have different lengths", l, r)
		}
		k := max(l[0], r[0])
		if !shapes {
			return dotDims{m: 1, n: 1, k: k, lhsK: l[0], rhsK: r[0]}, nil
		}
		return dotDims{m: 1, n: 1, k: k, out: Shape{1}, lhsK: l[0], rhsK: r[0],
			lhsShape: Shape{1, k}, rhsShape: Shape{k, 1}}, nil
	}
	var lOut, rOut Shape
	var d dotDims
	if a.TransposeA {
		d.lhsK, lOut = l[0], l[1:]
	} else {
		d.lhsK, lOut = l[len(l)-1], l[:len(l)-1]
	}
	if a.TransposeB {
		d.rhsK, rOut = r[len(r)-1], r[:len(r)-1]
	} else {
		d.rhsK, rOut = r[0], r[1:]
	}
	if d.lhsK != 0 && d.rhsK != 0 && d.lhsK != d.rhsK {
		return dotDims{}, Errorf("lhs %v contracts a dim of %d, rhs %v one of %d (transpose_a=%v, transpose_b=%v)",
			l, d.lhsK, r, d.rhsK, pyBool(a.TransposeA), pyBool(a.TransposeB))
	}
	d.k = max(d.lhsK, d.rhsK)
	d.m, d.n = prodDims(lOut), prodDims(rOut)
	if !shapes {
		return d, nil
	}
	d.out = Shape{}
	if len(l) > 1 {
		d.out = append(d.out, lOut...)
	}
	if len(r) > 1 {
		d.out = append(d.out, rOut...)
	}
	if a.TransposeA {
		d.lhsShape = Shape{d.k, d.m}
	} else {
		d.lhsShape = Shape{d.m, d.k}
	}
	if a.TransposeB {
		d.rhsShape = Shape{d.n, d.k}
	} else {
		d.rhsShape = Shape{d.k, d.n}
	}
	return d, nil
}

// fillDotK fills an unknown contracted dim of either side with k, so that
// a weight's shape is inferred from the data's (deferred initialisation).
func fillDotK(a *DotAttrs, l, r Shape, k int) {
	if k == 0 || len(l) == 0 || len(r) == 0 {
		return
	}
	li, ri := len(l)-1, 0
	if a.TransposeA {
		li = 0
	}
	if a.TransposeB {
		ri = len(r) - 1
	}
	if l[li] == 0 {
		l[li] = k
	}
	if r[ri] == 0 {
		r[ri] = k
	}
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// gemm runs C = op(A)*op(B) on float data of either width.
func gemm(transA, transB bool, m, n, k int, a, b, c Value) error {
	if err := requireFloat(a, b, c); err != nil {
		return err
	}
	switch cd := c.Data.(type) {
	case []float32:
		matmul(transA, transB, m, n, k, a.Data.([]float32), b.Data.([]float32), cd)
	case []float64:
		matmul(transA, transB, m, n, k, a.Data.([]float64), b.Data.([]float64), cd)
	}
	return nil
}

// matmul sets the m x n matrix c to op(a)·op(b), where op(a) is m x k
// (a stored k x m when ta) and op(b) is k x n (b stored n x k when tb).
func matmul[T accel.Float](ta, tb bool, m, n, k int, a, b, c []T) {
	lda, ldb := k, n
	if ta {
		lda = m
	}
	if tb {
		ldb = k
	}
	accel.Gemm(ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c, n)
}

// reshapeIfNeeded reshapes x to shape unless it already has it.
func reshapeIfNeeded(f F, x Tensor, shape Shape) Tensor {
	if x.Shape().Equal(shape) {
		return x
	}
	return f.Reshape(x, shape...)
}

// dotGrad returns the gradients of lhs and rhs of out = op(A)·op(B),
// written as dots of the matrix views.
func dotGrad(f F, a *DotAttrs, lhs, rhs, g Tensor) (Tensor, Tensor) {
	d, err := dotShape(a, lhs.Shape(), rhs.Shape())
	if err != nil {
		panic(&Error{Op: "dot", Msg: err.Error()})
	}
	A := reshapeIfNeeded(f, lhs, d.lhsShape)
	B := reshapeIfNeeded(f, rhs, d.rhsShape)
	G := reshapeIfNeeded(f, g, Shape{d.m, d.n})
	ta, tb := a.TransposeA, a.TransposeB
	var gA, gB Tensor
	switch {
	case !ta && !tb: // out = A B
		gA, gB = f.Dot(G, B, TransposeB()), f.Dot(A, G, TransposeA())
	case !ta && tb: // out = A Bᵀ
		gA, gB = f.Dot(G, B), f.Dot(G, A, TransposeA())
	case ta && !tb: // out = Aᵀ B
		gA, gB = f.Dot(B, G, TransposeB()), f.Dot(A, G)
	default: // out = Aᵀ Bᵀ
		gA, gB = f.Dot(B, G, TransposeA(), TransposeB()), f.Dot(G, A, TransposeA(), TransposeB())
	}
	return reshapeIfNeeded(f, gA, lhs.Shape()), reshapeIfNeeded(f, gB, rhs.Shape())
}

// batchDotShape checks batch_dot's 3-D operands; unknown dims (0) are
// taken from the other operand.
func batchDotShape(a *DotAttrs, l, r Shape) (b, m, n, k int, err error) {
	if len(l) != 3 || len(r) != 3 {
		return 0, 0, 0, 0, Errorf("lhs %v and rhs %v: batch_dot takes 3-D arrays (batch, rows, cols)", l, r)
	}
	if l[0] != 0 && r[0] != 0 && l[0] != r[0] {
		return 0, 0, 0, 0, Errorf("lhs %v and rhs %v have different batch sizes", l, r)
	}
	b = max(l[0], r[0])
	m, lk := l[1], l[2]
	if a.TransposeA {
		m, lk = l[2], l[1]
	}
	rk, n := r[1], r[2]
	if a.TransposeB {
		rk, n = r[2], r[1]
	}
	if lk != 0 && rk != 0 && lk != rk {
		return 0, 0, 0, 0, Errorf("lhs %v contracts a dim of %d, rhs %v one of %d (transpose_a=%v, transpose_b=%v)",
			l, lk, r, rk, pyBool(a.TransposeA), pyBool(a.TransposeB))
	}
	return b, m, n, max(lk, rk), nil
}

func batchGemm[T accel.Float](ta, tb bool, batch, m, n, k int, a, b, c []T) {
	accel.ParallelRange(batch, 1, batchGemmLoop[T]{ta, tb, m, n, k, a, b, c})
}

// batchGemmLoop is batchGemm's loop over the batch.
type batchGemmLoop[T accel.Float] struct {
	ta bool
	tb bool
	m  int
	n  int
	k  int
	a  []T
	b  []T
	c  []T
}

func (l *batchGemmLoop[T]) Range(lo, hi int) {
	ta, tb, m, n, k, a, b, c := l.ta, l.tb, l.m, l.n, l.k, l.a, l.b, l.c
	for i := lo; i < hi; i++ {
		matmul(ta, tb, m, n, k, a[i*m*k:(i+1)*m*k], b[i*k*n:(i+1)*k*n], c[i*m*n:(i+1)*m*n])
	}
}

// fcInUnits is the number of input units FullyConnected sees in data (0 when unknown).
func fcInUnits(a *FullyConnectedAttrs, data Shape) int {
	if a.Flatten {
		return prodDims(data[1:])
	}
	return data[len(data)-1]
}

// fcRows is the number of rows of data as a matrix.
func fcRows(a *FullyConnectedAttrs, data Shape) int {
	if a.Flatten {
		return data[0]
	}
	return prodDims(data[:len(data)-1])
}

var opDot, opBatchDot, opFullyConnected *Op

func init() {
	dotSamples := []Sample{
		{Inputs: []Shape{{3}, {3}}},
		{Inputs: []Shape{{2, 3}, {3, 4}}},
		{Attrs: map[string]string{"transpose_a": "True"}, Inputs: []Shape{{3, 2}, {3, 4}}},
		{Attrs: map[string]string{"transpose_b": "True"}, Inputs: []Shape{{2, 3}, {4, 3}}},
		{Attrs: map[string]string{"transpose_a": "True", "transpose_b": "True"}, Inputs: []Shape{{3, 2}, {4, 3}}},
		{Inputs: []Shape{{2, 3, 4}, {4, 2}}},
		{Attrs: map[string]string{"transpose_a": "True"}, Inputs: []Shape{{2, 3, 2}, {2, 3}}},
		{Attrs: map[string]string{"transpose_b": "True"}, Inputs: []Shape{{2, 3}, {2, 2, 3}}},
		{Inputs: []Shape{{3}, {3, 2}}},
		{Inputs: []Shape{{2, 3}, {3}}},
	}
	opDot = Register(Def[DotAttrs]{
		Name: "dot", Kind: "dense", Doc: "Matrix product. lhs contracts its last axis (its first with transpose_a) with the first axis of rhs (its last with transpose_b); " +
			"the output has the remaining axes of lhs then of rhs. Two vectors give their inner product with shape (1,).",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(a *DotAttrs, in []Shape) ([]Shape, error) {
			d, err := dotShape(a, in[0], in[1])
			if err == nil {
				fillDotK(a, in[0], in[1], d.k)
			}
			return []Shape{d.out}, err
		},
		Kernel: func(_ *Env, a *DotAttrs, in, out []Value) error {
			d, err := dotDimsOf(a, in[0].Shape, in[1].Shape, false)
			if err != nil {
				return err
			}
			return gemm(a.TransposeA, a.TransposeB, d.m, d.n, d.k, in[0], in[1], out[0])
		},
		Grad: func(f F, a *DotAttrs, in, _, g []Tensor) []Tensor {
			gl, gr := dotGrad(f, a, in[0], in[1], g[0])
			return []Tensor{gl, gr}
		},
		Samples: dotSamples,
	})

	opBatchDot = Register(Def[DotAttrs]{
		Name: "batch_dot", Kind: "dense", Doc: "Matrix products of matching pairs in a batch: lhs (b, m, k) and rhs (b, k, n) give (b, m, n); transpose_a and transpose_b transpose each matrix first.",
		Inputs: []string{"lhs", "rhs"},
		Shape: func(a *DotAttrs, in []Shape) ([]Shape, error) {
			b, m, n, _, err := batchDotShape(a, in[0], in[1])
			return []Shape{{b, m, n}}, err
		},
		Kernel: func(_ *Env, a *DotAttrs, in, out []Value) error {
			b, m, n, k, err := batchDotShape(a, in[0].Shape, in[1].Shape)
			if err != nil {
				return err
			}
			if err := requireFloat(in[0], in[1]); err != nil {
				return err
			}
			switch c := out[0].Data.(type) {
			case []float32:
				batchGemm(a.TransposeA, a.TransposeB, b, m, n, k, in[0].Data.([]float32), in[1].Data.([]float32), c)
			case []float64:
				batchGemm(a.TransposeA, a.TransposeB, b, m, n, k, in[0].Data.([]float64), in[1].Data.([]float64), c)
			}
			return nil
		},
		Grad: func(f F, a *DotAttrs, in, _, g []Tensor) []Tensor {
			A, B, G := in[0], in[1], g[0]
			ta, tb := TransposeA(), TransposeB()
			switch {
			case !a.TransposeA && !a.TransposeB:
				return []Tensor{f.BatchDot(G, B, tb), f.BatchDot(A, G, ta)}
			case !a.TransposeA && a.TransposeB:
				return []Tensor{f.BatchDot(G, B), f.BatchDot(G, A, ta)}
			case a.TransposeA && !a.TransposeB:
				return []Tensor{f.BatchDot(B, G, tb), f.BatchDot(A, G)}
			default:
				return []Tensor{f.BatchDot(B, G, ta, tb), f.BatchDot(G, A, ta, tb)}
			}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 2, 3}, {2, 3, 4}}},
			{Attrs: map[string]string{"transpose_a": "True"}, Inputs: []Shape{{2, 3, 2}, {2, 3, 4}}},
			{Attrs: map[string]string{"transpose_b": "True"}, Inputs: []Shape{{2, 2, 3}, {2, 4, 3}}},
			{Attrs: map[string]string{"transpose_a": "True", "transpose_b": "True"}, Inputs: []Shape{{2, 3, 2}, {2, 4, 3}}},
		},
	})

	opFullyConnected = Register(Def[FullyConnectedAttrs]{
		Name: "FullyConnected", Kind: "dense", Doc: "A dense layer: out = data · weightᵀ + bias, with weight (num_hidden, in_units) and bias (num_hidden,). " +
			"With flatten, data (n, …) is seen as (n, in_units); without, only its last axis is transformed.",
		InputNames: func(a *FullyConnectedAttrs) []string {
			if a.NoBias {
				return []string{"data", "weight"}
			}
			return []string{"data", "weight", "bias"}
		},
		Check: func(a *FullyConnectedAttrs) error {
			if a.NumHidden <= 0 {
				return Errorf("num_hidden must be positive, got %d", a.NumHidden)
			}
			return nil
		},
		Shape:  fullyConnectedShape,
		Kernel: func(_ *Env, a *FullyConnectedAttrs, in, out []Value) error { return fcKernel(a, in, out[0], false) },
		Grad: func(f F, a *FullyConnectedAttrs, in, _, g []Tensor) []Tensor {
			data, weight := in[0], in[1]
			ds := data.Shape()
			rows, k := fcRows(a, ds), fcInUnits(a, ds)
			x := reshapeIfNeeded(f, data, Shape{rows, k})
			g2 := reshapeIfNeeded(f, g[0], Shape{rows, a.NumHidden})
			grads := []Tensor{
				reshapeIfNeeded(f, f.Dot(g2, weight), ds),
				f.Dot(g2, x, TransposeA()),
			}
			if !a.NoBias {
				grads = append(grads, reshapeIfNeeded(f, f.Sum(g2, Axis(0)), in[2].Shape()))
			}
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_hidden": "4"}, Inputs: []Shape{{2, 3}, {4, 3}, {4}}},
			{Attrs: map[string]string{"num_hidden": "3", "no_bias": "True"}, Inputs: []Shape{{2, 3}, {3, 3}}},
			{Attrs: map[string]string{"num_hidden": "2"}, Inputs: []Shape{{2, 3, 2}, {2, 6}, {2}}},
			{Attrs: map[string]string{"num_hidden": "2", "flatten": "False"}, Inputs: []Shape{{2, 3, 4}, {2, 4}, {2}}},
			{Attrs: map[string]string{"num_hidden": "2"}, Inputs: []Shape{{2, 3}, {2, 3}, {2, 1}}},
		},
	})
}

// fcKernel computes FullyConnected, out = data·weightᵀ + bias, with relu
// applied when relu is set; the bias and relu are applied by the product's
// epilogue, tile by tile.
func fcKernel(a *FullyConnectedAttrs, in []Value, out Value, relu bool) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	data := in[0].Shape
	rows, k := fcRows(a, data), fcInUnits(a, data)
	var bias Value
	if !a.NoBias {
		bias = in[2]
	}
	switch o := out.Data.(type) {
	case []float32:
		fcForward(rows, a.NumHidden, k, in[0].Data.([]float32), in[1].Data.([]float32), optionalFloats[float32](bias), o, relu)
	case []float64:
		fcForward(rows, a.NumHidden, k, in[0].Data.([]float64), in[1].Data.([]float64), optionalFloats[float64](bias), o, relu)
	}
	return nil
}

func fcForward[T accel.Float](rows, hidden, k int, x, w, bias, y []T, relu bool) {
	var ep *accel.Epilogue[T]
	if bias != nil || relu {
		ep = accel.GetRecycled[accel.Epilogue[T]]() // recycled: it escapes into the product
		*ep = accel.Epilogue[T]{ColBias: bias, Relu: relu}
		defer accel.Recycle(ep)
	}
	accel.GemmEpilogue(false, true, rows, hidden, k, x, k, w, k, y, hidden, ep)
}

// fullyConnectedShape infers the output shape and fills the weight's and
// the bias's unknown dims from the data and num_hidden (deferred init).
func fullyConnectedShape(a *FullyConnectedAttrs, in []Shape) ([]Shape, error) {
	data, nh := in[0], a.NumHidden
	if len(data) == 0 {
		return nil, Errorf("data %v: FullyConnected needs data of at least one dim", data)
	}
	k := fcInUnits(a, data)
	w := in[1]
	switch {
	case len(w) == 0:
		w = Shape{nh, k}
	case len(w) != 2:
		return nil, Errorf("weight %v must be 2-D (num_hidden, in_units) = (%d, %d); data is %v (num_hidden=%d)", w, nh, k, data, nh)
	}
	if w[0] == 0 {
		w[0] = nh
	}
	if w[1] == 0 {
		w[1] = k
	}
	if w[0] != nh || (k != 0 && w[1] != k) {
		return nil, Errorf("data %v has %d input units, weight %v should be (%d, %d) (num_hidden=%d, flatten=%v)",
			data, k, w, nh, k, nh, pyBool(a.Flatten))
	}
	in[1] = w
	if k == 0 && w[1] != 0 {
		// The data's unknown feature dim follows from the weight, where it is the only one.
		switch {
		case !a.Flatten:
			data[len(data)-1] = w[1]
		case len(data) == 2:
			data[1] = w[1]
		}
	}
	if !a.NoBias {
		b := in[2]
		switch {
		case len(b) == 0:
			b = Shape{nh}
		case len(b) == 1 && b[0] == 0:
			b[0] = nh
		}
		// MXNet takes a bias of (num_hidden, 1) too, as old exports have it.
		if len(b) == 2 && b[0] == nh && b[1] == 1 {
			b = b.Clone()
		} else if len(b) != 1 || b[0] != nh {
			return nil, Errorf("bias %v should be (%d,) (num_hidden=%d); data is %v, weight %v", b, nh, nh, data, w)
		}
		in[2] = b
	}
	var out Shape
	if a.Flatten {
		out = Shape{data[0], nh}
	} else {
		out = append(data[:len(data)-1].Clone(), nh)
	}
	return []Shape{out}, nil
}

// Dot is the matrix product of a and b (MXNet's dot); the transpose flags
// come as options: F.Dot(x, w, ops.TransposeB()).
func (f F) Dot(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opDot, attrs, a, b) }

// BatchDot multiplies the matrices of two 3-D batches pairwise (batch_dot);
// ops.TransposeA() and ops.TransposeB() transpose them first.
func (f F) BatchDot(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opBatchDot, attrs, a, b) }

// FullyConnected applies a dense layer: x · weightᵀ + bias, with weight
// (numHidden, in_units). A nil bias means no_bias. Further options
// (ops.Attr{"flatten", false}) follow.
func (f F) FullyConnected(x, weight, bias Tensor, numHidden int, attrs ...Attr) Tensor {
	all := append([]Attr{{"num_hidden", numHidden}}, attrs...)
	if bias == nil {
		return f.call1(opFullyConnected, append(all, Attr{"no_bias", true}), x, weight)
	}
	return f.call1(opFullyConnected, all, x, weight, bias)
}
