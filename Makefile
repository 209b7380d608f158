# The two set-up commands of the README. Each installs what is missing (apt-get,
# scripts/install-deps.sh), configures and builds the release preset, then:
#   make demo   runs the built-in demo ROM, then compares the built-in design scenarios
#               (x86lab compare all; report and plots in build/release/compare/)
#   make test   runs every test (ctest) except the Linux boot (label linux), which
#               does not pass yet (issue 7 is open): `make test-linux` runs it
BUILD := build/release
JOBS ?= $(shell nproc)

.PHONY: demo test test-linux build deps clean

deps:
	bash scripts/install-deps.sh

build: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

demo: build
	$(BUILD)/x86lab run --bios $(BUILD)/roms/demo.bin --debugcon stdio
	$(BUILD)/x86lab compare all --out $(BUILD)/compare

test: build
	ctest --preset release -j $(JOBS) --label-exclude linux

test-linux: build
	bash scripts/fetch-linux-guest.sh
	ctest --preset release --label-regex linux

clean:
	rm -rf build
