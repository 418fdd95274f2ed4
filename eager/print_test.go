package eager

import (
	"math"
	"testing"
)

// The expected strings are what numpy (and so MXNet) prints for the same
// arrays, with hybridgo's footer.
func TestPrinting(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ints := make([]int32, 2000)
	for i := range ints {
		ints[i] = int32(i)
	}
	cases := []struct {
		name string
		a    *NDArray
		want string
	}{
		{"whole floats", Array([]float32{1, 2, 3}),
			"[1. 2. 3.]\n<NDArray 3 @cpu(0)>"},
		{"matrix with a negative", Array([]float32{1, 2, 3, -4, 5, 6}, 2, 3),
			"[[ 1.  2.  3.]\n [-4.  5.  6.]]\n<NDArray 2x3 @cpu(0)>"},
		{"fractions padded right", Array([]float32{0.1, 0.25, 1.5}),
			"[0.1  0.25 1.5 ]\n<NDArray 3 @cpu(0)>"},
		{"sign column", Array([]float64{-0.5, 0.01, 0.02}),
			"[-0.5   0.01  0.02]\n<NDArray 3 float64 @cpu(0)>"},
		{"scientific", Array([]float64{1e-5, 1, 2.5}),
			"[1.0e-05 1.0e+00 2.5e+00]\n<NDArray 3 float64 @cpu(0)>"},
		{"nan and inf", Array([]float32{nan, 1, inf}),
			"[nan  1. inf]\n<NDArray 3 @cpu(0)>"},
		{"ints", Array([]int{1, -20, 3}),
			"[  1 -20   3]\n<NDArray 3 int64 @cpu(0)>"},
		{"bools", Array([]bool{true, false}),
			"[ True False]\n<NDArray 2 bool @cpu(0)>"},
		{"3-D", Zeros(2, 2, 2),
			"[[[0. 0.]\n  [0. 0.]]\n\n [[0. 0.]\n  [0. 0.]]]\n<NDArray 2x2x2 @cpu(0)>"},
		{"wrapped at 75 columns", Arange(0, 30, 1),
			"[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]\n<NDArray 30 @cpu(0)>"},
		{"summarised vector", Array(ints),
			"[   0    1    2 ... 1997 1998 1999]\n<NDArray 2000 int32 @cpu(0)>"},
		{"summarised matrix", Array(ints, 40, 50),
			"[[   0    1    2 ...   47   48   49]\n" +
				" [  50   51   52 ...   97   98   99]\n" +
				" [ 100  101  102 ...  147  148  149]\n" +
				" ...\n" +
				" [1850 1851 1852 ... 1897 1898 1899]\n" +
				" [1900 1901 1902 ... 1947 1948 1949]\n" +
				" [1950 1951 1952 ... 1997 1998 1999]]\n<NDArray 40x50 int32 @cpu(0)>"},
		{"float32 shortest digits", Array([]float32{0.7615942, 1.9280552}),
			"[0.7615942 1.9280552]\n<NDArray 2 @cpu(0)>"},
		{"eight decimals at most", Array([]float64{1.0 / 3, 2}),
			"[0.33333333 2.        ]\n<NDArray 2 float64 @cpu(0)>"},
	}
	for _, c := range cases {
		if got := c.a.String(); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

func TestPrintingNeverPanics(t *testing.T) {
	for _, a := range []*NDArray{
		{shape: nil, dtype: 0, data: []float32{3}},
		Array([]float32{1}, 1, 1, 1, 1),
		Full(1e20, 3),
		Array([]float32{float32(math.Inf(-1)), 1e-9}),
	} {
		if a.String() == "" {
			t.Errorf("empty printing for %v", a.shape)
		}
	}
}
