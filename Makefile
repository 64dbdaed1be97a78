# `make` builds the release binary and puts it at ./fastchess (./fastchess.exe on Windows),
# the way OpenBench's client and fishtest's worker build their match runner (`make -j
# CXX=...` in the repository's root, then `./fastchess --version`). Invoked as `fastchess`,
# blitz-arena reads fastchess's command line and prints fastchess's lines (docs/fastchess.md).
# It needs cargo; CXX is not used. GIT_SHA and GIT_DATE (fishtest passes both) go into the
# version line, as fastchess's Makefile puts them there.
#
# `make tests` builds ./fastchess-tests: the same binary, which under that name plays two games
# between its built-in engines through the fastchess command line and exits 0 if they were
# played and counted. blitz-arena's own tests are `cargo test --release`.

ifeq ($(OS),Windows_NT)
EXT := .exe
endif

EXE ?= fastchess$(EXT)
TESTS ?= fastchess-tests$(EXT)
CARGO ?= cargo
GIT_SHA ?= $(shell git rev-parse --short=8 HEAD 2>/dev/null)
GIT_DATE ?= $(shell git show -s --date=format:%Y%m%d --format=%cd HEAD 2>/dev/null)

export BLITZ_ARENA_GIT_SHA := $(GIT_SHA)
export BLITZ_ARENA_GIT_DATE := $(GIT_DATE)

.PHONY: all tests clean

all:
	$(CARGO) build --release --locked
	cp target/release/blitz-arena$(EXT) $(EXE)

tests:
	$(CARGO) build --release --locked
	cp target/release/blitz-arena$(EXT) $(TESTS)

clean:
	rm -f $(EXE) $(TESTS)
