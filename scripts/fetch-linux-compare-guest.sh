#!/usr/bin/env bash
# Builds the Linux guest of `x86lab compare tls-real` (docs/compare.md, "Linux
# workloads"): Debian 12's i386 kernel (vmlinuz of scripts/fetch-linux-guest.sh, run
# first when missing) with an initramfs holding busybox and Debian's dynamically linked
# i386 glibc (libc6:i386, /lib/ld-linux.so.2), coreutils and findutils, unpacked from
# the archive's .debs with dpkg-deb -x (apt-get download through the private i386 apt
# state of scripts/lib/debian-i386.sh), and tls_test built dynamically with gcc -m32
# against the host's multilib glibc (libc6-dev-i386 2.36, the version of bookworm's
# libc6:i386, so it runs on Debian's ld.so). Writes into ${X86LAB_GUEST_CACHE:-~/.cache/x86lab/guests}:
#   initrd-compare.gz      the initramfs; /init is scripts/linux-guest/compare-init
#   tls_test_dynamic       the threaded program as built
#   compare-packages.txt   the .debs unpacked (name_version_arch), for the record
# Idempotent: an existing image is kept unless --force is given.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
force=0
[ "${1:-}" = --force ] && force=1

log() { echo "fetch-linux-compare-guest: $*"; }
die() { echo "fetch-linux-compare-guest: $*" >&2; exit 1; }

for tool in apt-get apt-cache dpkg-deb gzip gcc readelf; do
  command -v "$tool" >/dev/null || die "needs $tool"
done
if [ $force = 0 ] && [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd-compare.gz" ]; then
  log "already present in $cache (use --force to rebuild)"
  exit 0
fi
[ -s "$cache/vmlinuz" ] && [ -s "$cache/busybox" ] || "$here/fetch-linux-guest.sh"

. "$here/lib/debian-i386.sh"
debian_i386_apt_setup
# libc6 and what coreutils and findutils need (apt-cache depends, bookworm i386).
packages=(libc6 libgcc-s1 coreutils findutils libacl1 libattr1 libgmp10 libselinux1 libpcre2-8-0)
debian_i386_download "${packages[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"
: > "$work/packages.txt"
for pkg in "${packages[@]}"; do
  deb=$(ls "$apt_dir/debs/${pkg}"_*_i386.deb | head -1)
  dpkg-deb -x "$deb" "$root"
  basename "$deb" .deb >> "$work/packages.txt"
done
# What the workloads never read: documentation, locales, gconv modules, the audit libraries.
rm -rf "$root/usr/share" "$root/usr/lib/i386-linux-gnu/gconv" "$root/usr/lib/i386-linux-gnu/audit" "$root/usr/libexec"
[ -e "$root/lib/ld-linux.so.2" ] || die "libc6:i386 has no /lib/ld-linux.so.2"

gcc -m32 -O2 -pthread -o "$cache/tls_test_dynamic" "$here/linux-guest/tls_test.c" \
  || die "gcc -m32 failed (are gcc-multilib and libc6-dev-i386 installed?)"
readelf -l "$cache/tls_test_dynamic" | grep -q 'ld-linux.so.2' || die "tls_test_dynamic is not linked dynamically"
cp "$cache/tls_test_dynamic" "$root/bin/tls_test"

# ---- the initramfs: busybox as /bin/busybox, its applets linked into /bbin by /init
ino=0
{
  for d in bbin dev proc sys tmp; do cpio_entry "$d" 40755 ""; done
  cpio_entry dev/console 20600 "" 5 1
  cpio_entry init 100755 "$here/linux-guest/compare-init"
  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort) | while read -r path; do
    name=${path#./}
    if [ -L "$root/$name" ]; then cpio_symlink "$name" "$(readlink "$root/$name")"
    elif [ -d "$root/$name" ]; then cpio_entry "$name" 40755 ""
    else cpio_entry "$name" "$(printf %o $(( 8#100000 | 8#$(stat -c %a "$root/$name") )))" "$root/$name"
    fi
  done
  cpio_entry bin/busybox 100755 "$cache/busybox"
  cpio_entry TRAILER!!! 0 ""
} | gzip -9 -n > "$cache/initrd-compare.gz.part"
mv "$cache/initrd-compare.gz.part" "$cache/initrd-compare.gz"
cp "$work/packages.txt" "$cache/compare-packages.txt"
log "done: $(wc -l < "$cache/compare-packages.txt") packages in $cache/initrd-compare.gz"
ls -l "$cache/initrd-compare.gz"
