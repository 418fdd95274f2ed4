// Package metric holds Gluon's evaluation metrics (mx.metric): Accuracy,
// TopKAccuracy, CrossEntropy, MAE and MSE, each behind the Metric
// interface. It owns the measures only and works on NDArrays of labels
// and predictions; it imports eager and must not import nn, graph or
// anything above them.
//
// A metric accumulates over batches: Update adds a batch, Get returns the
// name and the value so far (NaN before any update), Reset starts again.
//
//	acc := metric.NewAccuracy()
//	for batch, err := range loader.Epoch() {
//		…
//		out := net.Forward(batch[0]).(*eager.NDArray)
//		if err := acc.Update(batch[1], out); err != nil {
//			…
//		}
//	}
//	_, value := acc.Get()
//
// Labels come first, as in Gluon. Class metrics take labels (N,) holding
// class ids and predictions (N, C) of scores; Update reports shapes that
// do not fit with an error that names the metric.
package metric
