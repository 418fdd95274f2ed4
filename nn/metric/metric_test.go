package metric_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hybridgo/hybridgo/eager"
	"github.com/hybridgo/hybridgo/nn/metric"
)

func TestMetrics(t *testing.T) {
	scores := eager.Array([]float32{
		0.1, 0.7, 0.2, // argmax 1, order 1 2 0
		0.5, 0.3, 0.2, // argmax 0, order 0 1 2
		0.2, 0.2, 0.6, // argmax 2, order 2 0=1
		0.3, 0.4, 0.3, // argmax 1
	}, 4, 3)
	labels := eager.Array([]float32{1, 2, 0, 1}, 4)
	type batch struct{ labels, preds *eager.NDArray }
	for _, c := range []struct {
		m       metric.Metric
		name    string
		batches []batch
		want    float64
	}{
		{metric.NewAccuracy(), "accuracy", []batch{{labels, scores}}, 0.5},
		{metric.NewAccuracy(), "accuracy", []batch{{labels, scores}, {eager.Array([]float32{1, 1}, 2), eager.Array([]float32{1, 0}, 2)}}, 3.0 / 6},
		{metric.NewAccuracy(), "accuracy", []batch{{eager.Array([]int32{2, 0, 1}, 3), eager.Array([]int64{2, 0, 0}, 3)}}, 2.0 / 3},
		{metric.NewTopKAccuracy(1), "top_k_accuracy_1", []batch{{labels, scores}}, 0.5},
		{metric.NewTopKAccuracy(2), "top_k_accuracy_2", []batch{{labels, scores}}, 0.75},
		{metric.NewTopKAccuracy(2), "top_k_accuracy_2", []batch{{eager.Array([]float32{0, 2}, 2), eager.Array([]float32{0.1, 0.7, 0.2, 0.5, 0.3, 0.2}, 2, 3)}}, 0},
		{metric.NewCrossEntropy(), "cross-entropy", []batch{{labels, scores}},
			-(math.Log(0.7) + math.Log(0.2) + math.Log(0.2) + math.Log(0.4)) / 4},
		{metric.NewMAE(), "mae", []batch{
			{eager.Array([]float32{1, 2}, 2), eager.Array([]float32{1.5, 0}, 2, 1)},
			{eager.Array([]float32{0, 0, 0, 0, 0, 0}, 3, 2), eager.Array([]float32{1, 3, -2, 0, 0, 1}, 3, 2)},
		}, (0.5 + 2 + 2 + 1 + 0.5) / 5},
		{metric.NewMSE(), "mse", []batch{
			{eager.Array([]float32{1, 2}, 2), eager.Array([]float32{1.5, 0}, 2)},
			{eager.Array([]float32{0, 0, 0, 0, 0, 0}, 3, 2), eager.Array([]float32{1, 3, -2, 0, 0, 1}, 3, 2)},
		}, (0.25 + 4 + 5 + 2 + 0.5) / 5},
	} {
		for _, b := range c.batches {
			if err := c.m.Update(b.labels, b.preds); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		name, v := c.m.Get()
		if name != c.name || math.Abs(v-c.want) > 1e-6 {
			t.Errorf("%s: Get() = %s %v, want %s %v", c.name, name, v, c.name, c.want)
		}
		c.m.Reset()
		if _, v := c.m.Get(); !math.IsNaN(v) {
			t.Errorf("%s: %v after Reset, want NaN", c.name, v)
		}
	}
}

func TestMetricErrors(t *testing.T) {
	for _, c := range []struct {
		m             metric.Metric
		labels, preds *eager.NDArray
		want          string
	}{
		{metric.NewAccuracy(), eager.Zeros(3), eager.Zeros(2, 3), "3 labels but 2 predictions"},
		{metric.NewAccuracy(), eager.Zeros(2, 2), eager.Zeros(2, 3), "one class id per sample"},
		{metric.NewCrossEntropy(), eager.Array([]float32{5}, 1), eager.Zeros(1, 3), "not a class"},
		{metric.NewTopKAccuracy(2), eager.Zeros(2), eager.Zeros(2), "(N, C)"},
		{metric.NewMSE(), eager.Zeros(2), eager.Zeros(2, 2), "differ in size"},
	} {
		err := c.m.Update(c.labels, c.preds)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: got %v, want an error containing %q", c.m, err, c.want)
		}
	}
}

func ExampleNewAccuracy() {
	acc := metric.NewAccuracy()
	preds := eager.Array([]float32{0.3, 0.7, 0.9, 0.1, 0.4, 0.6}, 3, 2)
	labels := eager.Array([]float32{1, 0, 0}, 3)
	if err := acc.Update(labels, preds); err != nil {
		panic(err)
	}
	name, value := acc.Get()
	fmt.Printf("%s %.3f\n", name, value)
	acc.Reset()
	fmt.Println(acc) // as MXNet prints a metric
	// Output:
	// accuracy 0.667
	// EvalMetric: {'accuracy': NaN}
}
