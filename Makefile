# The one test command: `make test`. CI runs exactly this (.ci/run).
# It needs the Go toolchain (go.mod names the version); modules come from
# the Go module proxy, and the Fashion-MNIST dataset from Debian's
# dataset-fashion-mnist package, which `make deps` installs when missing.

GO ?= go

.PHONY: test quick deps check lint lines race training zoo mpi fuzz bench run

test: deps check race training zoo mpi fuzz

FASHION_MNIST ?= /usr/share/datasets/fashion-mnist
CHROMIUM_PKGS ?= chromium fonts-liberation
JUPYTER_PKGS ?= python3-jupyter-client jupyter-client jupyter-nbconvert python3-nbconvert \
	python3-nbclient python3-nbformat jupyter-console python3-jupyter-console python3-ipykernel
WEBUI_PKGS ?= jupyter-notebook python3-selenium chromium-driver
TORCH_PKGS ?= python3-torch python3-torchvision
MPI_PKGS ?= libopenmpi-dev openmpi-bin pkg-config

comma := ,
# need CHECK,WHAT,PACKAGES,TESTS: says WHAT is there when the shell command
# CHECK succeeds; else installs PACKAGES with apt (as root, updating the
# package lists if the first try fails), or says which TESTS are skipped
# without them.
need = @if { $(1); } >/dev/null 2>&1; then \
		echo "$(2): present"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing $(2)"; \
		(DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(3) >/dev/null 2>&1 || \
		 (apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(3) >/dev/null 2>&1)) || \
		echo "could not install $(3): $(4) will say it is skipped"; \
	else \
		echo "$(2) is missing: run 'sudo apt-get install $(3)' ($(4) is skipped without it)"; \
	fi

# What the tests need beyond Go: the Fashion-MNIST files (the training
# test uses them), Chromium (the browser test of viz screenshots its pages;
# it fetches echarts with npm), tmux (the REPL's terminal test types into
# it), the Jupyter client (the kernel's conformance test starts the
# kernel with it) and the classic Notebook with Selenium and chromedriver
# (the kernel's web UI test works a notebook in Chromium), and PyTorch with
# torchvision (the model zoo is checked against torchvision's networks,
# and ONNX import against models that torch.onnx.export wrote). Installed
# with apt when missing and possible; without them those tests say they
# are skipped.
deps:
	$(call need,command -v tmux,tmux,tmux,the REPL's terminal test)
	$(call need,test -f $(FASHION_MNIST)/train-images-idx3-ubyte.gz,Fashion-MNIST,dataset-fashion-mnist,the training test and tutorial)
	$(call need,command -v chromium,chromium,$(CHROMIUM_PKGS),the browser test)
	$(call need,/usr/bin/python3 -c 'import jupyter_client',the Jupyter client,$(JUPYTER_PKGS),the kernel's conformance test)
	$(call need,command -v jupyter-notebook && command -v chromedriver && /usr/bin/python3 -c 'import selenium',the classic Notebook$(comma) Selenium and chromedriver,$(WEBUI_PKGS),the kernel's web UI test)
	$(call need,/usr/bin/python3 -c 'import torch$(comma) torchvision',PyTorch and torchvision,$(TORCH_PKGS),the torchvision and PyTorch ONNX tests)
	@command -v npm >/dev/null 2>&1 || echo "npm is missing: the browser test needs it to fetch echarts (apt-get install npm)"

# The edit-test loop: every unit test, without the race detector, the
# installs, the training run or the fuzzers.
quick:
	$(GO) test -count=1 ./...

# Formatting, static checks (staticcheck at a pinned version, zero
# findings) and the line figures.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
check: lint lines

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

# Lines of Go (tests and generated files left out) that each package is
# meant to stay within.
# A figure to watch, not a gate: a package past its budget has likely
# taken on a second job, and is the next one to split.
LINE_BUDGET ?= accel:3500 ops:10100 eager:1300 graph:3500 format/mxnet:1800 format/onnx:4400 nn:4400 nn/vision:3000 nn/loss:600 nn/optim:1000 \
	nn/metric:400 data:1000 \
	viz:3000 display:1000 repl:4200 repl/term:1300 repl/worker:1800 kernel:1500 tutorial:800 \
	tutorial/walk:700 bench:1100 cmd/hybridgo:1300
lines:
	@echo "lines of Go per package (tests and generated files left out) / budget:"
	@for b in $(LINE_BUDGET); do \
		pkg=$${b%%:*}; budget=$${b##*:}; \
		n=$$(cat $$(grep -L '^// Code generated .* DO NOT EDIT\.$$' $$(ls $$pkg/*.go | grep -v '_test\.go$$')) | wc -l); \
		mark=""; [ $$n -gt $$budget ] && mark="  over by $$((n - budget))"; \
		printf '  %-14s %6d / %-6d%s\n' $$pkg $$n $$budget "$$mark"; \
	done

# Every test, with the race detector (the registry walk, gradient checks,
# printing goldens, examples).
race:
	$(GO) test -race -count=1 ./...

# The training test (LeNet on Fashion-MNIST to 85% test accuracy, about a
# minute) runs without the race detector, which would make it ten times slower.
training:
	$(GO) test -count=1 -run TrainFashionMNIST -v ./internal/train/

# The model-zoo checks that a race build cuts down: every network against
# ONNX Runtime, and VGG and AlexNet (the widest dense layers) against
# torchvision; minutes and gigabytes under the race detector, about two
# minutes in all without it.
zoo:
	$(GO) test -count=1 -run '^TestTorchvision$$' ./nn/vision/
	$(GO) test -count=1 -run '^TestModelZooONNXRuntime$$' ./format/onnx/

# Data-parallel training over MPI (built with -tags mpi, which needs cgo
# and OpenMPI): the tests start their own jobs with mpirun -np 2 on this
# machine: two ranks match one process, a rank that dies or hangs ends
# the job in seconds, LeNet on two ranks reaches the accuracy of one, and
# hybridgo train -kvstore dist_sync and the script of docs/distributed.md
# (hybridgo run) work under mpirun. About 40 seconds.
mpi:
	$(call need,pkg-config --exists ompi-c && command -v mpirun,OpenMPI,$(MPI_PKGS),the MPI tests)
	@if pkg-config --exists ompi-c && command -v mpirun >/dev/null; then \
		set -e; \
		$(GO) vet -tags mpi ./internal/mpi/... ./nn/optim/ ./internal/train/ ./cmd/hybridgo/; \
		$(STATICCHECK) -tags mpi ./internal/mpi/... ./nn/optim/ ./internal/train/ ./cmd/hybridgo/; \
		$(GO) test -tags mpi -count=1 -run 'MPI|Singleton' -v ./internal/mpi/ ./nn/optim/ ./internal/train/ ./cmd/hybridgo/; \
	else echo "OpenMPI is missing: the MPI tests are skipped"; fi

# A short run of each fuzz target over the model-file readers (longer runs:
# go test -run '^$$' -fuzz FuzzDecodeSymbol -fuzztime 5m ./format/mxnet/).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeParams$$' -fuzztime 20000x ./format/mxnet/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeModel$$' -fuzztime 20000x ./format/onnx/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeSymbol$$' -fuzztime 20000x ./format/mxnet/
	$(GO) test -run '^$$' -fuzz '^FuzzReadIDX$$' -fuzztime 20000x ./data/

# Benchmarks: GEMM GFLOP/s at n = 128…1024, LeNet-sized convolution, ops.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 300ms ./accel/ ./ops/ ./eager/
	$(GO) test -run '^$$' -bench LeNetTrainingStep -benchtime 5x ./graph/

run:
	$(GO) run ./cmd/hybridgo
