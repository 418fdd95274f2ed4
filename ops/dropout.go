package ops

// DropoutAttrs are the attributes of Dropout.
type DropoutAttrs struct {
	P        float64 `attr:"p" default:"0.5" doc:"the fraction of elements dropped"`
	Mode     string  `attr:"mode" default:"training" enum:"training,always" doc:"training: drop only in training mode; always: drop in every mode"`
	Axes     Tuple   `attr:"axes" default:"()" doc:"axes along which one mask value is shared (variational dropout)"`
	CudnnOff bool    `attr:"cudnn_off" default:"False" doc:"ignored: there is no cuDNN"`
}

var opDropout *Op

func init() {
	opDropout = Register(Def[DropoutAttrs]{
		Name: "Dropout", Kind: "other", Doc: "Zeroes each element with probability p and scales the others by 1/(1-p), in training mode (or always, with mode=always); " +
			"otherwise the identity. The hidden second output is the mask the input was multiplied by: 0 for a dropped element, " +
			"1/(1-p) for a kept one (as MXNet stores it), and 1 everywhere when nothing is dropped.",
		Inputs: []string{"data"}, Outputs: 2, VisibleOutputs: func(*DropoutAttrs) int { return 1 },
		Random: true,
		Check: func(a *DropoutAttrs) error {
			if a.P < 0 || a.P > 1 {
				return Errorf("p=%v is not in [0, 1]", a.P)
			}
			return nil
		},
		Shape: func(a *DropoutAttrs, in []Shape) ([]Shape, error) {
			for _, ax := range a.Axes {
				if _, err := NormAxis(ax, len(in[0])); err != nil {
					return nil, Errorf("data %v has no axis %d (axes=%v)", in[0], ax, a.Axes)
				}
			}
			return []Shape{in[0].Clone(), in[0].Clone()}, nil
		},
		Kernel: dropoutKernel,
		Grad: func(f F, _ *DropoutAttrs, _, out, g []Tensor) []Tensor {
			return []Tensor{f.Mul(g[0], out[1])}
		},
		Samples: []Sample{
			{Inputs: []Shape{{4, 5}}},
			{Attrs: map[string]string{"p": "0.3", "axes": "(1,)"}, Inputs: []Shape{{2, 3, 4}}},
			{Attrs: map[string]string{"p": "0.2", "mode": "always"}, Inputs: []Shape{{6}}},
			{Attrs: map[string]string{"p": "1"}, Inputs: []Shape{{3, 2}}},
			{Attrs: map[string]string{"p": "0"}, Inputs: []Shape{{3, 2}}},
		},
	})
}

// dropoutKernel draws one keep/drop decision per element of the data's
// shape with the shared axes set to 1, in row-major order on one goroutine
// (so a seed repeats), and broadcasts it over the shared axes.
func dropoutKernel(env *Env, a *DropoutAttrs, in, out []Value) error {
	if err := requireFloat(in[0]); err != nil {
		return err
	}
	x, y, mask := in[0], out[0], out[1]
	if (!env.Training && a.Mode == "training") || a.P == 0 {
		fillData(mask.Data, 1)
		CopyData(y.Data, x.Data)
		return nil
	}
	if env.Rand == nil {
		return Errorf("no random source: Dropout must be run by an interpreter that supplies one")
	}
	drawShape := x.Shape.Clone()
	for _, ax := range a.Axes {
		n, _ := NormAxis(ax, len(drawShape))
		drawShape[n] = 1
	}
	keep := 0.0
	if a.P < 1 {
		keep = 1 / (1 - a.P)
	}
	draws := NewValue(drawShape, x.DType)
	if err := fillRandom(draws, func() float64 {
		if env.Rand.Float64() < a.P {
			return 0
		}
		return keep
	}); err != nil {
		return err
	}
	if err := broadcastCopy(draws, mask); err != nil {
		return err
	}
	return mapBinary(x, mask, y, func(v, m float64) float64 { return v * m })
}

// Dropout zeroes each element of x with probability p and scales the rest
// by 1/(1-p) in training mode; in prediction mode it returns x unchanged.
// Options: ops.Attr{"axes", []int{…}} shares the mask along axes,
// ops.Attr{"mode", "always"} drops in every mode.
func (f F) Dropout(x Tensor, p float64, attrs ...Attr) Tensor {
	return f.call1(opDropout, append([]Attr{{"p", p}}, attrs...), x)
}
