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

if [ $force = 0 ] && [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd.gz" ] && [ -s "$cache/initrd-shell.gz" ]; then
  log "already present in $cache (use --force to rebuild)"
  exit 0
fi
mkdir -p "$cache"

# ---- the Debian mirror apt is configured with (deb822 .sources first, then sources.list)
mirror=
for f in /etc/apt/sources.list.d/*.sources; do
  [ -e "$f" ] || continue
  mirror=$(awk '
    /^[[:space:]]*$/ { if (uri != "" && suites ~ /(^| )bookworm( |$)/) { print uri; exit } uri = ""; suites = ""; next }
    /^URIs:/ { uri = $2 }
    /^Suites:/ { $1 = ""; suites = $0 " " }
    END { if (uri != "" && suites ~ /(^| )bookworm( |$)/) print uri }' "$f" | head -1)
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -e /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; ++i) if ($i !~ /^\[/ && $i !~ /\]$/ && $i ~ /:\/\//) { if ($(i+1) == "bookworm") { print $i; exit } } }' /etc/apt/sources.list | head -1)
fi
[ -n "$mirror" ] || die "no Debian bookworm mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
log "using the configured mirror for bookworm i386"

# ---- a private apt state: i386 lists in their own directory
apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc/preferences.d" "$apt_dir/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -e "$keyring" ] || die "missing $keyring (package debian-archive-keyring)"
echo "deb [arch=i386 signed-by=$keyring] $mirror bookworm main" > "$apt_dir/etc/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/etc/none"
  -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=i386"
  -o "APT::Architectures::=i386"
  -o "Acquire::Languages=none"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
mkdir -p "$apt_dir/etc/none"
log "apt-get update (i386 lists in $apt_dir/lists)"
apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; die "apt-get update failed"; }

kernel_pkg=$(apt-cache "${apt_opts[@]}" pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-686-unsigned$' | sort -V | tail -1)
[ -n "$kernel_pkg" ] || die "no linux-image-6.1.0-*-686-unsigned in the bookworm i386 index"
log "kernel package: $kernel_pkg"
(cd "$apt_dir/debs" && rm -f ./*.deb && apt-get "${apt_opts[@]}" -q download "$kernel_pkg" busybox-static) \
  || die "apt-get download failed"

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

# ---- the threaded TLS test program (docs/toolchain.md section 5(c))
gcc -m32 -static -O2 -pthread -o "$cache/tls_test" "$here/linux-guest/tls_test.c" \
  || die "gcc -m32 -static failed (is gcc-multilib installed?)"

# ---- initramfs images: cpio "newc" written here (ASCII headers), so that
# /dev/console can be a character device without mknod or a cpio tool.
ino=0
cpio_entry() {  # cpio_entry NAME MODE(octal) FILE-or-empty [MAJOR MINOR]
  local name=$1 mode=$2 file=${3:-} rmajor=${4:-0} rminor=${5:-0} size=0 namesize
  [ -n "$file" ] && size=$(stat -c %s "$file")
  namesize=$(( ${#name} + 1 ))
  ino=$((ino + 1))
  printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
    "$ino" "$((8#$mode))" 0 0 1 0 "$size" 0 0 "$rmajor" "$rminor" "$namesize" 0
  printf '%s\0' "$name"
  head -c $(( (4 - (110 + namesize) % 4) % 4 )) /dev/zero
  if [ -n "$file" ]; then
    cat "$file"
    head -c $(( (4 - size % 4) % 4 )) /dev/zero
  fi
}
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

log "done: $(cat "$cache/kernel-version") in $cache"
ls -l "$cache/vmlinuz" "$cache/initrd.gz" "$cache/initrd-shell.gz" "$cache/tls_test"
