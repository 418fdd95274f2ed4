// Package loss holds Gluon's losses (gluon.loss): L2Loss, L1Loss,
// SoftmaxCrossEntropyLoss, SigmoidBinaryCrossEntropyLoss, HuberLoss and
// KLDivLoss. It owns the loss functions only; it imports nn for the
// block they are, and must not import optim, metric or anything above nn.
//
// A loss is a hybrid block: ForwardN(pred, label[, sampleWeight]) returns
// one output, the per-sample loss of shape (batch,), the element-wise loss
// averaged over every axis but the batch axis, as Gluon's losses return
// it. Loss does the same and returns that tensor:
//
//	lossFn := loss.NewSoftmaxCrossEntropyLoss()
//	var l *eager.NDArray
//	eager.Record(func() {
//		l = lossFn.Loss(net.Forward(x), y).(*eager.NDArray)
//	})
//	err := l.Backward() // gradients of the summed per-sample losses
//
// A sample weight is multiplied (broadcasting) into the element-wise loss
// before the average; Weight scales the whole loss. Each constructor takes
// its options struct, whose zero value is Gluon's default: sparse class
// labels and unnormalised scores for SoftmaxCrossEntropyLoss, logits for
// SigmoidBinaryCrossEntropyLoss, log-probabilities for KLDivLoss.
//
// Like any hybrid block, a loss can be hybridized; inside a hybridized
// network's forward it is traced with the rest of the graph.
package loss
