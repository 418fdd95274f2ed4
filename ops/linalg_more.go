package ops

import "math"

// More linear algebra and index arithmetic: _linalg_gemm2 (batched
// matrix products on the last two axes), _linalg_potrf (Cholesky
// factors), khatri_rao (the column-wise
// Kronecker product), _ravel_multi_index and _unravel_index.

// LinalgGemm2Attrs are the attributes of _linalg_gemm2.
type LinalgGemm2Attrs struct {
	TransposeA bool    `attr:"transpose_a" default:"False" doc:"use the transpose of each matrix of A"`
	TransposeB bool    `attr:"transpose_b" default:"False" doc:"use the transpose of each matrix of B"`
	Alpha      float64 `attr:"alpha" default:"1.0" doc:"the product's scale"`
	Axis       int     `attr:"axis" default:"-2" doc:"the matrices' row axis; only -2 (the last two axes hold the matrices) is supported"`
}

// LinalgPotrfAttrs are the attributes of _linalg_potrf.
type LinalgPotrfAttrs struct {
	Lower bool `attr:"lower" default:"True" doc:"return the lower triangular factor L (A = L·Lᵀ); False: the upper one, Lᵀ"`
}

// KhatriRaoAttrs are the attributes of khatri_rao.
type KhatriRaoAttrs struct {
	NumArgs int `attr:"num_args" doc:"the number of input matrices"`
}

// RavelAttrs are the attributes of _ravel_multi_index and _unravel_index.
type RavelAttrs struct {
	Shape Tuple `attr:"shape" default:"()" doc:"the shape of the array the indices point into; its first entry may be -1 (unbounded)"`
}

var opLinalgGemm2, opLinalgPotrf, opBackwardLinalgPotrf, opKhatriRao, opRavel, opUnravel *Op

func init() {
	opLinalgGemm2 = Register(Def[LinalgGemm2Attrs]{
		Name: "_linalg_gemm2", Aliases: []string{"linalg_gemm2"}, Kind: "dense",
		Doc: "alpha · op(A) · op(B) for each matrix of A and B (their last two axes; the leading axes, the same in both, " +
			"index the batch), op transposing when transpose_a or transpose_b.",
		Inputs: []string{"A", "B"},
		Check: func(a *LinalgGemm2Attrs) error {
			if a.Axis != -2 {
				return Errorf("axis=%d is not supported yet: the matrices must be the last two axes (axis=-2)", a.Axis)
			}
			return nil
		},
		Shape: func(a *LinalgGemm2Attrs, in []Shape) ([]Shape, error) {
			out, _, err := a.dims(in[0], in[1])
			return []Shape{out}, err
		},
		Kernel: func(_ *Env, a *LinalgGemm2Attrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			_, d, err := a.dims(in[0].Shape, in[1].Shape)
			if err != nil {
				return err
			}
			z := batchedGemm(d, in[0].Float64s(), in[1].Float64s(), a.Alpha)
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		Grad: func(f F, a *LinalgGemm2Attrs, in, _, g []Tensor) []Tensor {
			ab := linalgGemm2Grad(f, a, in[0], in[1], g[0])
			return ab[:]
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {3, 4}}},
			{Attrs: map[string]string{"transpose_a": "True", "alpha": "2"}, Inputs: []Shape{{2, 3, 2}, {2, 3, 4}}},
			{Attrs: map[string]string{"transpose_b": "True"}, Inputs: []Shape{{2, 2, 3}, {2, 4, 3}}},
			{Attrs: map[string]string{"transpose_a": "True", "transpose_b": "True", "alpha": "-0.5"}, Inputs: []Shape{{3, 2}, {4, 3}}},
		},
	})

	opLinalgPotrf = Register(Def[LinalgPotrfAttrs]{
		Name: "_linalg_potrf", Aliases: []string{"linalg_potrf"}, Kind: "dense",
		Doc: "The Cholesky factor of each symmetric positive-definite matrix of A (its last two axes): L, lower triangular " +
			"with A = L·Lᵀ, or Lᵀ when lower is False. A matrix that is not positive definite is an error. The gradient, " +
			"as MXNet's, is symmetric.",
		Inputs: []string{"A"},
		Shape: func(_ *LinalgPotrfAttrs, in []Shape) ([]Shape, error) {
			if _, err := squareBatch(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, a *LinalgPotrfAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			n, err := squareBatch(in[0].Shape)
			if err != nil {
				return err
			}
			x := in[0].Float64s()
			ls := make([]float64, len(x))
			for b := 0; b*n*n < len(x); b++ {
				l, ok := cholesky(x[b*n*n:(b+1)*n*n], n)
				if !ok {
					return Errorf("matrix %d of A %v is not positive definite", b, in[0].Shape)
				}
				if !a.Lower {
					l = transposeSquare(l, n)
				}
				copy(ls[b*n*n:], l)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, ls))
			return nil
		},
		Grad: func(f F, a *LinalgPotrfAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opBackwardLinalgPotrf, a, g[0], in[0])}
		},
		// Random matrices are rarely positive definite: 1×1 ones with
		// positive entries are. TestLinalgPotrf checks larger ones.
		Samples: []Sample{
			{Inputs: []Shape{{1, 1}}, Low: 0.5, High: 2},
			{Attrs: map[string]string{"lower": "False"}, Inputs: []Shape{{3, 1, 1}}, Low: 0.5, High: 2},
		},
	})

	opBackwardLinalgPotrf = Register(Def[LinalgPotrfAttrs]{
		Name: "_backward_linalg_potrf", Kind: "dense",
		Doc:    "The gradient of _linalg_potrf with respect to A: with L̄ the gradient of L, the symmetric part of L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹, Φ keeping the lower triangle with its diagonal halved.",
		Inputs: []string{"ograd", "A"},
		Shape: func(_ *LinalgPotrfAttrs, in []Shape) ([]Shape, error) {
			if _, err := squareBatch(in[1]); err != nil {
				return nil, err
			}
			if err := checkOgrad(in[0], in[1], "the Cholesky factor"); err != nil {
				return nil, err
			}
			return []Shape{in[1].Clone()}, nil
		},
		Kernel: func(_ *Env, a *LinalgPotrfAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			n, err := squareBatch(in[1].Shape)
			if err != nil {
				return err
			}
			g, x := in[0].Float64s(), in[1].Float64s()
			dx := make([]float64, len(x))
			for b := 0; b*n*n < len(x); b++ {
				l, ok := cholesky(x[b*n*n:(b+1)*n*n], n)
				if !ok {
					return Errorf("matrix %d of A %v is not positive definite", b, in[1].Shape)
				}
				gl := g[b*n*n : (b+1)*n*n]
				if !a.Lower {
					gl = transposeSquare(gl, n)
				}
				copy(dx[b*n*n:], potrfBackward(l, gl, n))
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, dx))
			return nil
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 1, 1}, {2, 1, 1}}, Low: 0.5, High: 2},
		},
	})

	opKhatriRao = Register(Def[KhatriRaoAttrs]{
		Name: "khatri_rao", Kind: "dense",
		Doc: "The column-wise Kronecker product of matrices (n_i, k) with one column count k: the result (Π n_i, k) holds " +
			"in column j the Kronecker product of the inputs' columns j.",
		InputNames: func(a *KhatriRaoAttrs) []string {
			names := make([]string, a.NumArgs)
			for i := range names {
				names[i] = "arg" + itoa(i)
			}
			return names
		},
		Check: func(a *KhatriRaoAttrs) error {
			if a.NumArgs < 1 {
				return Errorf("num_args=%d must be at least 1", a.NumArgs)
			}
			return nil
		},
		Shape: func(_ *KhatriRaoAttrs, in []Shape) ([]Shape, error) {
			rows, k := 1, 0
			for i, s := range in {
				if len(s) != 2 {
					return nil, Errorf("input %d %v must be a matrix", i, s)
				}
				if k != 0 && s[1] != 0 && s[1] != k {
					return nil, Errorf("input %d %v has %d columns, input 0 %v has %d: the columns must agree", i, s, s[1], in[0], k)
				}
				k = max(k, s[1])
				rows *= s[0]
			}
			return []Shape{{rows, k}}, nil
		},
		Kernel: func(_ *Env, _ *KhatriRaoAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			k := out[0].Shape[1]
			col := make([][]float64, len(in))
			for i, v := range in {
				col[i] = v.Float64s()
			}
			// Row r of the result is the mixed-radix number (r_0, r_1, …).
			rows := out[0].Shape[0]
			z := make([]float64, rows*k)
			for r := range rows {
				rem := r
				prod := make([]float64, k)
				for j := range prod {
					prod[j] = 1
				}
				for i := len(in) - 1; i >= 0; i-- {
					n := in[i].Shape[0]
					ri := rem % n
					rem /= n
					for j := range k {
						prod[j] *= col[i][ri*k+j]
					}
				}
				copy(z[r*k:], prod)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		Grad: func(f F, _ *KhatriRaoAttrs, in, _, g []Tensor) []Tensor {
			nd := len(in)
			k := in[0].Shape()[1]
			full := make([]int, nd+1) // g seen as (n_0, …, n_{nd-1}, k)
			for i, x := range in {
				full[i] = x.Shape()[0]
			}
			full[nd] = k
			gr := f.Reshape(g[0], full...)
			grads := make([]Tensor, nd)
			for i := range in {
				t := gr
				var axes []int
				for l, x := range in {
					if l == i {
						continue
					}
					axes = append(axes, l)
					s := make([]int, nd+1)
					for d := range s {
						s[d] = 1
					}
					s[l], s[nd] = full[l], k
					t = f.Mul(t, f.Reshape(x, s...))
				}
				if len(axes) > 0 {
					t = f.Sum(t, Axis(axes...))
				}
				grads[i] = f.Reshape(t, full[i], k)
			}
			return grads
		},
		Samples: []Sample{
			{Attrs: map[string]string{"num_args": "2"}, Inputs: []Shape{{2, 3}, {3, 3}}},
			{Attrs: map[string]string{"num_args": "3"}, Inputs: []Shape{{2, 2}, {1, 2}, {3, 2}}},
			{Attrs: map[string]string{"num_args": "1"}, Inputs: []Shape{{3, 2}}},
		},
	})

	opRavel = Register(Def[RavelAttrs]{
		Name: "_ravel_multi_index", Aliases: []string{"ravel_multi_index"}, Kind: "other",
		Doc: "Turns the multi-indices in the columns of data (len(shape), N) into flat indices (N,) into an array of the given shape " +
			"(row-major, as numpy's ravel_multi_index).",
		Inputs: []string{"data"},
		Check:  checkRavelShape,
		Shape: func(a *RavelAttrs, in []Shape) ([]Shape, error) {
			d := in[0]
			if len(d) != 2 || (d[0] != 0 && d[0] != len(a.Shape)) {
				return nil, Errorf("data %v must be (%d, N): one row per entry of shape %v", d, len(a.Shape), a.Shape)
			}
			return []Shape{{d[1]}}, nil
		},
		Kernel: func(_ *Env, a *RavelAttrs, in, out []Value) error {
			u := in[0].Float64s()
			n := in[0].Shape[1]
			flat := make([]float64, n)
			for i := range n {
				r := 0.0
				for j, dim := range a.Shape {
					r = r*float64(dim) + u[j*n+i]
				}
				flat[i] = r
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, flat))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"shape": "(7, 6)"}, Inputs: []Shape{{2, 3}}, Ints: map[int]int{0: 6}},
			{Attrs: map[string]string{"shape": "(-1, 4, 3)"}, Inputs: []Shape{{3, 2}}, DTypes: []DType{Int64}, Ints: map[int]int{0: 3}},
		},
	})

	opUnravel = Register(Def[RavelAttrs]{
		Name: "_unravel_index", Aliases: []string{"unravel_index"}, Kind: "other",
		Doc: "Turns the flat indices in data (N,) into multi-indices, the columns of (len(shape), N), into an array of the given " +
			"shape (row-major, as numpy's unravel_index).",
		Inputs: []string{"data"},
		Check:  checkRavelShape,
		Shape: func(a *RavelAttrs, in []Shape) ([]Shape, error) {
			if len(in[0]) != 1 {
				return nil, Errorf("data %v must be 1-D (N,)", in[0])
			}
			return []Shape{{len(a.Shape), in[0][0]}}, nil
		},
		Kernel: func(_ *Env, a *RavelAttrs, in, out []Value) error {
			flat := indexValues(in[0])
			n, nd := len(flat), len(a.Shape)
			u := make([]float64, nd*n)
			for i, idx := range flat {
				for j := nd - 1; j > 0; j-- {
					u[j*n+i] = float64(idx % a.Shape[j])
					idx /= a.Shape[j]
				}
				u[i] = float64(idx)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, u))
			return nil
		},
		NoGrad: true,
		Samples: []Sample{
			{Attrs: map[string]string{"shape": "(7, 6)"}, Inputs: []Shape{{3}}, Ints: map[int]int{0: 42}},
			{Attrs: map[string]string{"shape": "(-1, 4, 3)"}, Inputs: []Shape{{4}}, DTypes: []DType{Int32}, Ints: map[int]int{0: 30}},
		},
	})
}

// gemmDims are the sizes of a batched product: batch matrices of m×k by
// k×n, with the element (i, p) of op(A) at aIdx and (p, j) of op(B) at
// bIdx in their matrices.
type gemmDims struct {
	batch, m, k, n int
	ta, tb         bool
}

func (d gemmDims) aIdx(i, p int) int {
	if d.ta {
		return p*d.m + i
	}
	return i*d.k + p
}

func (d gemmDims) bIdx(p, j int) int {
	if d.tb {
		return j*d.k + p
	}
	return p*d.n + j
}

// dims checks the shapes of A and B and returns the result's shape.
func (a *LinalgGemm2Attrs) dims(sa, sb Shape) (Shape, gemmDims, error) {
	var d gemmDims
	if len(sa) < 2 || len(sa) != len(sb) {
		return nil, d, Errorf("A %v and B %v must have the same number of dims, at least 2", sa, sb)
	}
	nd := len(sa)
	out := make(Shape, nd)
	d.batch = 1
	for i := range nd - 2 {
		v, ok := mergeDim(sa[i], sb[i])
		if !ok {
			return nil, d, Errorf("A %v and B %v differ on batch axis %d", sa, sb, i)
		}
		out[i] = v
		d.batch *= v
	}
	m, ka := sa[nd-2], sa[nd-1]
	if a.TransposeA {
		m, ka = ka, m
	}
	kb, n := sb[nd-2], sb[nd-1]
	if a.TransposeB {
		kb, n = n, kb
	}
	if ka != 0 && kb != 0 && ka != kb {
		return nil, d, Errorf("A %v and B %v do not multiply (transpose_a=%s, transpose_b=%s): %d columns against %d rows",
			sa, sb, pyBool(a.TransposeA), pyBool(a.TransposeB), ka, kb)
	}
	out[nd-2], out[nd-1] = m, n
	d.m, d.k, d.n, d.ta, d.tb = m, max(ka, kb), n, a.TransposeA, a.TransposeB
	return out, d, nil
}

// squareBatch checks that the last two axes of s are square and returns
// their size.
func squareBatch(s Shape) (int, error) {
	if len(s) < 2 || (s[len(s)-1] != 0 && s[len(s)-2] != 0 && s[len(s)-1] != s[len(s)-2]) {
		return 0, Errorf("A %v must hold square matrices on its last two axes", s)
	}
	return max(s[len(s)-1], s[len(s)-2]), nil
}

// cholesky returns the lower triangular L with L·Lᵀ = (A + Aᵀ)/2 for the
// n×n row-major a (a symmetric matrix is read as it is), or false when
// that is not positive definite.
func cholesky(a []float64, n int) ([]float64, bool) {
	l := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := (a[i*n+j] + a[j*n+i]) / 2
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			if i == j {
				if !(s > 0) {
					return nil, false
				}
				l[i*n+i] = math.Sqrt(s)
			} else {
				l[i*n+j] = s / l[j*n+j]
			}
		}
	}
	return l, true
}

func transposeSquare(a []float64, n int) []float64 {
	t := make([]float64, n*n)
	for i := range n {
		for j := range n {
			t[j*n+i] = a[i*n+j]
		}
	}
	return t
}

// potrfBackward returns the symmetric gradient of A = L·Lᵀ given L and
// the gradient gl of L (its lower triangle is read): sym(L⁻ᵀ·Φ(Lᵀ·gl)·L⁻¹).
func potrfBackward(l, gl []float64, n int) []float64 {
	// P = Φ(Lᵀ·tril(gl)).
	p := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := i; k < n; k++ { // (Lᵀ)[i][k] = L[k][i], nonzero for k >= i; tril(gl)[k][j] needs k >= j
				s += l[k*n+i] * gl[k*n+j]
			}
			if i == j {
				s /= 2
			}
			p[i*n+j] = s
		}
	}
	// S = L⁻ᵀ·P·L⁻¹: solve Lᵀ·Y = P, then S·L = Y (S = Y·L⁻¹).
	y := make([]float64, n*n)
	for c := range n { // back substitution per column of P
		for i := n - 1; i >= 0; i-- {
			s := p[i*n+c]
			for k := i + 1; k < n; k++ {
				s -= l[k*n+i] * y[k*n+c]
			}
			y[i*n+c] = s / l[i*n+i]
		}
	}
	sm := make([]float64, n*n)
	for r := range n { // S·L = Y, row by row, back substitution on columns
		for j := n - 1; j >= 0; j-- {
			s := y[r*n+j]
			for k := j + 1; k < n; k++ {
				s -= sm[r*n+k] * l[k*n+j]
			}
			sm[r*n+j] = s / l[j*n+j]
		}
	}
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = (sm[i*n+j] + sm[j*n+i]) / 2
		}
	}
	return out
}

func checkRavelShape(a *RavelAttrs) error {
	if len(a.Shape) == 0 {
		return Errorf("shape is empty: give the shape of the array the indices point into")
	}
	for i, n := range a.Shape {
		if n <= 0 && (i != 0 || n != -1) {
			return Errorf("shape %v: entries must be positive (the first may be -1)", a.Shape)
		}
	}
	return nil
}

// LinalgPotrf returns the lower Cholesky factor of each symmetric
// positive-definite matrix on the last two axes of a
// (ops.Attr{"lower", false}: the upper one).
func (f F) LinalgPotrf(a Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgPotrf, attrs, a) }

// LinalgGemm2 returns alpha·op(A)·op(B) for the matrices on the last two
// axes of a and b; ops.TransposeA(), ops.TransposeB() and
// ops.Attr{"alpha", v} set the options.
func (f F) LinalgGemm2(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgGemm2, attrs, a, b) }

// KhatriRao returns the column-wise Kronecker product of matrices with one
// column count.
func (f F) KhatriRao(ms ...Tensor) Tensor {
	return f.callA(opKhatriRao, &KhatriRaoAttrs{NumArgs: len(ms)}, ms...)
}

// RavelMultiIndex turns the multi-indices in the columns of x (len(shape),
// N) into flat indices into an array of the given shape.
func (f F) RavelMultiIndex(x Tensor, shape ...int) Tensor {
	return f.callA(opRavel, &RavelAttrs{Shape: shape}, x)
}

// UnravelIndex turns the flat indices in x (N,) into the multi-indices
// (len(shape), N) of an array of the given shape.
func (f F) UnravelIndex(x Tensor, shape ...int) Tensor {
	return f.callA(opUnravel, &RavelAttrs{Shape: shape}, x)
}
