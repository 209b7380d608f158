# The two set-up commands of the README. Each installs what is missing (apt-get,
# scripts/install-deps.sh), configures and builds the release preset, then:
#   make demo   runs the built-in demo ROM, then compares the built-in design scenarios
#               (x86lab compare all; tables, report and plots in build/release/compare/,
#               a short summary on the screen)
#   make test   fetches Debian's i386 kernel and busybox (scripts/fetch-linux-guest.sh,
#               once) and runs every test (ctest), the Linux boot (label linux, about
#               a minute) included; `make test-linux` runs only that one
BUILD := build/release
JOBS ?= $(shell nproc)
# pipefail: `make test` fails when ctest fails, though its output goes through tee.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

.PHONY: demo test test-long test-linux build deps clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

# compare's tables (hundreds of lines) go to a file, so that the demo ROM's lines and the
# summary stay on the screen.
demo: build
	$(BUILD)/x86lab run --bios $(BUILD)/roms/demo.bin --debugcon stdio
	@mkdir -p $(BUILD)/compare
	@echo "x86lab compare all: the design-comparison scenarios (a few minutes; tables in $(BUILD)/compare/tables.txt)"
	$(BUILD)/x86lab compare all --out $(BUILD)/compare > $(BUILD)/compare/tables.txt
	@echo "make demo: done; $$(grep -cE '^## [a-z0-9-]+: ' $(BUILD)/compare/report.md) scenarios compared," \
	  "$$(grep -c ' FAILED: ' $(BUILD)/compare/tables.txt || true) variants failed"
	@echo "  the tables:  $(BUILD)/compare/tables.txt (less -S)"
	@echo "  the report:  $(BUILD)/compare/report.md (also .txt, .json, .csv) with the plots beside it; docs/compare.md explains them"

test: build
	bash scripts/fetch-linux-guest.sh
	bash scripts/fetch-linux-compare-guest.sh
	ctest --preset release -j $(JOBS) --label-exclude long 2>&1 | tee $(BUILD)/ctest.log
	@echo "make test: $$(grep -c '(Skipped)' $(BUILD)/ctest.log || true) tests skipped (listed above as Skipped; README, Tests, says which need ../shared)"

# The tests too long for every run (label long): the Linux guest typed into in the inspector.
test-long: build
	bash scripts/fetch-linux-guest.sh
	bash scripts/fetch-linux-compare-guest.sh
	ctest --preset release --label-regex long

test-linux: build
	bash scripts/fetch-linux-guest.sh
	bash scripts/fetch-linux-compare-guest.sh
	ctest --preset release --label-regex linux --label-exclude long

clean:
	rm -rf build
