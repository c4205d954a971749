# shutbox: one entry point for the host tools, the tests and the Pico. Every variable is overridable.
PYTHON      ?= python3
VENV        ?= .venv
BIN         := $(VENV)/bin
PORT        ?=
UF2         ?=
BOOTROM     ?=
BOARD       ?=
MICROPYTHON ?= $(abspath $(BIN))/micropython
MPY_CROSS   ?= $(abspath $(BIN))/mpy-cross
STUBS       ?= $(VENV)/mpstubs
PYTEST_ARGS ?=
# make check's pytest-xdist workers; make test's (TEST_JOBS) are one more: a third fills the
# cores while the tests that wait on the wall clock (the unix port's companion, the terminal
# box, the page in Chromium, the pty bridge) wait, and while a worker waits for another's
# onerun value
JOBS        ?= 2
TEST_JOBS   ?= 3
# pytest-xdist: an idle worker takes queued tests from the other (the long ones run first)
DIST        ?= --dist worksteal
STAMP       := $(VENV)/.installed
DEV_STAMP   := $(VENV)/.installed-dev
ENC_STAMP   := $(VENV)/.installed-enclosure
NPM         ?= npm
NODE_STAMP  := node_modules/.installed
UV_STAMP    := $(VENV)/.installed-uv
INSTALL      = $(if $(wildcard $(BIN)/uv),$(BIN)/uv pip install -q --python $(BIN)/python,\
               $(BIN)/python -m pip install -q --disable-pip-version-check)

export MICROPYTHON
# Bytecode caches written as on a developer's machine, even where the environment turns them
# off (PYTHONDONTWRITEBYTECODE): else every xdist worker compiles and assertion-rewrites the
# whole suite again, and every `shutbox` a test runs compiles the host tools again
unexport PYTHONDONTWRITEBYTECODE
# UF2= (MicroPython's RPI_PICO uf2) and BOOTROM= (the RP2040 bootrom) reach every tool that
# needs them (shutbox emu, web, uf2, the tests, the bench) as SHUTBOX_UF2 and SHUTBOX_BOOTROM;
# without them the tools look in ../shared/rp2040/, then the cache (make fetch).
ifneq ($(UF2),)
export SHUTBOX_UF2 := $(abspath $(UF2))
endif
ifneq ($(BOOTROM),)
export SHUTBOX_BOOTROM := $(abspath $(BOOTROM))
endif

.PHONY: all venv venv-enclosure node test check lint typecheck pytest bytecode play web fetch bench \
	soak flash uf2 tables consts enclosure mpy companion clean help

all: test

help:
	@echo "make play    the box, simulated, in this terminal (keys flip tiles and press Roll)"
	@echo "make play LOG=games.jsonl   ... and append its game log there (shutbox report)"
	@echo "make web     build/web/: the box in a web page (shutbox web serves it on 127.0.0.1)"
	@echo "make fetch   MicroPython's RPI_PICO uf2 and the RP2040 bootrom, once, into ~/.cache/shutbox"
	@echo "make test    lint, type-check against the rp2 stubs, and the whole test suite"
	@echo "make check   the fast loop: make test without the tests that need Node, Chromium or CAD"
	@echo "make bench   speed and memory figures (shutbox bench --json)"
	@echo "make soak    the long runs: 10,000 games, a million throws, the long tests (slow)"
	@echo "make tables  regenerate the firmware's tables with the exact solver"
	@echo "make consts  rewrite the firmware modules' shared constants from their table"
	@echo "make enclosure  build the box's case, tiles and switch mounts (STEP, STL, cut files)"
	@echo "make uf2 [UF2=RPI_PICO-v1.28.0.uf2] [BOARD=RPI_PICO]   one file to drag onto a Pico"
	@echo "make mpy     the firmware's bytecode in build/mpy/, as shutbox flash compiles it"
	@echo "UF2=PATH BOOTROM=PATH  for every target: the uf2 and bootrom to use (else found, fetched)"
	@echo "make flash [PORT=/dev/ttyACM0]   put the firmware on a Raspberry Pi Pico"
	@echo "make companion   build/companion-*/: the Pico W companion (microdot, pinned) as .mpy"

# The virtual environment: the pinned runtime dependencies and shutbox (editable) for the
# product's targets (play, flash, tables); the test tools and the rp2 stubs (kept apart) on top
# for test, lint, typecheck, bench and soak.
# Installs go through uv (pinned in requirements-uv.txt): a fresh clone's whole .venv takes
# about 20 s where pip took about 110 (one run each on a CI-like machine, caches cold); pip
# where uv cannot be had (offline, say). INSTALL is expanded once uv's rule has run.
$(UV_STAMP): requirements-uv.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	-$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-uv.txt
	touch $@

$(STAMP): $(UV_STAMP) requirements.txt pyproject.toml
	$(INSTALL) -r requirements.txt
	$(INSTALL) --no-deps --no-build-isolation -e .
	touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.txt requirements-plots.txt requirements-stubs.txt
	$(INSTALL) -r requirements-dev.txt
	$(INSTALL) --no-deps --target $(STUBS) --upgrade -r requirements-stubs.txt
	touch $@

# The enclosure's CAD toolchain (build123d, OpenCascade, matplotlib: about 1 GB) kept apart.
$(ENC_STAMP): $(STAMP) requirements-enclosure.txt requirements-plots.txt
	$(INSTALL) -r requirements-enclosure.txt
	touch $@

venv-enclosure: $(ENC_STAMP)

# rp2040js for the emulated Pico (shutbox emu, tests/pico): exactly package-lock.json, by npm ci.
# Without npm this says so and goes on: the emulator's tests then skip, saying what is missing.
$(NODE_STAMP): package.json package-lock.json
	@if command -v $(NPM) >/dev/null 2>&1; then \
		$(NPM) ci --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "make: npm not found: the emulated Pico's tests will skip (Debian: apt-get install nodejs npm)"; \
	fi

node: $(NODE_STAMP)

venv: $(DEV_STAMP)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .

# mypy checks firmware/ against the Pico's own API: the rp2 stubs and MicroPython's stdlib.
typecheck: $(DEV_STAMP)
	MYPYPATH=$(STUBS) $(BIN)/mypy --custom-typeshed-dir $(STUBS) \
		--config-file firmware/mypy.ini firmware

# The emulator's inputs first where they can be had (offline: one line, and its tests skip).
# Every test but the short versions of the long ones (pytest marker short: tests/selection.py).
TEST_MARKS ?= not short
pytest: $(DEV_STAMP) $(ENC_STAMP) $(NODE_STAMP) bytecode
	$(BIN)/shutbox fetch --optional
	MAKEFLAGS= $(BIN)/pytest -q -n $(TEST_JOBS) $(DIST) -m "$(TEST_MARKS)" $(PYTEST_ARGS)

# The suite collected once (its output and result thrown away) for the bytecode caches the
# workers then read (a third of each worker's start); the CAD stack's module left out, as
# make test runs this beside that stack's install.
bytecode: $(DEV_STAMP)
	-@$(BIN)/pytest --collect-only -q -p no:cacheprovider -m "$(TEST_MARKS)" \
		--ignore tests/hardware/test_enclosure.py >/dev/null 2>&1

# Once the test tools are in, the rest side by side (-j): the CAD stack's and Node's installs,
# lint, the type check and the bytecode, then pytest. Lint's and the type check's failures
# still fail make test.
test: $(DEV_STAMP)
	@$(MAKE) --no-print-directory -j 4 lint typecheck pytest

# The fast loop: lint, types and every test that needs neither Node (the emulated chip, the
# page), Chromium nor the CAD stack (pytest markers node, browser, enclosure), with the long
# tests shortened (marker long left out, short run: tests/selection.py); make test runs them all.
CHECK_MARKS ?= not node and not browser and not enclosure and not long
check: lint typecheck
	$(BIN)/pytest -q -n $(JOBS) $(DIST) -m "$(CHECK_MARKS)" $(PYTEST_ARGS)

play: $(STAMP)
	$(BIN)/shutbox play $(if $(LOG),--log $(LOG))

# The box in a web page (build/web/: static files, works offline): the real MicroPython rp2
# build on rp2040js, bundled by esbuild (package.json); `shutbox web` also serves it.
web: $(STAMP) $(NODE_STAMP)
	$(BIN)/shutbox web --build-only

# MicroPython's RPI_PICO uf2 and the RP2040 bootrom from their official sources, checked
# against pinned SHA-256 sums, into the cache (shutbox_host.pico.inputs); the tools that need
# them also fetch them on first use.
fetch: $(STAMP)
	$(BIN)/shutbox fetch

# The figures the docs quote: docs/figures.json (tests/test_docs.py checks the docs against it).
bench: $(DEV_STAMP) $(NODE_STAMP)
	$(BIN)/shutbox bench --json --save docs/figures.json

# The long runs: the bench's soak figures, then the long versions of the tests (pytest marker
# slow: more cuts, seeds and games through the same code as make test's short ones), and the
# long tests (marker long) with SHUTBOX_SLOW=1, which some of them read to do more.
SOAK_MARKS ?= slow or long
soak: $(DEV_STAMP) $(ENC_STAMP) $(NODE_STAMP)
	$(BIN)/shutbox bench --json --soak --save docs/figures.json
	SHUTBOX_SLOW=1 $(BIN)/pytest -q -n $(JOBS) $(DIST) -m "$(SOAK_MARKS)" $(PYTEST_ARGS)

tables: $(STAMP)
	$(BIN)/shutbox tables

# The constants several firmware modules keep (each its private copy: MicroPython folds const()
# only within a module) from one table, shutbox_host.hardware.consttable; `shutbox consts
# --check` (tests/firmware/test_consts.py) fails on a block that differs from it.
consts: $(STAMP)
	$(BIN)/shutbox consts

enclosure: $(ENC_STAMP)
	$(BIN)/shutbox enclosure

flash: $(STAMP)
	$(BIN)/shutbox flash $(if $(PORT),--port $(PORT))

# build/shutbox-<BOARD>.uf2: MicroPython's uf2 for the board (UF2=, default
# ../shared/rp2040/<BOARD>-v1.28.0.uf2; RPI_PICO's also from the cache, fetched once) with the
# box's firmware on its filesystem.
uf2: $(STAMP)
	$(BIN)/shutbox uf2 $(if $(UF2),--micropython $(UF2)) $(if $(BOARD),--board $(BOARD))

# build/companion-<hash>/: the Pico W companion's .mpy files, microdot's from its published
# package (requirements.txt pins it; make venv installs it), none of it for a Pico.
companion: $(STAMP)
	$(BIN)/python -m shutbox_host.pico.companion

# The firmware's bytecode in build/mpy/ (MPY_OUT=), each module as `shutbox flash` compiles
# it for the Pico (the flags of shutbox_host.mp.MPY_FLAGS, the short source name), but for
# the modules only the host imports (shutbox_host.model.layout.HOST_ONLY): an RP2040 board's
# (a Pico's, a Pico W's; an RP2350's has neither shutbox/ahead nor shutbox/chip:
# layout.RP2040_ONLY), chip.mpy with its machine code for the RP2040's Cortex-M0+
# (layout.MPY_ARCH), and the viper code of payout.mpy, board.mpy, frame.mpy and
# debounce.mpy for the Pico's too (layout.NATIVE: a flash compiles it for the board's arch). mpy-cross must emit the board's .mpy version (shutbox
# flash checks it).
MPY_FLAGS   ?= -O3
MPY_OUT     ?= build/mpy
HOST_ONLY   := firmware/shutbox/setnames.py firmware/shutbox/variants.py
MPY_SOURCES := firmware/main.py $(filter-out $(HOST_ONLY),$(sort $(wildcard firmware/shutbox/*.py)))

mpy: $(patsubst firmware/%.py,$(MPY_OUT)/%.mpy,$(MPY_SOURCES))

$(MPY_OUT)/shutbox/chip.mpy: MPY_FLAGS += -march=armv6m
$(MPY_OUT)/shutbox/payout.mpy: MPY_FLAGS += -march=armv6m
$(MPY_OUT)/shutbox/board.mpy: MPY_FLAGS += -march=armv6m
$(MPY_OUT)/shutbox/frame.mpy: MPY_FLAGS += -march=armv6m
$(MPY_OUT)/shutbox/debounce.mpy: MPY_FLAGS += -march=armv6m

$(MPY_OUT)/%.mpy: firmware/%.py | $(STAMP)
	@mkdir -p $(@D)
	$(MPY_CROSS) $(MPY_FLAGS) -o $@ -s $(notdir $*) $<

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache node_modules
