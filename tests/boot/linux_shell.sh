#!/usr/bin/env bash
# A scripted shell session on the Linux guest (initrd-shell.gz of
# scripts/fetch-linux-guest.sh): --serial-input with --serial-expect '# ' types each
# command after the shell's prompt, so none of its bytes is lost to ash's terminal
# query (without the prompt the first command came out as "ho: not found"). The
# commands' answers come from the guest's busybox: $((6 * 7)) is 42, and the kernel
# x86lab boots reports one processor.
# Skips (exit 77) when the guest files are not in the cache.
# usage: linux_shell.sh X86LAB [LOG]
set -u
. "$(dirname "$0")/linux_guest.sh"
linux_guest_start "$1" "${2:-}" initrd-shell.gz
input=$(mktemp)
trap 'rm -f "$input"' EXIT
printf 'echo answer=$((6 * 7))\ngrep -c ^processor /proc/cpuinfo\nhalt -f\n' >"$input"
timeout 1500 "$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd-shell.gz" \
  --append "console=ttyS0 panic=-1" --serial stdio --serial-input "$input" --serial-expect '# ' \
  --exit-on-halt </dev/null >"$log" 2>&1
status=$?
tail -n 12 "$log"
fail=0
grep -qx $'answer=42\r\\?' "$log" || { echo "missing: answer=42"; fail=1; }
grep -qx $'1\r\\?' "$log" || { echo "missing: the processor count 1"; fail=1; }
if grep -qE 'sh: .*: not found' "$log"; then echo "a command lost bytes (sh: ...: not found)"; fail=1; fi
if [ "$status" -ne 0 ]; then echo "x86lab exit status $status (expected 0)"; fail=1; fi
exit $fail
