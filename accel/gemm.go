package accel

// Float is the element type of the floating-point kernels.
type Float interface{ ~float32 | ~float64 }

// Gemm computes C = alpha*op(A)*op(B) + beta*C, row-major.
func Gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s T
			for p := 0; p < k; p++ {
				av := a[i*lda+p]
				if transA {
					av = a[p*lda+i]
				}
				bv := b[p*ldb+j]
				if transB {
					bv = b[j*ldb+p]
				}
				s += av * bv
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}
