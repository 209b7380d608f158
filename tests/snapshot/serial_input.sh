#!/bin/bash
# Snapshot exactness with serial input pending (docs/snapshots.md, "Saving and
# loading"): the echo kernel takes COM1 input at 9600 baud, so at each cut the host has
# read the whole file and the guest has taken only part of it.
# Usage: serial_input.sh X86LAB ECHO_KERNEL
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'hello snapshot\nsecond line\n' > "$work/input.txt"
exec "$(dirname "$0")/exactness.sh" "$1" 1000,300000,700000,1000000,1500001,2999999 --kernel "$2" -- \
  --serial-input "$work/input.txt" --max-instructions 3000000
