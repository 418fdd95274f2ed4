package ops

import "github.com/hybridgo/hybridgo/accel"

// EmbeddingAttrs are the attributes of Embedding and _backward_Embedding.
type EmbeddingAttrs struct {
	InputDim   int   `attr:"input_dim" doc:"number of rows of weight (the vocabulary size)"`
	OutputDim  int   `attr:"output_dim" doc:"number of columns of weight (the embedding size)"`
	DType      DType `attr:"dtype" default:"float32" doc:"dtype of weight when it is not known from the weight itself"`
	SparseGrad bool  `attr:"sparse_grad" default:"False" doc:"ignored: the weight's gradient is always dense"`
}

func (a *EmbeddingAttrs) check() error {
	if a.InputDim <= 0 || a.OutputDim <= 0 {
		return Errorf("input_dim and output_dim must be positive, got input_dim=%d output_dim=%d", a.InputDim, a.OutputDim)
	}
	return nil
}

// embedRow maps an index value to a row of weight, clipping it into
// [0, input_dim-1] as MXNet's Embedding does (NaN maps to row 0).
func embedRow(v float64, inputDim int) int {
	switch {
	case !(v > 0): // also NaN
		return 0
	case v >= float64(inputDim-1):
		return inputDim - 1
	}
	return int(v)
}

var opEmbedding, opEmbeddingBackward *Op

func init() {
	opEmbedding = Register(Def[EmbeddingAttrs]{
		Name: "Embedding", Kind: "dense", Doc: "Looks up rows of weight (input_dim, output_dim) by the indices in data: the output has data's shape plus (output_dim,). " +
			"Indices may have any dtype; they are truncated to integers and clipped into [0, input_dim-1], as MXNet does.",
		Inputs: []string{"data", "weight"},
		Check:  func(a *EmbeddingAttrs) error { return a.check() },
		Shape: func(a *EmbeddingAttrs, in []Shape) ([]Shape, error) {
			w := in[1]
			switch {
			case len(w) == 0:
				w = Shape{a.InputDim, a.OutputDim}
			case len(w) != 2:
				return nil, Errorf("weight %v must be 2-D (input_dim, output_dim) = (%d, %d)", w, a.InputDim, a.OutputDim)
			}
			if w[0] == 0 {
				w[0] = a.InputDim
			}
			if w[1] == 0 {
				w[1] = a.OutputDim
			}
			if w[0] != a.InputDim || w[1] != a.OutputDim {
				return nil, Errorf("weight %v should be (%d, %d) (input_dim=%d, output_dim=%d)", w, a.InputDim, a.OutputDim, a.InputDim, a.OutputDim)
			}
			in[1] = w
			if in[0] == nil {
				return []Shape{nil}, nil // the data's dims, and so the output's, are not known yet
			}
			return []Shape{append(in[0].Clone(), a.OutputDim)}, nil
		},
		DType: func(a *EmbeddingAttrs, in []DType) ([]DType, error) {
			d := in[1]
			if d == Unknown {
				d = a.DType
			}
			if d != Float32 && d != Float64 {
				return nil, Errorf("weight dtype %v is not supported (float32 and float64 are)", d)
			}
			return []DType{d}, nil
		},
		Kernel: func(_ *Env, a *EmbeddingAttrs, in, out []Value) error {
			idx := in[0].Float64s()
			switch o := out[0].Data.(type) {
			case []float32:
				embedLookup(idx, in[1].Data.([]float32), o, a.InputDim, a.OutputDim)
			case []float64:
				embedLookup(idx, in[1].Data.([]float64), o, a.InputDim, a.OutputDim)
			}
			return nil
		},
		Grad: func(f F, a *EmbeddingAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{nil, f.embeddingBackward(g[0], in[0], a)}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"input_dim": "5", "output_dim": "4"}, Inputs: []Shape{{2, 3}, {5, 4}}, Ints: map[int]int{0: 5}},
			{Attrs: map[string]string{"input_dim": "3", "output_dim": "2"}, Inputs: []Shape{{4}, {3, 2}}, Ints: map[int]int{0: 3},
				DTypes: []DType{Int32, Float32}},
		},
	})

	opEmbeddingBackward = Register(Def[EmbeddingAttrs]{
		Name: "_backward_Embedding", Kind: "dense", Doc: "The gradient of Embedding's weight: adds each row of ograd into the weight row its index in data picks (indices clipped as in Embedding).",
		Inputs: []string{"ograd", "data"},
		Check:  func(a *EmbeddingAttrs) error { return a.check() },
		Shape: func(a *EmbeddingAttrs, in []Shape) ([]Shape, error) {
			g, d := in[0], in[1]
			if len(g) != len(d)+1 || (g[len(g)-1] != 0 && g[len(g)-1] != a.OutputDim) {
				return nil, Errorf("ograd %v should be data %v plus (%d,) (output_dim=%d)", g, d, a.OutputDim, a.OutputDim)
			}
			for i := range d {
				switch {
				case d[i] == 0:
					d[i] = g[i]
				case g[i] == 0:
					g[i] = d[i]
				case g[i] != d[i]:
					return nil, Errorf("ograd %v should be data %v plus (%d,) (output_dim=%d)", g, d, a.OutputDim, a.OutputDim)
				}
			}
			g[len(g)-1] = a.OutputDim
			return []Shape{{a.InputDim, a.OutputDim}}, nil
		},
		DType: func(_ *EmbeddingAttrs, in []DType) ([]DType, error) { return []DType{in[0]}, nil },
		Kernel: func(_ *Env, a *EmbeddingAttrs, in, out []Value) error {
			if err := requireFloat(in[0]); err != nil {
				return err
			}
			idx := in[1].Float64s()
			switch o := out[0].Data.(type) {
			case []float32:
				embedScatter(idx, in[0].Data.([]float32), o, a.InputDim, a.OutputDim)
			case []float64:
				embedScatter(idx, in[0].Data.([]float64), o, a.InputDim, a.OutputDim)
			}
			return nil
		},
		Grad: func(f F, a *EmbeddingAttrs, in, _, g []Tensor) []Tensor {
			return []Tensor{f.Embedding(in[1], g[0], a.InputDim, a.OutputDim), nil}
		},
		Samples: []Sample{
			{Attrs: map[string]string{"input_dim": "5", "output_dim": "4"}, Inputs: []Shape{{2, 3, 4}, {2, 3}}, Ints: map[int]int{1: 5}},
		},
	})
}

func embedLookup[T accel.Float](idx []float64, w, out []T, inputDim, outputDim int) {
	accel.ParallelRange(len(idx), 256, embedLookupLoop[T]{idx, w, out, inputDim, outputDim})
}

// embedLookupLoop is embedLookup's loop over indices.
type embedLookupLoop[T accel.Float] struct {
	idx       []float64
	w         []T
	out       []T
	inputDim  int
	outputDim int
}

func (l *embedLookupLoop[T]) Range(lo, hi int) {
	idx, w, out, inputDim, outputDim := l.idx, l.w, l.out, l.inputDim, l.outputDim
	for i := lo; i < hi; i++ {
		r := embedRow(idx[i], inputDim)
		copy(out[i*outputDim:(i+1)*outputDim], w[r*outputDim:(r+1)*outputDim])
	}
}

// embedScatter sums the rows of g into the rows of out that idx picks.
// It runs on one goroutine: several indices may pick the same row.
func embedScatter[T accel.Float](idx []float64, g, out []T, inputDim, outputDim int) {
	clear(out)
	for i, v := range idx {
		r := embedRow(v, inputDim)
		dst := out[r*outputDim : (r+1)*outputDim]
		for j, x := range g[i*outputDim : (i+1)*outputDim] {
			dst[j] += x
		}
	}
}

// embeddingBackward is the gradient of Embedding's weight.
func (f F) embeddingBackward(ograd, data Tensor, a *EmbeddingAttrs) Tensor {
	b := *a
	return f.callA(opEmbeddingBackward, &b, ograd, data)
}

// Embedding looks up the rows of weight (inputDim, outputDim) picked by
// the indices: the result has the indices' shape plus (outputDim,).
// Indices outside [0, inputDim-1] are clipped into it.
func (f F) Embedding(indices, weight Tensor, inputDim, outputDim int, attrs ...Attr) Tensor {
	return f.call1(opEmbedding, append([]Attr{{"input_dim", inputDim}, {"output_dim", outputDim}}, attrs...), indices, weight)
}
