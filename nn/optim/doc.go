// Package optim trains parameters: the Trainer (Gluon's gluon.Trainer),
// the optimizers it drives (mx.optimizer: SGD, Adam, AdamW, RMSProp,
// AdaGrad) and learning-rate schedules (mx.lr_scheduler). It owns how
// parameters are updated from their gradients; it imports nn for
// Parameter and must not import loss, metric or anything above nn.
// Distributed updates (a kvstore) belong here too.
//
// A training step records the forward pass and the loss, computes the
// gradients, and lets the trainer update every parameter in place:
//
//	trainer, err := optim.NewTrainer(net.CollectParams(), optim.NewSGD(optim.SGDOptions{LR: 0.1, Momentum: 0.9}))
//	…
//	var l *eager.NDArray
//	eager.Record(func() { l = lossFn.Loss(net.Forward(x), y).(*eager.NDArray) })
//	if err := l.Backward(); err != nil { … }
//	if err := trainer.Step(batchSize); err != nil { … }
//
// Step rescales the gradients by 1/batchSize, as Gluon does, and applies
// each parameter's LRMult and WDMult. Each optimizer has an options
// struct whose zero values are MXNet's defaults; its Schedule field takes
// an LRSchedule (FactorSchedule, MultiFactorSchedule, CosineSchedule,
// WarmupSchedule) that sets the rate at each update.
//
// An optimizer is an Optimizer: a new one embeds OptimizerBase and
// implements CreateState and Update, and any Trainer can drive it.
package optim
