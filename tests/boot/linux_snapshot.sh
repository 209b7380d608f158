#!/usr/bin/env bash
# The Linux boot saved at step N (default 3,000,000,000, issue 26's acceptance) and
# continued from the file: serial output, final counters and exit status equal the
# uninterrupted boot's (tests/snapshot/exactness.sh; no trace, the boot is long).
# Skips (exit 77) when the guest files are not in the cache.
# usage: linux_snapshot.sh X86LAB [N]
set -u
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -f "$cache/vmlinuz" ] || [ ! -f "$cache/initrd.gz" ]; then
  echo "skipped: no Linux guest in $cache (scripts/fetch-linux-guest.sh)"
  exit 77
fi
exec "$(dirname "$0")/../snapshot/exactness.sh" "$1" "${2:-3000000000}" --kernel "$cache/vmlinuz" \
  --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1" -- --exit-on-halt --no-trace-check
