# The one test command: `make test`. CI runs exactly this (.ci/run).
# It needs only the Go toolchain (go.mod names the version); modules come
# from the Go module proxy.

GO ?= go

.PHONY: test check unit race fuzz bench run

test: check race fuzz

# Formatting and static checks.
check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# Every test, with the race detector (the registry walk, gradient checks,
# printing goldens, examples).
race:
	$(GO) test -race -count=1 ./...

# A short run of each fuzz target over the model-file readers (longer runs:
# go test -run '^$$' -fuzz FuzzFromJSON -fuzztime 5m ./graph/).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeParams$$' -fuzztime 20000x ./graph/
	$(GO) test -run '^$$' -fuzz '^FuzzFromJSON$$' -fuzztime 20000x ./graph/

# Every test without the race detector (quicker while editing).
unit:
	$(GO) test -count=1 ./...

# Benchmarks: GEMM GFLOP/s at n = 128…1024, LeNet-sized convolution, ops.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 300ms ./accel/ ./ops/ ./eager/
	$(GO) test -run '^$$' -bench LeNetTrainingStep -benchtime 5x ./graph/

run:
	$(GO) run ./cmd/hybridgo
