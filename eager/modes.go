package eager

// The autograd modes are two flags of the current State, one for
// recording and one for training, as MXNet keeps them per thread. Nested
// Record/Pause calls restore what was there before.

// IsRecording reports whether ops are being recorded for autograd.
func IsRecording() bool { return current.Load().recording.Load() }

// IsTraining reports whether ops run in training mode (Dropout drops,
// BatchNorm uses batch statistics).
func IsTraining() bool { return current.Load().training.Load() }

// SetRecording sets the recording flag and returns its previous value.
func SetRecording(on bool) bool { return current.Load().recording.Swap(on) }

// SetTraining sets the training flag and returns its previous value.
func SetTraining(on bool) bool { return current.Load().training.Swap(on) }

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

// withModes sets the flags of the current state for fn and restores them
// in that same state afterwards.
func withModes(rec, train bool, fn func()) {
	s := CurrentState()
	prevRec := s.recording.Swap(rec)
	prevTrain := s.training.Swap(train)
	defer func() {
		s.recording.Store(prevRec)
		s.training.Store(prevTrain)
	}()
	fn()
}
