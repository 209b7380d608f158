#!/usr/bin/env bash
# Boots one Multiboot test kernel under x86lab (--kernel) or qemu-system-i386
# (-kernel) and passes when it printed PASS and left through the exit port with 10h
# (exit status 33); the shared runner is tests/rom/run_rom.sh.
# usage: run_kernel.sh x86lab|qemu EMULATOR KERNEL
exec "$(dirname "$0")/../rom/run_rom.sh" "$1" "$2" "$3" kernel
