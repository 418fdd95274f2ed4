# The one test command: `make test`. CI runs exactly this (.ci/run).
# It needs only the Go toolchain (go.mod names the version); modules come
# from the Go module proxy.

GO ?= go

.PHONY: test check unit race bench run

test: check race

# Formatting and static checks.
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# Every test, with the race detector (the registry walk, gradient checks,
# printing goldens, examples).
race:
	$(GO) test -race -count=1 ./...

# Every test without the race detector (quicker while editing).
unit:
	$(GO) test -count=1 ./...

# Benchmarks: GEMM GFLOP/s at n = 128…1024, LeNet-sized convolution, ops.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 300ms ./accel/ ./ops/ ./eager/

run:
	$(GO) run ./cmd/hybridgo
