package nn

import (
	"fmt"
	"reflect"

	"github.com/hybridgo/hybridgo/ops"
)

// Every layer constructor takes Gluon's required arguments, then at most
// one options value of its family (ConvOptions, PoolOptions, …), whose
// zero value is Gluon's defaults. The helpers here read and check them,
// so that every constructor reports a mistake the same way: the
// constructor's name, the option's name and what is wrong with it.

// OneOption returns the options value a constructor was given, or the
// zero value for none; more than one panics, naming the constructor,
// rather than dropping the rest. The layers use it, and so can any block
// whose constructor takes Gluon-style options (nn/vision's models do).
func OneOption[O any](constructor string, opts []O) O {
	switch len(opts) {
	case 0:
		var zero O
		return zero
	case 1:
		return opts[0]
	}
	panic(fmt.Errorf("%s takes at most one %s, got %d", constructor, reflect.TypeFor[O]().Name(), len(opts)))
}

// spatial expands a size option (a kernel, strides, padding, …) to one
// value per spatial dim: one value serves every dim, nd values are one
// each. Each value must be at least least. Nil stays nil (the default).
func spatial(constructor, option string, sizes []int, nd, least int) []int {
	if sizes == nil {
		return nil
	}
	want := "1 value"
	if nd > 1 {
		want = fmt.Sprintf("1 or %d values", nd)
	}
	if len(sizes) != 1 && len(sizes) != nd {
		panic(fmt.Errorf("%s: %s %v must have %s", constructor, option, sizes, want))
	}
	out := make([]int, nd)
	for i := range out {
		out[i] = sizes[min(i, len(sizes)-1)]
		if out[i] < least {
			panic(fmt.Errorf("%s: %s %v must be at least %d", constructor, option, sizes, least))
		}
	}
	return out
}

// required is spatial for a size that has no default (a kernel, a pool
// size).
func required(constructor, option string, sizes []int, nd int) []int {
	if len(sizes) == 0 {
		panic(fmt.Errorf("%s: %s is required (1 value, or 1 per spatial dim)", constructor, option))
	}
	return spatial(constructor, option, sizes, nd, 1)
}

// checkLayout accepts "" (the default) and the channels-first layout of
// nd spatial dims, the only one the kernels support.
func checkLayout(constructor, layout string, nd int) {
	want := channelsFirst[nd]
	if layout != "" && layout != want {
		panic(fmt.Errorf("%s: Layout %q is not supported: the data must be channels-first (%s); transpose it first", constructor, layout, want))
	}
}

// channelsFirst names the channels-first layout of 1 and 2 spatial dims.
var channelsFirst = [...]string{1: "NCW", 2: "NCHW"}

// checkPositive panics unless n > 0.
func checkPositive(constructor, name string, n int) {
	if n <= 0 {
		panic(fmt.Errorf("%s: %s=%d must be positive", constructor, name, n))
	}
}

// checkFloat accepts the parameter dtypes the layers support: float32
// (the zero value) and float64.
func checkFloat(constructor string, dtype ops.DType) {
	if dtype != ops.Float32 && dtype != ops.Float64 {
		panic(fmt.Errorf("%s: DType %v is not supported (float32 and float64 are)", constructor, dtype))
	}
}
