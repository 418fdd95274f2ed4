package eager

import (
	"slices"
	"testing"
)

// in runs fn with s current.
func in(s *State, fn func()) {
	restore := UseState(s)
	defer restore()
	fn()
}

func draws(n int) []float32 { return RandomUniform(n).Float32s() }

func TestStatesHaveTheirOwnModes(t *testing.T) {
	a, b := NewState(), NewState()
	in(a, func() {
		SetRecording(true)
		SetTraining(true)
	})
	tests := []struct {
		name          string
		s             *State
		record, train bool
	}{
		{"a, where both were set", a, true, true},
		{"b, fresh", b, false, false},
		{"the default state", DefaultState(), false, false},
	}
	for _, tt := range tests {
		in(tt.s, func() {
			if IsRecording() != tt.record || IsTraining() != tt.train {
				t.Errorf("%s: recording %v, training %v; want %v, %v", tt.name, IsRecording(), IsTraining(), tt.record, tt.train)
			}
		})
	}
}

func TestRecordRestoresTheStateItChanged(t *testing.T) {
	a, b := NewState(), NewState()
	in(a, func() {
		Record(func() {
			// Switching states inside Record leaves the other state alone.
			in(b, func() {
				if IsRecording() {
					t.Error("b is recording while a records")
				}
			})
		})
		if IsRecording() || IsTraining() {
			t.Error("a still records after Record returned")
		}
	})
}

func TestStatesHaveTheirOwnRandomStreams(t *testing.T) {
	var want []float32
	in(NewState(), func() {
		Seed(7)
		want = draws(5)
	})
	a, b := NewState(), NewState()
	in(b, func() { Seed(7) })
	in(a, func() {
		Seed(7)
		draws(3) // a's draws do not move b's stream
	})
	var got []float32
	in(b, func() { got = draws(5) })
	if !slices.Equal(got, want) {
		t.Errorf("b drew %v after a drew, want %v as from a fresh state", got, want)
	}
	var fresh, fresh2 []float32
	in(NewState(), func() { fresh = draws(3) })
	in(NewState(), func() { fresh2 = draws(3) })
	if !slices.Equal(fresh, fresh2) {
		t.Errorf("two new states drew %v and %v: a new state starts as a new process", fresh, fresh2)
	}
}

func TestUseStateNests(t *testing.T) {
	a, b := NewState(), NewState()
	restoreA := UseState(a)
	restoreB := UseState(b)
	afterB := CurrentState()
	restoreB()
	afterRestoreB := CurrentState()
	restoreA()
	tests := []struct {
		name      string
		got, want *State
	}{
		{"inside both", afterB, b},
		{"after b's restore", afterRestoreB, a},
		{"after a's restore", CurrentState(), DefaultState()},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: the current state is %p, want %p", tt.name, tt.got, tt.want)
		}
	}
}

func TestSlotIsPerStateAndMadeOnce(t *testing.T) {
	type key struct{}
	made := 0
	newCount := func() any { made++; return new(int) }
	a, b := NewState(), NewState()
	pa := a.Slot(key{}, newCount).(*int)
	*pa = 3
	if got := *a.Slot(key{}, newCount).(*int); got != 3 {
		t.Errorf("a's slot holds %d, want the 3 stored", got)
	}
	if got := *b.Slot(key{}, newCount).(*int); got != 0 {
		t.Errorf("b's slot holds %d, want a fresh 0", got)
	}
	if made != 2 {
		t.Errorf("the slot was made %d times, want once per state (2)", made)
	}
}

// BenchmarkIsRecording is the cost every op pays to read the mode.
func BenchmarkIsRecording(b *testing.B) {
	n := 0
	for b.Loop() {
		if IsRecording() {
			n++
		}
	}
	if n != 0 {
		b.Fatal("recording")
	}
}
