package ops

import "math"

// MXNet's linalg operators on batches of matrices (the last two axes hold
// the matrices, the leading ones index the batch): _linalg_gemm, trmm,
// trsm, syrk, sumlogdiag, extractdiag, makediag, extracttrian,
// maketrian, inverse, det, slogdet and potri, each also named without the
// leading underscore as in MXNet. The kernels compute in float64; the
// gradient rules are MXNet's, written with these same ops.

// LinalgGemmAttrs are the attributes of _linalg_gemm.
type LinalgGemmAttrs struct {
	TransposeA bool    `attr:"transpose_a" default:"False" doc:"use the transpose of each matrix of A"`
	TransposeB bool    `attr:"transpose_b" default:"False" doc:"use the transpose of each matrix of B"`
	Alpha      float64 `attr:"alpha" default:"1.0" doc:"the product's scale"`
	Beta       float64 `attr:"beta" default:"1.0" doc:"the scale of C"`
	Axis       int     `attr:"axis" default:"-2" doc:"the matrices' row axis; only -2 (the last two axes hold the matrices) is supported"`
}

// LinalgTriangAttrs are the attributes of _linalg_trmm and _linalg_trsm.
type LinalgTriangAttrs struct {
	Transpose bool    `attr:"transpose" default:"False" doc:"use the transpose of the triangular matrix"`
	Rightside bool    `attr:"rightside" default:"False" doc:"the triangular matrix is on the right of B"`
	Lower     bool    `attr:"lower" default:"True" doc:"A is lower triangular (False: upper); the other triangle is not read"`
	Alpha     float64 `attr:"alpha" default:"1.0" doc:"the result's scale"`
}

// LinalgSyrkAttrs are the attributes of _linalg_syrk.
type LinalgSyrkAttrs struct {
	Transpose bool    `attr:"transpose" default:"False" doc:"compute Aᵀ·A instead of A·Aᵀ"`
	Alpha     float64 `attr:"alpha" default:"1.0" doc:"the result's scale"`
}

// LinalgDiagAttrs are the attributes of _linalg_extractdiag and _linalg_makediag.
type LinalgDiagAttrs struct {
	Offset int `attr:"offset" default:"0" doc:"the diagonal: 0 the main one, above it when positive, below when negative"`
}

// LinalgTrianAttrs are the attributes of _linalg_extracttrian and _linalg_maketrian.
type LinalgTrianAttrs struct {
	Offset int  `attr:"offset" default:"0" doc:"the triangle's first diagonal: 0 the main one, above it when positive (an upper triangle), below when negative (a lower one)"`
	Lower  bool `attr:"lower" default:"True" doc:"with offset 0: the lower triangle (False: the upper one)"`
}

var opLinalgGemm, opLinalgTrmm, opLinalgTrsm, opLinalgSyrk, opLinalgSumlogdiag, opLinalgExtractdiag, opLinalgMakediag,
	opLinalgExtracttrian, opLinalgMaketrian, opLinalgInverse, opLinalgDet, opLinalgSlogdet, opLinalgPotri, opLinalgGelqf *Op

func init() {
	opLinalgGemm = Register(Def[LinalgGemmAttrs]{
		Name: "_linalg_gemm", Aliases: []string{"linalg_gemm"}, Kind: "dense",
		Doc:    "alpha · op(A) · op(B) + beta · C for each matrix of A, B and C, op transposing when transpose_a or transpose_b.",
		Inputs: []string{"A", "B", "C"},
		Check: func(a *LinalgGemmAttrs) error {
			if a.Axis != -2 {
				return Errorf("axis=%d is not supported yet: the matrices must be the last two axes (axis=-2)", a.Axis)
			}
			return nil
		},
		Shape: func(a *LinalgGemmAttrs, in []Shape) ([]Shape, error) {
			out, _, err := a.gemm2().dims(in[0], in[1])
			if err != nil {
				return nil, err
			}
			m, ok := mergeShapes(out, in[2])
			if !ok {
				return nil, Errorf("C %v does not have the product's shape %v", in[2], out)
			}
			copy(in[2], m)
			return []Shape{m}, nil
		},
		Kernel: func(_ *Env, a *LinalgGemmAttrs, in, out []Value) error {
			if err := requireFloat(in...); err != nil {
				return err
			}
			_, d, err := a.gemm2().dims(in[0].Shape, in[1].Shape)
			if err != nil {
				return err
			}
			z := batchedGemm(d, in[0].Float64s(), in[1].Float64s(), a.Alpha)
			for i, c := range in[2].Float64s() {
				z[i] += a.Beta * c
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		Grad: func(f F, a *LinalgGemmAttrs, in, _, g []Tensor) []Tensor {
			ab := linalgGemm2Grad(f, a.gemm2(), in[0], in[1], g[0])
			return []Tensor{ab[0], ab[1], f.MulScalar(g[0], a.Beta)}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}, {3, 4}, {2, 4}}},
			{Attrs: map[string]string{"transpose_a": "True", "alpha": "2", "beta": "-0.5"}, Inputs: []Shape{{2, 3, 2}, {2, 3, 4}, {2, 2, 4}}},
			{Attrs: map[string]string{"transpose_b": "True", "beta": "0"}, Inputs: []Shape{{2, 3}, {4, 3}, {2, 4}}},
		},
	})

	opLinalgTrmm = Register(Def[LinalgTriangAttrs]{
		Name: "_linalg_trmm", Aliases: []string{"linalg_trmm"}, Kind: "dense",
		Doc: "alpha · op(A) · B (alpha · B · op(A) with rightside) for each triangular matrix A (lower or upper; " +
			"the other triangle is not read) and matrix B, op transposing when transpose.",
		Inputs: []string{"A", "B"},
		Shape:  func(a *LinalgTriangAttrs, in []Shape) ([]Shape, error) { return a.shape(in) },
		Kernel: func(_ *Env, a *LinalgTriangAttrs, in, out []Value) error {
			return a.kernel(in, out, func(t, b []float64, n, m int) []float64 {
				d := a.dims(n, m)
				if a.Rightside {
					return batchedGemm(d, b, t, a.Alpha)
				}
				return batchedGemm(d, t, b, a.Alpha)
			})
		},
		Grad: func(f F, a *LinalgTriangAttrs, in, _, g []Tensor) []Tensor {
			A, B, G := in[0], in[1], g[0]
			back := *a
			back.Transpose = !a.Transpose
			gb := f.callA(opLinalgTrmm, &back, A, G)
			var gt Tensor
			switch {
			case !a.Rightside && !a.Transpose:
				gt = linalgGemm2(f, G, B, false, true, a.Alpha)
			case !a.Rightside:
				gt = linalgGemm2(f, B, G, false, true, a.Alpha)
			case !a.Transpose:
				gt = linalgGemm2(f, B, G, true, false, a.Alpha)
			default:
				gt = linalgGemm2(f, G, B, true, false, a.Alpha)
			}
			return []Tensor{linalgTrian(f, gt, a.Lower), gb}
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 3}, {3, 2}}},
			{Attrs: map[string]string{"transpose": "True", "alpha": "2"}, Inputs: []Shape{{2, 3, 3}, {2, 3, 2}}},
			{Attrs: map[string]string{"rightside": "True", "lower": "False"}, Inputs: []Shape{{3, 3}, {2, 3}}},
			{Attrs: map[string]string{"rightside": "True", "transpose": "True", "alpha": "-0.5"}, Inputs: []Shape{{2, 3, 3}, {2, 2, 3}}},
		},
	})

	opLinalgTrsm = Register(Def[LinalgTriangAttrs]{
		Name: "_linalg_trsm", Aliases: []string{"linalg_trsm"}, Kind: "dense",
		Doc: "Solves op(A) · X = alpha · B (X · op(A) = alpha · B with rightside) for each triangular matrix A " +
			"(lower or upper; the other triangle is not read) and matrix B, op transposing when transpose: " +
			"X = alpha · op(A)⁻¹ · B. A zero on A's diagonal gives infinities or NaN, as in MXNet.",
		Inputs: []string{"A", "B"},
		Shape:  func(a *LinalgTriangAttrs, in []Shape) ([]Shape, error) { return a.shape(in) },
		Kernel: func(_ *Env, a *LinalgTriangAttrs, in, out []Value) error {
			return a.kernel(in, out, func(t, b []float64, n, m int) []float64 { return a.solve(t, b, n, m) })
		},
		Grad: func(f F, a *LinalgTriangAttrs, in, out, g []Tensor) []Tensor {
			A, X, G := in[0], out[0], g[0]
			back := *a
			back.Transpose, back.Alpha = !a.Transpose, 1
			Y := f.callA(opLinalgTrsm, &back, A, G)
			var gt Tensor
			switch {
			case !a.Rightside && !a.Transpose:
				gt = linalgGemm2(f, Y, X, false, true, -1)
			case !a.Rightside:
				gt = linalgGemm2(f, X, Y, false, true, -1)
			case !a.Transpose:
				gt = linalgGemm2(f, X, Y, true, false, -1)
			default:
				gt = linalgGemm2(f, Y, X, true, false, -1)
			}
			return []Tensor{linalgTrian(f, gt, a.Lower), f.MulScalar(Y, a.Alpha)}
		},
		// A's diagonal is kept away from zero by the input range.
		Samples: []Sample{
			{Inputs: []Shape{{3, 3}, {3, 2}}, Low: 1, High: 2},
			{Attrs: map[string]string{"transpose": "True", "alpha": "2"}, Inputs: []Shape{{2, 3, 3}, {2, 3, 2}}, Low: 1, High: 2},
			{Attrs: map[string]string{"rightside": "True", "lower": "False"}, Inputs: []Shape{{3, 3}, {2, 3}}, Low: 1, High: 2},
			{Attrs: map[string]string{"rightside": "True", "transpose": "True", "alpha": "-0.5"}, Inputs: []Shape{{2, 2, 2}, {2, 3, 2}}, Low: 1, High: 2},
		},
	})

	opLinalgSyrk = Register(Def[LinalgSyrkAttrs]{
		Name: "_linalg_syrk", Aliases: []string{"linalg_syrk"}, Kind: "dense",
		Doc:    "alpha · A · Aᵀ (alpha · Aᵀ · A with transpose) for each matrix A.",
		Inputs: []string{"A"},
		Shape: func(a *LinalgSyrkAttrs, in []Shape) ([]Shape, error) {
			s := in[0]
			if len(s) < 2 {
				return nil, Errorf("A %v must have at least 2 dims", s)
			}
			out := s.Clone()
			k := s[len(s)-2]
			if a.Transpose {
				k = s[len(s)-1]
			}
			out[len(s)-2], out[len(s)-1] = k, k
			return []Shape{out}, nil
		},
		Kernel: func(_ *Env, a *LinalgSyrkAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			s := in[0].Shape
			r, c := s[len(s)-2], s[len(s)-1]
			d := gemmDims{batch: s.Size() / max(r*c, 1), m: r, k: c, n: r, ta: false, tb: true}
			if a.Transpose {
				d = gemmDims{batch: d.batch, m: c, k: r, n: c, ta: true, tb: false}
			}
			x := in[0].Float64s()
			CopyData(out[0].Data, FromFloat64s(out[0].DType, batchedGemm(d, x, x, a.Alpha)))
			return nil
		},
		Grad: func(f F, a *LinalgSyrkAttrs, in, _, g []Tensor) []Tensor {
			A, G := in[0], g[0]
			if a.Transpose { // alpha · A · (G + Gᵀ)
				return []Tensor{f.Add(linalgGemm2(f, A, G, false, false, a.Alpha), linalgGemm2(f, A, G, false, true, a.Alpha))}
			}
			return []Tensor{f.Add(linalgGemm2(f, G, A, false, false, a.Alpha), linalgGemm2(f, G, A, true, false, a.Alpha))}
		},
		Samples: []Sample{
			{Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"transpose": "True", "alpha": "2"}, Inputs: []Shape{{2, 3, 2}}},
		},
	})

	opLinalgSumlogdiag = Register(Def[NoAttrs]{
		Name: "_linalg_sumlogdiag", Aliases: []string{"linalg_sumlogdiag"}, Kind: "dense",
		Doc: "The sum of the natural logarithms of the diagonal of each square matrix of A: the leading axes " +
			"remain, and a single matrix gives shape (1,). A non-positive diagonal element gives NaN or -inf.",
		Inputs: []string{"A"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if _, err := squareBatch(in[0]); err != nil {
				return nil, err
			}
			return []Shape{linalgBatchShape(in[0])}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			n, x := in[0].Shape[len(in[0].Shape)-1], in[0].Float64s()
			z := make([]float64, out[0].Shape.Size())
			for b := range z {
				for i := range n {
					z[b] += math.Log(x[b*n*n+i*n+i])
				}
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
			return nil
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			A := in[0]
			d := f.callA(opLinalgExtractdiag, &LinalgDiagAttrs{}, A) // (..., n)
			gs := f.Reshape(g[0], append(d.Shape()[:len(d.Shape())-1:len(d.Shape())-1], 1)...)
			return []Tensor{f.callA(opLinalgMakediag, &LinalgDiagAttrs{}, f.Div(gs, d))}
		},
		Samples: []Sample{{Inputs: []Shape{{3, 3}}, Low: 0.5, High: 2}, {Inputs: []Shape{{2, 2, 2}}, Low: 0.5, High: 2}},
	})

	opLinalgExtractdiag = registerGather(gatherDef[LinalgDiagAttrs]{
		Name: "_linalg_extractdiag", Aliases: []string{"linalg_extractdiag"}, Kind: "shape",
		Doc:    "The offset-th diagonal of each square matrix of A: (..., n, n) gives (..., n - |offset|).",
		Inputs: []string{"A"},
		Shape: func(a *LinalgDiagAttrs, in []Shape) (Shape, error) {
			n, err := squareBatch(in[0])
			if err != nil {
				return nil, err
			}
			out := in[0][:len(in[0])-1].Clone()
			if n != 0 {
				if n-abs(a.Offset) <= 0 {
					return nil, Errorf("offset=%d is out of range for matrices of size %d", a.Offset, n)
				}
				out[len(out)-1] = n - abs(a.Offset)
			}
			return out, nil
		},
		Index: func(a *LinalgDiagAttrs, in []Value) ([]int, error) {
			n := in[0].Shape[len(in[0].Shape)-1]
			l, batch := n-abs(a.Offset), in[0].Shape.Size()/(n*n)
			idx := make([]int, 0, batch*l)
			for b := range batch {
				for i := range l {
					r, c := diagAt(i, a.Offset)
					idx = append(idx, b*n*n+r*n+c)
				}
			}
			return idx, nil
		},
		Grad: func(f F, a *LinalgDiagAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opLinalgMakediag, a, g[0])}
		},
		Samples: []Sample{{Inputs: []Shape{{3, 3}}}, {Attrs: map[string]string{"offset": "-1"}, Inputs: []Shape{{2, 3, 3}}},
			{Attrs: map[string]string{"offset": "2"}, Inputs: []Shape{{4, 4}}}},
	})

	opLinalgMakediag = registerGather(gatherDef[LinalgDiagAttrs]{
		Name: "_linalg_makediag", Aliases: []string{"linalg_makediag"}, Kind: "shape",
		Doc:    "Square matrices with A's last axis on their offset-th diagonal and zeros elsewhere: (..., n) gives (..., n + |offset|, n + |offset|).",
		Inputs: []string{"A"},
		Shape: func(a *LinalgDiagAttrs, in []Shape) (Shape, error) {
			if len(in[0]) < 1 {
				return nil, Errorf("A must have at least 1 dim")
			}
			n := in[0][len(in[0])-1]
			if n != 0 {
				n += abs(a.Offset)
			}
			return append(in[0][:len(in[0])-1].Clone(), n, n), nil
		},
		Index: func(a *LinalgDiagAttrs, in []Value) ([]int, error) {
			n := in[0].Shape[len(in[0].Shape)-1]
			N, batch := n+abs(a.Offset), in[0].Shape.Size()/max(n, 1)
			idx := make([]int, batch*N*N)
			for i := range idx {
				idx[i] = -1
			}
			for b := range batch {
				for i := range n {
					r, c := diagAt(i, a.Offset)
					idx[b*N*N+r*N+c] = b*n + i
				}
			}
			return idx, nil
		},
		Grad: func(f F, a *LinalgDiagAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opLinalgExtractdiag, a, g[0])}
		},
		Samples: []Sample{{Inputs: []Shape{{3}}}, {Attrs: map[string]string{"offset": "1"}, Inputs: []Shape{{2, 2}}},
			{Attrs: map[string]string{"offset": "-2"}, Inputs: []Shape{{2, 2, 3}}}},
	})

	opLinalgExtracttrian = registerGather(gatherDef[LinalgTrianAttrs]{
		Name: "_linalg_extracttrian", Aliases: []string{"linalg_extracttrian"}, Kind: "shape",
		Doc: "The triangle of each square matrix of A, packed in a vector: (..., n, n) gives (..., m(m+1)/2), " +
			"m = n - |offset|. A lower triangle is read row by row, an upper one column by column, as MXNet packs them.",
		Inputs: []string{"A"},
		Shape: func(a *LinalgTrianAttrs, in []Shape) (Shape, error) {
			n, err := squareBatch(in[0])
			if err != nil {
				return nil, err
			}
			out := in[0][:len(in[0])-1].Clone()
			if n != 0 {
				m := n - abs(a.Offset)
				if m <= 0 {
					return nil, Errorf("offset=%d is out of range for matrices of size %d", a.Offset, n)
				}
				out[len(out)-1] = m * (m + 1) / 2
			}
			return out, nil
		},
		Index: func(a *LinalgTrianAttrs, in []Value) ([]int, error) {
			n := in[0].Shape[len(in[0].Shape)-1]
			m := n - abs(a.Offset)
			size, batch := m*(m+1)/2, in[0].Shape.Size()/(n*n)
			idx := make([]int, batch*size)
			for b := range batch {
				for r := range n {
					for c := range n {
						if p := a.pos(r, c); p >= 0 {
							idx[b*size+p] = b*n*n + r*n + c
						}
					}
				}
			}
			return idx, nil
		},
		Grad: func(f F, a *LinalgTrianAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opLinalgMaketrian, a, g[0])}
		},
		Samples: []Sample{{Inputs: []Shape{{3, 3}}}, {Attrs: map[string]string{"lower": "False"}, Inputs: []Shape{{2, 3, 3}}},
			{Attrs: map[string]string{"offset": "1"}, Inputs: []Shape{{4, 4}}}, {Attrs: map[string]string{"offset": "-2"}, Inputs: []Shape{{4, 4}}}},
	})

	opLinalgMaketrian = registerGather(gatherDef[LinalgTrianAttrs]{
		Name: "_linalg_maketrian", Aliases: []string{"linalg_maketrian"}, Kind: "shape",
		Doc: "Square matrices holding A's packed triangles (as _linalg_extracttrian packs them) and zeros elsewhere: " +
			"(..., m(m+1)/2) gives (..., m + |offset|, m + |offset|).",
		Inputs: []string{"A"},
		Shape: func(a *LinalgTrianAttrs, in []Shape) (Shape, error) {
			if len(in[0]) < 1 {
				return nil, Errorf("A must have at least 1 dim")
			}
			k := in[0][len(in[0])-1]
			n := 0
			if k != 0 {
				m, ok := trianSide(k)
				if !ok {
					return nil, Errorf("the last axis of A %v must be a triangular number m(m+1)/2", in[0])
				}
				n = m + abs(a.Offset)
			}
			return append(in[0][:len(in[0])-1].Clone(), n, n), nil
		},
		Index: func(a *LinalgTrianAttrs, in []Value) ([]int, error) {
			size := in[0].Shape[len(in[0].Shape)-1]
			m, _ := trianSide(size)
			n, batch := m+abs(a.Offset), in[0].Shape.Size()/max(size, 1)
			idx := make([]int, batch*n*n)
			for b := range batch {
				for r := range n {
					for c := range n {
						idx[b*n*n+r*n+c] = -1
						if p := a.pos(r, c); p >= 0 {
							idx[b*n*n+r*n+c] = b*size + p
						}
					}
				}
			}
			return idx, nil
		},
		Grad: func(f F, a *LinalgTrianAttrs, _, _, g []Tensor) []Tensor {
			return []Tensor{f.callA(opLinalgExtracttrian, a, g[0])}
		},
		Samples: []Sample{{Inputs: []Shape{{6}}}, {Attrs: map[string]string{"lower": "False"}, Inputs: []Shape{{2, 3}}},
			{Attrs: map[string]string{"offset": "1"}, Inputs: []Shape{{6}}}, {Attrs: map[string]string{"offset": "-1"}, Inputs: []Shape{{2, 1}}}},
	})

	opLinalgInverse = Register(Def[NoAttrs]{
		Name: "_linalg_inverse", Aliases: []string{"linalg_inverse"}, Kind: "dense",
		Doc:    "The inverse of each square matrix of A. A singular matrix is an error.",
		Inputs: []string{"A"},
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			if _, err := squareBatch(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			return squareKernel(in[0], out[0], in[0].Shape.Size(), func(b int, a []float64, n int, z []float64) error {
				inv, ok := invertMatrix(a, n)
				if !ok {
					return Errorf("matrix %d of A %v is singular", b, in[0].Shape)
				}
				copy(z, inv)
				return nil
			})
		},
		Grad: func(f F, _ *NoAttrs, _, out, g []Tensor) []Tensor { // -A⁻ᵀ · G · A⁻ᵀ
			Y := out[0]
			return []Tensor{linalgGemm2(f, linalgGemm2(f, Y, g[0], true, false, -1), Y, false, true, 1)}
		},
		// A random matrix plus a dominant diagonal is comfortably invertible.
		Samples: []Sample{{Inputs: []Shape{{1, 1}}, Low: 0.5, High: 2}, {Inputs: []Shape{{2, 2, 2}}}, {Inputs: []Shape{{3, 3}}}},
	})

	opLinalgDet = Register(Def[NoAttrs]{
		Name: "_linalg_det", Aliases: []string{"linalg_det"}, Kind: "dense",
		Doc: "The determinant of each square matrix of A: the leading axes remain, and a single matrix gives " +
			"shape (1,). The gradient, det(A) · A⁻ᵀ, needs A invertible (MXNet's does too).",
		Inputs: []string{"A"},
		Shape:  func(_ *NoAttrs, in []Shape) ([]Shape, error) { return detShape(in[0], 1) },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			return squareKernel(in[0], out[0], out[0].Shape.Size(), func(_ int, a []float64, n int, z []float64) error {
				sign, logAbs := slogdet(a, n)
				z[0] = sign * math.Exp(logAbs)
				return nil
			})
		},
		Grad: func(f F, _ *NoAttrs, in, out, g []Tensor) []Tensor {
			return []Tensor{detGrad(f, in[0], f.Mul(g[0], out[0]))}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 2}}}, {Inputs: []Shape{{2, 3, 3}}}},
	})

	opLinalgSlogdet = Register(Def[NoAttrs]{
		Name: "_linalg_slogdet", Aliases: []string{"linalg_slogdet"}, Kind: "dense",
		Doc: "The sign and the natural logarithm of the magnitude of the determinant of each square matrix of A, " +
			"as two outputs (sign, logabsdet) shaped like _linalg_det's. A singular matrix gives sign 0 and -inf. " +
			"The sign has no gradient; logabsdet's is A⁻ᵀ.",
		Inputs:  []string{"A"},
		Outputs: 2,
		Shape:   func(_ *NoAttrs, in []Shape) ([]Shape, error) { return detShape(in[0], 2) },
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			n := out[0].Shape.Size()
			both := make([]float64, 2*n)
			// squareKernel writes both outputs' values per matrix; they are split below.
			scratch := Value{Shape: Shape{2 * n}, DType: Float64, Data: both}
			if err := squareKernel(in[0], scratch, 2*n, func(_ int, a []float64, n int, z []float64) error {
				z[0], z[1] = slogdet(a, n)
				return nil
			}); err != nil {
				return err
			}
			sign, logAbs := make([]float64, n), make([]float64, n)
			for b := range n {
				sign[b], logAbs[b] = both[2*b], both[2*b+1]
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, sign))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, logAbs))
			return nil
		},
		Grad: func(f F, _ *NoAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{detGrad(f, in[0], g[1])}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 2}}}, {Inputs: []Shape{{2, 3, 3}}}},
	})

	opLinalgGelqf = Register(Def[NoAttrs]{
		Name: "_linalg_gelqf", Aliases: []string{"linalg_gelqf"}, Kind: "dense",
		Doc: "The LQ factorization A = L·Q of each matrix A (x, y) with x <= y and full rank: the outputs are Q (x, y) " +
			"with orthonormal rows and L (x, x) lower triangular, computed by Householder reflections as LAPACK's " +
			"gelqf and orglq do, so the signs of L's diagonal are LAPACK's.",
		Inputs:  []string{"A"},
		Outputs: 2,
		Shape: func(_ *NoAttrs, in []Shape) ([]Shape, error) {
			s := in[0]
			if len(s) < 2 {
				return nil, Errorf("A %v must have at least 2 dims", s)
			}
			x, y := s[len(s)-2], s[len(s)-1]
			if x != 0 && y != 0 && x > y {
				return nil, Errorf("A %v has more rows than columns (%d > %d)", s, x, y)
			}
			l := s.Clone()
			l[len(s)-1] = x
			return []Shape{s.Clone(), l}, nil
		},
		Kernel: func(_ *Env, _ *NoAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			s := in[0].Shape
			m, n := s[len(s)-2], s[len(s)-1]
			x := in[0].Float64s()
			q, l := make([]float64, len(x)), make([]float64, len(x)/max(n, 1)*m)
			for b := 0; b*m*n < len(x) && m*n > 0; b++ {
				qb, lb, ok := gelqf(x[b*m*n:(b+1)*m*n], m, n)
				if !ok {
					return Errorf("matrix %d of A %v does not have full rank", b, s)
				}
				copy(q[b*m*n:], qb)
				copy(l[b*m*m:], lb)
			}
			CopyData(out[0].Data, FromFloat64s(out[0].DType, q))
			CopyData(out[1].Data, FromFloat64s(out[1].DType, l))
			return nil
		},
		// MXNet's: dA = L⁻ᵀ·(dQ + copyLTU(M)·Q), M = Lᵀ·dL - dQ·Qᵀ, copyLTU
		// mirroring the lower triangle into the upper one.
		Grad: func(f F, _ *NoAttrs, _, out, g []Tensor) []Tensor {
			Q, L, dQ, dL := out[0], out[1], g[0], g[1]
			M := f.Sub(linalgGemm2(f, L, dL, true, false, 1), linalgGemm2(f, dQ, Q, false, true, 1))
			strict := &LinalgTrianAttrs{Offset: -1}
			below := f.callA(opLinalgMaketrian, strict, f.callA(opLinalgExtracttrian, strict, M))
			sym := f.Add(linalgTrian(f, M, true), linalgT(f, below))
			X := f.Add(dQ, linalgGemm2(f, sym, Q, false, false, 1))
			return []Tensor{f.callA(opLinalgTrsm, &LinalgTriangAttrs{Transpose: true, Lower: true, Alpha: 1}, L, X)}
		},
		Samples: []Sample{{Inputs: []Shape{{2, 3}}}, {Inputs: []Shape{{2, 2, 2}}}, {Inputs: []Shape{{3, 4}}}},
	})

	opLinalgPotri = Register(Def[LinalgPotrfAttrs]{
		Name: "_linalg_potri", Aliases: []string{"linalg_potri"}, Kind: "dense",
		Doc: "The inverse of B = A·Aᵀ (Aᵀ·A when lower is False) for each triangular matrix A, such as the Cholesky " +
			"factor _linalg_potrf gives: so potri(potrf(B)) = B⁻¹. The other triangle of A is not read.",
		Inputs: []string{"A"},
		Shape: func(_ *LinalgPotrfAttrs, in []Shape) ([]Shape, error) {
			if _, err := squareBatch(in[0]); err != nil {
				return nil, err
			}
			return []Shape{in[0].Clone()}, nil
		},
		Kernel: func(_ *Env, a *LinalgPotrfAttrs, in, out []Value) error {
			return squareKernel(in[0], out[0], in[0].Shape.Size(), func(b int, x []float64, n int, z []float64) error {
				t := triangle(x, n, a.Lower)
				d := gemmDims{batch: 1, m: n, k: n, n: n, tb: a.Lower, ta: !a.Lower}
				inv, ok := invertMatrix(batchedGemm(d, t, t, 1), n)
				if !ok {
					return Errorf("matrix %d of A %v is singular", b, in[0].Shape)
				}
				copy(z, inv)
				return nil
			})
		},
		Grad: func(f F, a *LinalgPotrfAttrs, in, out, g []Tensor) []Tensor {
			S, T := out[0], linalgTrian(f, in[0], a.Lower)
			M := linalgGemm2(f, linalgGemm2(f, S, f.Add(g[0], linalgT(f, g[0])), false, false, 1), S, false, false, 1)
			if a.Lower { // -(S·(G + Gᵀ)·S)·L, lower triangle
				return []Tensor{linalgTrian(f, linalgGemm2(f, M, T, false, false, -1), true)}
			}
			return []Tensor{linalgTrian(f, linalgGemm2(f, T, M, false, false, -1), false)} // -U·(S·(G + Gᵀ)·S)
		},
		Samples: []Sample{
			{Inputs: []Shape{{3, 3}}, Low: 1, High: 2},
			{Attrs: map[string]string{"lower": "False"}, Inputs: []Shape{{2, 2, 2}}, Low: 1, High: 2},
		},
	})
}

// gemm2 is the product part of _linalg_gemm's attributes.
func (a *LinalgGemmAttrs) gemm2() *LinalgGemm2Attrs {
	return &LinalgGemm2Attrs{TransposeA: a.TransposeA, TransposeB: a.TransposeB, Alpha: a.Alpha, Axis: a.Axis}
}

// batchedGemm returns alpha · op(A) · op(B) for each pair of matrices.
func batchedGemm(d gemmDims, x, y []float64, alpha float64) []float64 {
	z := make([]float64, d.batch*d.m*d.n)
	for b := range d.batch {
		xa, yb, zc := x[b*d.m*d.k:], y[b*d.k*d.n:], z[b*d.m*d.n:]
		for i := range d.m {
			for j := range d.n {
				s := 0.0
				for p := range d.k {
					s += xa[d.aIdx(i, p)] * yb[d.bIdx(p, j)]
				}
				zc[i*d.n+j] = alpha * s
			}
		}
	}
	return z
}

// linalgGemm2 is alpha · op(x) · op(y) on the last two axes, with F.
func linalgGemm2(f F, x, y Tensor, ta, tb bool, alpha float64) Tensor {
	return f.callA(opLinalgGemm2, &LinalgGemm2Attrs{TransposeA: ta, TransposeB: tb, Alpha: alpha, Axis: -2}, x, y)
}

// linalgGemm2Grad is the gradient of _linalg_gemm2 with respect to A and B.
func linalgGemm2Grad(f F, a *LinalgGemm2Attrs, A, B, G Tensor) [2]Tensor {
	switch {
	case !a.TransposeA && !a.TransposeB:
		return [2]Tensor{linalgGemm2(f, G, B, false, true, a.Alpha), linalgGemm2(f, A, G, true, false, a.Alpha)}
	case a.TransposeA && !a.TransposeB:
		return [2]Tensor{linalgGemm2(f, B, G, false, true, a.Alpha), linalgGemm2(f, A, G, false, false, a.Alpha)}
	case !a.TransposeA && a.TransposeB:
		return [2]Tensor{linalgGemm2(f, G, B, false, false, a.Alpha), linalgGemm2(f, G, A, true, false, a.Alpha)}
	}
	return [2]Tensor{linalgGemm2(f, B, G, true, true, a.Alpha), linalgGemm2(f, G, A, true, true, a.Alpha)}
}

// linalgTrian keeps the lower (or upper) triangle of each matrix of x,
// with F.
func linalgTrian(f F, x Tensor, lower bool) Tensor {
	a := &LinalgTrianAttrs{Lower: lower}
	return f.callA(opLinalgMaketrian, a, f.callA(opLinalgExtracttrian, a, x))
}

// linalgT transposes each matrix of x (its last two axes), with F.
func linalgT(f F, x Tensor) Tensor {
	nd := len(x.Shape())
	axes := make([]int, nd)
	for i := range axes {
		axes[i] = i
	}
	axes[nd-2], axes[nd-1] = nd-1, nd-2
	return f.Transpose(x, axes...)
}

// diagAt is the (row, column) of element i of the offset-th diagonal.
func diagAt(i, offset int) (int, int) {
	if offset >= 0 {
		return i, i + offset
	}
	return i - offset, i
}

// pos is the position of matrix element (r, c) in the packed triangle,
// or -1 when it is outside the triangle. An upper triangle is packed as
// the lower triangle of the transpose, as MXNet does.
func (a *LinalgTrianAttrs) pos(r, c int) int {
	if a.Offset > 0 || (a.Offset == 0 && !a.Lower) {
		r, c = c, r
	}
	r -= abs(a.Offset)
	if r < c {
		return -1
	}
	return r*(r+1)/2 + c
}

// trianSide returns m with m(m+1)/2 = k, if there is one.
func trianSide(k int) (int, bool) {
	m := int(math.Floor(0.5 + (math.Sqrt(float64(8*k+1))-1)/2))
	return m, m*(m+1)/2 == k
}

// triangle returns the lower (or upper) triangle of the n×n matrix x,
// zeros elsewhere.
func triangle(x []float64, n int, lower bool) []float64 {
	t := make([]float64, n*n)
	for r := range n {
		for c := range n {
			if (lower && c <= r) || (!lower && c >= r) {
				t[r*n+c] = x[r*n+c]
			}
		}
	}
	return t
}

// shape is the shape rule of _linalg_trmm and _linalg_trsm.
func (a *LinalgTriangAttrs) shape(in []Shape) ([]Shape, error) {
	n, err := squareBatch(in[0])
	if err != nil {
		return nil, err
	}
	A, B := in[0], in[1]
	if len(B) != len(A) {
		return nil, Errorf("A %v and B %v must have the same number of dims", A, B)
	}
	nd := len(A)
	for i := range nd - 2 {
		v, ok := mergeDim(A[i], B[i])
		if !ok {
			return nil, Errorf("A %v and B %v differ on batch axis %d", A, B, i)
		}
		A[i], B[i] = v, v
	}
	ax := nd - 2 // B's axis that meets A
	if a.Rightside {
		ax = nd - 1
	}
	if n != 0 && B[ax] != 0 && B[ax] != n {
		return nil, Errorf("B %v does not match the %d×%d matrices of A (rightside=%s)", B, n, n, pyBool(a.Rightside))
	}
	if n != 0 {
		B[ax] = n
	}
	return []Shape{B.Clone()}, nil
}

// dims are the product's sizes for n×n triangular matrices and B with m
// columns (rows, with rightside).
func (a *LinalgTriangAttrs) dims(n, m int) gemmDims {
	if a.Rightside {
		return gemmDims{batch: 1, m: m, k: n, n: n, tb: a.Transpose}
	}
	return gemmDims{batch: 1, m: n, k: n, n: m, ta: a.Transpose}
}

// kernel runs op on each pair of the triangle of a matrix of A and the
// matching matrix of B.
func (a *LinalgTriangAttrs) kernel(in, out []Value, op func(t, b []float64, n, m int) []float64) error {
	if err := requireFloat(in...); err != nil {
		return err
	}
	sa, sb := in[0].Shape, in[1].Shape
	n := sa[len(sa)-1]
	m := sb[len(sb)-1] // B's other dim
	if a.Rightside {
		m = sb[len(sb)-2]
	}
	x, y := in[0].Float64s(), in[1].Float64s()
	z := make([]float64, len(y))
	for b := 0; b*n*n < len(x) && n*m > 0; b++ {
		t := triangle(x[b*n*n:(b+1)*n*n], n, a.Lower)
		copy(z[b*n*m:], op(t, y[b*n*m:(b+1)*n*m], n, m))
	}
	CopyData(out[0].Data, FromFloat64s(out[0].DType, z))
	return nil
}

// solve returns alpha · op(T)⁻¹ · B (alpha · B · op(T)⁻¹ with rightside)
// for the triangular n×n T and B (n×m, or m×n with rightside).
func (a *LinalgTriangAttrs) solve(t, b []float64, n, m int) []float64 {
	// Work on op(T) as a full matrix: lower-triangular when
	// lower != transpose, and solve by substitution.
	op := t
	if a.Transpose {
		op = transposeSquare(t, n)
	}
	lower := a.Lower != a.Transpose
	if a.Rightside { // X·op(T) = αB ⇔ op(T)ᵀ·Xᵀ = αBᵀ
		op = transposeSquare(op, n)
		lower = !lower
		bt := make([]float64, n*m)
		for i := range m {
			for j := range n {
				bt[j*m+i] = b[i*n+j]
			}
		}
		xt := triangularSolve(op, bt, n, m, lower, a.Alpha)
		x := make([]float64, m*n)
		for i := range m {
			for j := range n {
				x[i*n+j] = xt[j*m+i]
			}
		}
		return x
	}
	return triangularSolve(op, b, n, m, lower, a.Alpha)
}

// triangularSolve solves T·X = alpha·B for the lower (or upper)
// triangular n×n T and n×m B.
func triangularSolve(t, b []float64, n, m int, lower bool, alpha float64) []float64 {
	x := make([]float64, n*m)
	for j := range m {
		for s := range n {
			i := s
			if !lower {
				i = n - 1 - s
			}
			v := alpha * b[i*m+j]
			for k := range n {
				if (lower && k < i) || (!lower && k > i) {
					v -= t[i*n+k] * x[k*m+j]
				}
			}
			x[i*m+j] = v / t[i*n+i]
		}
	}
	return x
}

// linalgBatchShape is the shape of one value per matrix of s: its leading
// axes, or (1,) for a single matrix.
func linalgBatchShape(s Shape) Shape {
	if len(s) == 2 {
		return Shape{1}
	}
	return s[:len(s)-2].Clone()
}

// detShape is the shape rule of _linalg_det and _linalg_slogdet.
func detShape(s Shape, outputs int) ([]Shape, error) {
	if _, err := squareBatch(s); err != nil {
		return nil, err
	}
	out := make([]Shape, outputs)
	for i := range out {
		out[i] = linalgBatchShape(s)
	}
	return out, nil
}

// detGrad is the gradient w · A⁻ᵀ of a determinant function, w holding
// one weight per matrix of A.
func detGrad(f F, A, w Tensor) Tensor {
	s := A.Shape()
	ws := f.Reshape(w, append(s[:len(s)-2:len(s)-2], 1, 1)...)
	return f.Mul(ws, linalgT(f, f.callA(opLinalgInverse, &NoAttrs{}, A)))
}

// squareKernel runs op on each n×n matrix of in (as float64), giving it
// the matrix's share of the output (out's size divided evenly).
func squareKernel(in, out Value, outSize int, op func(b int, a []float64, n int, z []float64) error) error {
	if err := requireFloat(in); err != nil {
		return err
	}
	n := in.Shape[len(in.Shape)-1]
	x := in.Float64s()
	z := make([]float64, outSize)
	batch := in.Shape.Size() / max(n*n, 1)
	if n == 0 {
		batch = 0
	}
	per := 0
	if batch > 0 {
		per = outSize / batch
	}
	for b := range batch {
		if err := op(b, x[b*n*n:(b+1)*n*n], n, z[b*per:(b+1)*per]); err != nil {
			return err
		}
	}
	CopyData(out.Data, FromFloat64s(out.DType, z))
	return nil
}

// luFactor factors the n×n a by Gaussian elimination with partial
// pivoting: it returns the combined L\U factors, the row permutation and
// its sign, or false when a pivot is zero.
func luFactor(a []float64, n int) ([]float64, []int, float64, bool) {
	lu := append([]float64(nil), a...)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sign := 1.0
	for k := range n {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(lu[i*n+k]) > math.Abs(lu[p*n+k]) {
				p = i
			}
		}
		if lu[p*n+k] == 0 {
			return lu, perm, 0, false
		}
		if p != k {
			for j := range n {
				lu[k*n+j], lu[p*n+j] = lu[p*n+j], lu[k*n+j]
			}
			perm[k], perm[p] = perm[p], perm[k]
			sign = -sign
		}
		for i := k + 1; i < n; i++ {
			l := lu[i*n+k] / lu[k*n+k]
			lu[i*n+k] = l
			for j := k + 1; j < n; j++ {
				lu[i*n+j] -= l * lu[k*n+j]
			}
		}
	}
	return lu, perm, sign, true
}

// slogdet returns the sign and log |det| of the n×n a (0 and -inf when
// it is singular).
func slogdet(a []float64, n int) (float64, float64) {
	lu, _, sign, ok := luFactor(a, n)
	if !ok {
		return 0, math.Inf(-1)
	}
	logAbs := 0.0
	for i := range n {
		d := lu[i*n+i]
		if d < 0 {
			sign = -sign
		}
		logAbs += math.Log(math.Abs(d))
	}
	return sign, logAbs
}

// invertMatrix returns the inverse of the n×n a, or false when a is
// singular.
func invertMatrix(a []float64, n int) ([]float64, bool) {
	lu, perm, _, ok := luFactor(a, n)
	if !ok {
		return nil, false
	}
	inv := make([]float64, n*n)
	col := make([]float64, n)
	for j := range n {
		// Solve L·U·x = P·e_j.
		for i := range n {
			col[i] = 0
			if perm[i] == j {
				col[i] = 1
			}
		}
		for i := range n {
			for k := range i {
				col[i] -= lu[i*n+k] * col[k]
			}
		}
		for i := n - 1; i >= 0; i-- {
			for k := i + 1; k < n; k++ {
				col[i] -= lu[i*n+k] * col[k]
			}
			col[i] /= lu[i*n+i]
		}
		for i := range n {
			inv[i*n+j] = col[i]
		}
	}
	return inv, true
}

// gelqf returns Q (m×n, orthonormal rows) and L (m×m, lower triangular)
// with a = L·Q for the m×n a, m <= n, by Householder reflections from the
// right as LAPACK's dgelqf and dorglq compute them; false when a does not
// have full rank.
func gelqf(a []float64, m, n int) (q, l []float64, ok bool) {
	r := append([]float64(nil), a...)
	vs := make([][]float64, m)
	taus := make([]float64, m)
	l = make([]float64, m*m)
	for i := range m {
		// The reflection H = I - tau·v·vᵀ on columns i.. that zeroes row
		// i right of the diagonal (dlarfg).
		alpha, xnorm := r[i*n+i], 0.0
		for j := i + 1; j < n; j++ {
			xnorm = math.Hypot(xnorm, r[i*n+j])
		}
		v := make([]float64, n-i)
		v[0] = 1
		beta, tau := alpha, 0.0
		if xnorm != 0 {
			beta = -math.Copysign(math.Hypot(alpha, xnorm), alpha)
			tau = (beta - alpha) / beta
			for j := i + 1; j < n; j++ {
				v[j-i] = r[i*n+j] / (alpha - beta)
			}
		}
		if beta == 0 {
			return nil, nil, false
		}
		vs[i], taus[i] = v, tau
		r[i*n+i] = beta
		for j := i + 1; j < n; j++ {
			r[i*n+j] = 0
		}
		applyReflection(r[(i+1)*n:], m-i-1, n, i, v, tau)
		for j := 0; j <= i; j++ {
			l[i*m+j] = r[i*n+j]
		}
	}
	// Q = [I 0]·H_{m-1}···H_0.
	q = make([]float64, m*n)
	for i := range m {
		q[i*n+i] = 1
	}
	for i := m - 1; i >= 0; i-- {
		applyReflection(q, m, n, i, vs[i], taus[i])
	}
	return q, l, true
}

// applyReflection multiplies the rows×n matrix x from the right by
// I - tau·v·vᵀ acting on its columns from.
func applyReflection(x []float64, rows, n, from int, v []float64, tau float64) {
	if tau == 0 {
		return
	}
	for r := range rows {
		row := x[r*n+from : (r+1)*n]
		s := 0.0
		for j, vj := range v {
			s += row[j] * vj
		}
		s *= tau
		for j, vj := range v {
			row[j] -= s * vj
		}
	}
}

// LinalgGemm returns alpha · op(A) · op(B) + beta · C for each matrix
// (attributes transpose_a, transpose_b, alpha, beta).
func (f F) LinalgGemm(a, b, c Tensor, attrs ...Attr) Tensor {
	return f.call1(opLinalgGemm, attrs, a, b, c)
}

// LinalgTrmm returns alpha · op(A) · B for triangular A (attributes
// transpose, rightside, lower, alpha).
func (f F) LinalgTrmm(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgTrmm, attrs, a, b) }

// LinalgTrsm returns alpha · op(A)⁻¹ · B for triangular A (attributes
// transpose, rightside, lower, alpha).
func (f F) LinalgTrsm(a, b Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgTrsm, attrs, a, b) }

// LinalgSyrk returns alpha · A · Aᵀ (attribute transpose: Aᵀ · A).
func (f F) LinalgSyrk(a Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgSyrk, attrs, a) }

// LinalgSumlogdiag returns the sum of the logarithms of each matrix's diagonal.
func (f F) LinalgSumlogdiag(a Tensor) Tensor { return f.callA(opLinalgSumlogdiag, &NoAttrs{}, a) }

// LinalgExtractdiag returns each matrix's diagonal (attribute offset).
func (f F) LinalgExtractdiag(a Tensor, attrs ...Attr) Tensor {
	return f.call1(opLinalgExtractdiag, attrs, a)
}

// LinalgMakediag returns matrices with a on their diagonal (attribute offset).
func (f F) LinalgMakediag(a Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgMakediag, attrs, a) }

// LinalgExtracttrian returns each matrix's packed triangle (attributes
// offset, lower).
func (f F) LinalgExtracttrian(a Tensor, attrs ...Attr) Tensor {
	return f.call1(opLinalgExtracttrian, attrs, a)
}

// LinalgMaketrian returns matrices holding a's packed triangles
// (attributes offset, lower).
func (f F) LinalgMaketrian(a Tensor, attrs ...Attr) Tensor {
	return f.call1(opLinalgMaketrian, attrs, a)
}

// LinalgInverse returns the inverse of each matrix.
func (f F) LinalgInverse(a Tensor) Tensor { return f.callA(opLinalgInverse, &NoAttrs{}, a) }

// LinalgDet returns the determinant of each matrix.
func (f F) LinalgDet(a Tensor) Tensor { return f.callA(opLinalgDet, &NoAttrs{}, a) }

// LinalgSlogdet returns the sign and log |det| of each matrix.
func (f F) LinalgSlogdet(a Tensor) (sign, logabsdet Tensor) {
	out := f.Invoke(opLinalgSlogdet, &NoAttrs{}, a)
	return out[0], out[1]
}

// LinalgGelqf returns the LQ factorization A = L·Q of each matrix.
func (f F) LinalgGelqf(a Tensor) (q, l Tensor) {
	out := f.Invoke(opLinalgGelqf, &NoAttrs{}, a)
	return out[0], out[1]
}

// LinalgPotri returns (A·Aᵀ)⁻¹ for the triangular factor A (attribute
// lower=False: (Aᵀ·A)⁻¹).
func (f F) LinalgPotri(a Tensor, attrs ...Attr) Tensor { return f.call1(opLinalgPotri, attrs, a) }
