package metric

import (
	"fmt"
	"math"

	"github.com/hybridgo/hybridgo/eager"
)

// Metric accumulates an evaluation measure over batches (Gluon's
// mx.metric). Get returns NaN before any update.
type Metric interface {
	Update(labels, preds *eager.NDArray) error
	Get() (name string, value float64)
	Reset()
}

// average is a running sum and count.
type average struct {
	name string
	sum  float64
	n    float64
}

func (a *average) Get() (string, float64) {
	if a.n == 0 {
		return a.name, math.NaN()
	}
	return a.name, a.sum / a.n
}

func (a *average) Reset() { a.sum, a.n = 0, 0 }

// String shows the metric as MXNet prints one: its name and value
// ("EvalMetric: {'accuracy': 0.75}"), NaN before any update.
func (a *average) String() string {
	_, v := a.Get()
	return fmt.Sprintf("EvalMetric: {'%s': %v}", a.name, v)
}

func checkBatch(name string, labels, preds *eager.NDArray) error {
	if labels == nil || preds == nil {
		return fmt.Errorf("%s: Update needs labels and predictions", name)
	}
	if labels.NDim() == 0 || preds.NDim() == 0 {
		return fmt.Errorf("%s: labels %v and predictions %v need a batch axis", name, labels.Shape(), preds.Shape())
	}
	if labels.Shape()[0] != preds.Shape()[0] {
		return fmt.Errorf("%s: %d labels but %d predictions", name, labels.Shape()[0], preds.Shape()[0])
	}
	return nil
}

// classScores returns the labels as class ids and the predictions as rows
// of class scores, refusing shapes other than labels (N,) with preds (N, C).
func classScores(name string, labels, preds *eager.NDArray) (ids []int, scores []float64, classes int, err error) {
	if err := checkBatch(name, labels, preds); err != nil {
		return nil, nil, 0, err
	}
	if labels.Size() != labels.Shape()[0] {
		return nil, nil, 0, fmt.Errorf("%s: labels must hold one class id per sample, got shape %v", name, labels.Shape())
	}
	n := labels.Shape()[0]
	ids = make([]int, n)
	for i, v := range labels.Float64s() {
		ids[i] = int(math.Round(v))
	}
	if n == 0 {
		return ids, nil, 0, nil
	}
	return ids, preds.Float64s(), preds.Size() / n, nil
}

// ---- Accuracy ----

type accuracy struct{ average }

// NewAccuracy counts the fraction of samples whose predicted class is the
// label. Predictions are scores (N, C), whose argmax is the class, or
// class ids (N,).
func NewAccuracy() Metric { return &accuracy{average{name: "accuracy"}} }

func (m *accuracy) Update(labels, preds *eager.NDArray) error {
	ids, scores, c, err := classScores(m.name, labels, preds)
	if err != nil {
		return err
	}
	asIDs := preds.Shape().Equal(labels.Shape())
	for i, id := range ids {
		row := scores[i*c : (i+1)*c]
		pred := argmax(row)
		if asIDs {
			pred = int(math.Round(row[0]))
		}
		if pred == id {
			m.sum++
		}
	}
	m.n += float64(len(ids))
	return nil
}

func argmax(row []float64) int {
	best := 0
	for j, v := range row {
		if v > row[best] {
			best = j
		}
	}
	return best
}

// ---- Top-k accuracy ----

type topK struct {
	average
	k int
}

// NewTopKAccuracy counts the fraction of samples whose label is among the
// k highest-scoring classes of preds (N, C).
func NewTopKAccuracy(k int) Metric {
	if k < 1 {
		k = 1
	}
	return &topK{average{name: fmt.Sprintf("top_k_accuracy_%d", k)}, k}
}

func (m *topK) Update(labels, preds *eager.NDArray) error {
	ids, scores, c, err := classScores(m.name, labels, preds)
	if err != nil {
		return err
	}
	if len(ids) > 0 && preds.NDim() != 2 {
		return fmt.Errorf("%s: predictions must be scores of shape (N, C), got %v", m.name, preds.Shape())
	}
	for i, id := range ids {
		row := scores[i*c : (i+1)*c]
		if id < 0 || id >= c {
			continue
		}
		// The label is in the top k when fewer than k classes score higher
		// (ties count in the label's favour, as with a stable sort).
		higher := 0
		for _, v := range row {
			if v > row[id] {
				higher++
			}
		}
		if higher < m.k {
			m.sum++
		}
	}
	m.n += float64(len(ids))
	return nil
}

// ---- Cross-entropy ----

type crossEntropy struct{ average }

// NewCrossEntropy averages -log p[label] over samples, with predictions
// the class probabilities (N, C) and a small epsilon (1e-12) against log 0.
func NewCrossEntropy() Metric { return &crossEntropy{average{name: "cross-entropy"}} }

func (m *crossEntropy) Update(labels, preds *eager.NDArray) error {
	ids, probs, c, err := classScores(m.name, labels, preds)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if id < 0 || id >= c {
			return fmt.Errorf("%s: label %d of sample %d is not a class of predictions %v", m.name, id, i, preds.Shape())
		}
		m.sum -= math.Log(probs[i*c+id] + 1e-12)
	}
	m.n += float64(len(ids))
	return nil
}

// ---- MAE and MSE ----

type regression struct {
	average
	square bool
}

// NewMAE averages the mean absolute error per sample over samples.
// Labels and predictions hold the same number of values per sample ((N,)
// and (N, 1) agree).
func NewMAE() Metric { return &regression{average{name: "mae"}, false} }

// NewMSE averages the mean squared error per sample over samples.
func NewMSE() Metric { return &regression{average{name: "mse"}, true} }

func (m *regression) Update(labels, preds *eager.NDArray) error {
	if err := checkBatch(m.name, labels, preds); err != nil {
		return err
	}
	if labels.Size() != preds.Size() {
		return fmt.Errorf("%s: labels %v and predictions %v differ in size", m.name, labels.Shape(), preds.Shape())
	}
	n := labels.Shape()[0]
	if n == 0 {
		return nil
	}
	l, p := labels.Float64s(), preds.Float64s()
	per := len(l) / n
	for i := 0; i < n; i++ {
		var s float64
		for j := i * per; j < (i+1)*per; j++ {
			d := p[j] - l[j]
			if m.square {
				s += d * d
			} else {
				s += math.Abs(d)
			}
		}
		m.sum += s / float64(per)
	}
	m.n += float64(n)
	return nil
}
