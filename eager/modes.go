package eager

import "sync/atomic"

// The autograd modes are process-wide, as in MXNet's default thread: one
// flag for recording, one for training. Nested Record/Pause calls restore
// what was there before.
var (
	recording atomic.Bool
	training  atomic.Bool
)

// IsRecording reports whether ops are being recorded for autograd.
func IsRecording() bool { return recording.Load() }

// IsTraining reports whether ops run in training mode (Dropout drops,
// BatchNorm uses batch statistics).
func IsTraining() bool { return training.Load() }

// SetRecording sets the recording flag and returns its previous value.
func SetRecording(on bool) bool { return recording.Swap(on) }

// SetTraining sets the training flag and returns its previous value.
func SetTraining(on bool) bool { return training.Swap(on) }

// Record runs fn with recording on and training mode on, like MXNet's
// `with autograd.record():`.
func Record(fn func()) { withModes(true, true, fn) }

// Pause runs fn with recording off and training mode off, like
// `with autograd.pause():`.
func Pause(fn func()) { withModes(false, false, fn) }

// TrainMode runs fn in training mode without changing recording.
func TrainMode(fn func()) { withModes(IsRecording(), true, fn) }

// PredictMode runs fn in prediction mode without changing recording.
func PredictMode(fn func()) { withModes(IsRecording(), false, fn) }

func withModes(rec, train bool, fn func()) {
	prevRec := SetRecording(rec)
	prevTrain := SetTraining(train)
	defer func() {
		SetRecording(prevRec)
		SetTraining(prevTrain)
	}()
	fn()
}
