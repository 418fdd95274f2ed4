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
// # Data-parallel training
//
// TrainerOptions.KVStore "dist_sync" (alias "horovod", Gluon's kvstore
// argument) trains over the processes that mpirun started, as Horovod
// does: Step sums the gradients over the workers with MPI's allreduce,
// packed in buckets of BucketBytes, and averages them, so that N workers
// on b samples each step as one process on N*b; ScaleLR multiplies the
// learning rate by N. The parameters are broadcast from rank 0 before the
// first update (BroadcastParameters); Overlap starts each bucket's
// allreduce during the backward pass, from gradient hooks. MPI needs a
// build with -tags mpi; NewKVStore says so otherwise. docs/distributed.md
// tells how to run it on several machines.
//
//	trainer, err := optim.NewTrainer(net.CollectParams(), opt, optim.TrainerOptions{KVStore: "dist_sync"})
//	defer trainer.KVStore().Close()
//	loader, err := data.NewDataLoader(ds, data.LoaderOptions{BatchSize: 64, Shuffle: true,
//		NumShards: trainer.NumWorkers(), ShardIndex: trainer.Rank()})
//	…
//	trainer.Step(64) // this worker's batch
//
// An optimizer is an Optimizer: a new one embeds OptimizerBase and
// implements CreateState and Update, and any Trainer can drive it.
package optim
