# The project's everyday commands. `make test` is what CI runs.

CARGO ?= cargo
BIN := target/release/reversi

.PHONY: build play test test-deps quickstart lint doc bench perft-deep bundle clean edax

build:
	@echo "make: building the release binary (1-2 minutes the first time; its last step, the whole-program link, prints nothing for about a minute)"
	$(CARGO) build --release

# Shows the bot (black) playing a whole game against the greedy player.
play: build
	$(BIN) match self "self --player greedy --seed 1" --games 1 --show

test: lint doc test-deps edax
	@echo "make test: building every crate's tests (about 5 minutes on 2 cores from a fresh checkout, the server's link silent for most of it), then running them (about 4 minutes)"
	$(CARGO) test --workspace --release

# What the tests need besides Rust: Chromium, which opens the game pages
# (`reversi show --html`) headless, bubblewrap, the sandbox of
# `match --sandbox` and of the online judge, ChromeDriver for the live
# pages' tests, the compilers the judge's
# tests submit to (gcc, g++, the system's python3), and PostgreSQL's
# server, of which the
# arena server's tests start a throwaway cluster of their own (as the
# `postgres` user when they run as root). Installed with apt-get where
# missing.
test-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || { \
	    echo "installing chromium (for the page tests)"; \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq chromium >/dev/null; }
	@command -v chromedriver >/dev/null 2>&1 || { \
	    echo "installing chromium-driver (WebDriver, for the live pages' tests)"; \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq chromium-driver >/dev/null; }
	@command -v bwrap >/dev/null 2>&1 || { \
	    echo "installing bubblewrap (the sandbox for programs)"; \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq bubblewrap >/dev/null; }
	@[ -x /usr/bin/gcc ] && [ -x /usr/bin/g++ ] && [ -x /usr/bin/python3 ] || { \
	    echo "installing gcc, g++ and python3 (the judge's languages)"; \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq gcc g++ python3 >/dev/null; }
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
	    echo "installing postgresql (for the arena server's tests)"; \
	    sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	    $$sudo apt-get update -qq && $$sudo apt-get install -y -qq postgresql >/dev/null; }

# Edax, the reference engine, from ../shared/anchors (about a minute), unless
# it is built already ($EDAX_DIR, else ~/.cache/reversi-anchors/edax). The
# GGS test plays it through its own GGS client; vs_edax.py plays it.
EDAX_DIR ?= $(HOME)/.cache/reversi-anchors/edax
edax:
	@ls $(EDAX_DIR)/bin/lEdax-* >/dev/null 2>&1 && [ -s $(EDAX_DIR)/data/book.dat ] || { \
	    echo "building Edax into $(EDAX_DIR) (about a minute)"; \
	    EDAX_DIR=$(EDAX_DIR) ../shared/anchors/build-edax.sh >/dev/null; }

# Every command of the README's quick start, run as written (CI runs it too).
quickstart:
	.ci/quickstart

# Formatting, clippy, and no circle among any crate's modules.
lint:
	$(CARGO) fmt --check
	@echo "make lint: clippy on every crate (about 2 minutes from a fresh checkout)"
	$(CARGO) clippy --workspace --release --all-targets -- -D warnings
	python3 tools/module_cycles.py --self-test

# The API documentation, which must build without a warning (a broken
# link, a private item linked from a public one).
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --release

# Speed and depth figures (BENCHMARKS.md): not part of `make test`.
bench: build perft-deep
	$(BIN) bench
	$(BIN) solve fixtures/endgame/fforum-20-39.obf

# Perft 10 and 11 under both conventions, with the memo and every line
# enumerated, checked against fixtures/perft.txt.
perft-deep: build
	@for conv in dropped kept; do \
	  col=$$([ $$conv = dropped ] && echo 3 || echo 4); \
	  for d in 10 11; do \
	    want=$$(awk -v d=$$d -v c=$$col '$$1=="#" && $$2==d {print $$c; exit}' fixtures/perft.txt); \
	    for how in "" --every-line; do \
	      got=$$($(BIN) perft $$d --convention $$conv $$how | awk -v d=$$d '$$2==d {print $$3}'); \
	      echo "perft $$d ($$conv $${how:-memo}): $$got (expected $$want)"; \
	      [ "$$got" = "$$want" ] || exit 1; \
	    done; \
	  done; \
	done

# The one-file bundles for judges that take source (docs/submitting.md),
# each built with plain rustc as a judge would.
bundle: build
	mkdir -p target/bundle
	$(BIN) bundle --out target/bundle/reversi.rs
	$(BIN) bundle --protocol codingame --out target/bundle/codingame.rs
	cd target/bundle && rustc --edition 2021 -O reversi.rs && rustc --edition 2021 -O codingame.rs

clean:
	$(CARGO) clean
