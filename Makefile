# `make` builds the release binary and puts it at ./fastchess, the way OpenBench's client
# builds its match runner (`make -j CXX=...` in the repository's root, then `./fastchess
# --version`). Invoked as `fastchess`, blitz-arena reads fastchess's command line and prints
# fastchess's lines (docs/fastchess.md). CXX is not used.

EXE ?= fastchess
CARGO ?= cargo

.PHONY: all clean

all:
	$(CARGO) build --release --locked
	cp target/release/blitz-arena $(EXE)

clean:
	rm -f $(EXE)
