#!/usr/bin/env bash
# Fetches the Linux guest of the `linux` tests: Debian 12's own i386 kernel
# (linux-image-6.1.0-*-686-unsigned, the version the archive's index names) and
# busybox-static, with apt-get from the Debian mirror this machine's apt already uses
# (read from its sources files), through a temporary i386 source list and a separate
# lists directory, so the host's apt state is untouched. Then builds:
#   vmlinuz            the kernel (bzImage)
#   initrd.gz          busybox initramfs whose /init prints `uname -a` and /proc/cpuinfo,
#                      runs tls_test and ends with `halt -f`
#   initrd-shell.gz    the same, with a shell on the console before the halt
#   tls_test           static i386 program: threads with __thread variables, checksum
# into ${X86LAB_GUEST_CACHE:-~/.cache/x86lab/guests}. Idempotent: existing results
# are kept unless --force is given.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
force=0
[ "${1:-}" = --force ] && force=1

log() { echo "fetch-linux-guest: $*"; }
die() { echo "fetch-linux-guest: $*" >&2; exit 1; }

for tool in apt-get apt-cache dpkg-deb gzip gcc; do
  command -v "$tool" >/dev/null || die "needs $tool"
done

# The initramfs images are rebuilt (without a download) when their sources change: the
# stamp holds the hash of /init and tls_test.c they were built from.
stamp=$(cat "$here/linux-guest/init" "$here/linux-guest/tls_test.c" | sha256sum | cut -c1-16)
if [ $force = 0 ] && [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd.gz" ] && [ -s "$cache/initrd-shell.gz" ]; then
  if [ "$(cat "$cache/initrd.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "already present in $cache (use --force to rebuild)"
    exit 0
  fi
  [ -s "$cache/busybox" ] || force=1
fi
mkdir -p "$cache"

# ---- a private apt state: i386 lists in their own directory (scripts/lib/debian-i386.sh)
. "$here/lib/debian-i386.sh"
if [ $force = 1 ] || [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/busybox" ]; then
debian_i386_apt_setup

kernel_pkg=$(apt-cache "${apt_opts[@]}" pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-686-unsigned$' | sort -V | tail -1)
[ -n "$kernel_pkg" ] || die "no linux-image-6.1.0-*-686-unsigned in the bookworm i386 index"
log "kernel package: $kernel_pkg"
debian_i386_download "$kernel_pkg" busybox-static

# ---- extract vmlinuz and busybox
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$apt_dir/debs/${kernel_pkg}"_*.deb "$work/kernel"
dpkg-deb -x "$apt_dir/debs"/busybox-static_*.deb "$work/busybox"
vmlinuz=$(ls "$work/kernel/boot"/vmlinuz-* | head -1)
[ -s "$vmlinuz" ] || die "no vmlinuz in $kernel_pkg"
cp "$vmlinuz" "$cache/vmlinuz"
basename "$vmlinuz" | sed 's/^vmlinuz-//' > "$cache/kernel-version"
cp "$work/busybox/bin/busybox" "$cache/busybox"
rm -rf "$work"
trap - EXIT
else
  log "initramfs sources changed: rebuilding initrd.gz and initrd-shell.gz"
fi

# ---- the threaded TLS test program (docs/toolchain.md section 5(c))
gcc -m32 -static -O2 -pthread -o "$cache/tls_test" "$here/linux-guest/tls_test.c" \
  || die "gcc -m32 -static failed (is gcc-multilib installed?)"

# ---- initramfs images: cpio "newc" written by cpio_entry (ASCII headers), so that
# /dev/console can be a character device without mknod or a cpio tool.
build_initramfs() {  # build_initramfs OUTPUT INTERACTIVE(0|1)
  local out=$1 interactive=$2
  ino=0
  {
    for d in bin sbin usr usr/bin usr/sbin dev proc sys tmp; do cpio_entry "$d" 40755 ""; done
    cpio_entry dev/console 20600 "" 5 1
    cpio_entry init 100755 "$here/linux-guest/init"
    cpio_entry bin/busybox 100755 "$cache/busybox"
    cpio_entry bin/tls_test 100755 "$cache/tls_test"
    if [ "$interactive" = 1 ]; then cpio_entry interactive 100644 /dev/null; fi
    cpio_entry TRAILER!!! 0 ""
  } | gzip -9 -n > "$out"
}
build_initramfs "$cache/initrd.gz" 0
build_initramfs "$cache/initrd-shell.gz" 1
echo "$stamp" > "$cache/initrd.stamp"

log "done: $(cat "$cache/kernel-version") in $cache"
ls -l "$cache/vmlinuz" "$cache/initrd.gz" "$cache/initrd-shell.gz" "$cache/tls_test"
