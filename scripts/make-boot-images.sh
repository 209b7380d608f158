#!/usr/bin/env bash
# Builds the images a PC BIOS boots (docs/booting.md, "Images"), from Debian packages and
# the Linux test guest of scripts/fetch-linux-guest.sh; nothing is downloaded, and no file
# system is mounted (no root needed): every file system is written from a staged folder.
#
#   disk    disk.img: 32 MiB, MBR (syslinux's mbr.bin, table by sfdisk), 16 heads x 63
#           sectors (64 cylinders), two partitions:
#             1  ext2 root (type 83) from sector 26624, made by mke2fs -d: busybox,
#                tls_test, /sbin/init = scripts/boot-images/root-init
#             2  FAT16 boot partition (type 06, active) from sector 2048: SYSLINUX
#                (syslinux --install, mtools; the FAT variant of extlinux, which itself
#                needs a mounted file system), the guest's kernel, initrd.gz and
#                syslinux.cfg with root=/dev/sda1 rootfstype=ext2 rw reboot=k
#           The root is partition 1 although it lies after the boot partition on disk.
#   iso     boot.iso: ISO 9660 with Rock Ridge by xorriso, El Torito no-emulation boot
#           of ISOLINUX; the same kernel and initrd.gz, and the same root tree: the root
#           file system is the CD itself (root=/dev/sr0 rootfstype=iso9660).
#   floppy  floppy.img: 1.44 MB FAT12 with SYSLINUX, whose mboot.c32 loads a Multiboot
#           kernel (the ELF given with --multiboot; the tests use timer_kernel.elf,
#           which prints on COM1 and E9h and leaves through port F4h).
#   xv6     xv6.img and fs.img: xv6 (../shared/tests/xv6, its ORIGIN.md) copied and built
#           with make, CFLAGS without -Werror. The processor count (the Makefile's CPUS)
#           is the emulator's, not the image's: one image serves CPUS=1 and CPUS=2.
#
# The disk and the CD share initrd.gz: busybox, the Debian kernel's disk modules (from the
# linux-image .deb the guest script downloaded, in its cache) and
# scripts/boot-images/initramfs-init, which loads them and switch_roots to the root.
#
# Each image is rebuilt only when its inputs change (a SHA-256 of them in IMAGE.stamp).
# A missing input (guest cache, ../shared, a package) skips that image with one line and
# exit status 0, so that a build never fails on it; the tests then skip (exit 77).
#
# usage: make-boot-images.sh [--multiboot ELF] [--xv6-source DIR] OUTDIR KIND...
#        KIND: disk iso floppy xv6 all
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
xv6_source=$here/../../shared/tests/xv6
multiboot=
PATH=$PATH:/usr/sbin:/sbin  # sfdisk, mke2fs, mkfs.fat

log() { echo "make-boot-images: $*"; }
die() { echo "make-boot-images: $*" >&2; exit 1; }
skip() { echo "make-boot-images: skipped $kind: $*"; }

while [ $# -gt 0 ]; do
  case $1 in
    --multiboot) multiboot=${2:?--multiboot needs an ELF file}; shift 2 ;;
    --xv6-source) xv6_source=${2:?--xv6-source needs a folder}; shift 2 ;;
    -*) echo "make-boot-images: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: make-boot-images.sh [--multiboot ELF] [--xv6-source DIR] OUTDIR KIND..." >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)

syslinux_bios=/usr/lib/syslinux/modules/bios
mbr_bin=/usr/lib/syslinux/mbr/mbr.bin
isolinux_bin=/usr/lib/ISOLINUX/isolinux.bin
# Fixed identifiers and dates, so that equal inputs give equal images.
export SOURCE_DATE_EPOCH=1704067200 E2FSPROGS_FAKE_TIME=1704067200
root_uuid=7838366c-6162-4000-8000-000000000001

# need KIND TOOL-or-FILE PACKAGE...: true when all are present, otherwise a skip line.
need() {
  local item package
  for item in "$@"; do
    package=${item#*:} item=${item%%:*}
    if [[ $item == /* ]]; then [ -e "$item" ] && continue; else command -v "$item" >/dev/null && continue; fi
    skip "no $item (package $package; scripts/install-deps.sh --images)"
    return 1
  done
}

# up_to_date NAME INPUT...: true when NAME.stamp holds the hash of the inputs (files and
# strings) and every output is there; sets `stamp` for mark_built.
up_to_date() {
  local name=$1 outputs=$2 item o
  shift 2
  stamp=$(for item in "$@"; do if [ -f "$item" ]; then sha256sum <"$item"; else echo "$item"; fi; done | sha256sum | cut -c1-32)
  for o in $outputs; do [ -s "$out/$o" ] || return 1; done
  [ "$(cat "$out/$name.stamp" 2>/dev/null)" = "$stamp" ]
}
mark_built() { echo "$stamp" >"$out/$1.stamp"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- the shared parts of the disk and the CD ----------------------------------------
guest_ready() {
  [ -s "$cache/vmlinuz" ] && [ -s "$cache/busybox" ] && [ -s "$cache/tls_test" ] || {
    skip "no Linux guest in $cache (run scripts/fetch-linux-guest.sh)"; return 1; }
  kernel_deb=$(ls "$cache"/apt/debs/linux-image-"$(cat "$cache/kernel-version")"-unsigned_*.deb 2>/dev/null | head -1)
  [ -n "$kernel_deb" ] || { skip "no linux-image .deb in $cache/apt/debs (run scripts/fetch-linux-guest.sh --force)"; return 1; }
}

# The modules the initramfs loads, each after its dependencies (their .modinfo
# "depends=" field; there is no modules.dep in the package, depmod makes it on install).
# crct10dif_generic and crc64_rocksoft_generic are the crypto algorithms t10-pi's CRC
# libraries look up by name (with a module request that has no modprobe to answer it),
# and crc32c_generic the one ext4 asks for at every mount (ext2 included).
initramfs_modules=(crct10dif_generic crc64_rocksoft_generic crc32c_generic ata_piix sd_mod sr_mod isofs ext4)
module_closure() {  # module_closure MODDIR NAME...: prints NAME and its dependencies, dependencies first
  local dir=$1 name file deps
  shift
  for name in "$@"; do
    grep -qx "$name" "$work/modules.seen" 2>/dev/null && continue
    echo "$name" >>"$work/modules.seen"
    file=$(find "$dir" -name "$name.ko" -o -name "${name//_/-}.ko" | head -1)
    [ -n "$file" ] || die "module $name not in the kernel package"
    objcopy -O binary --only-section=.modinfo "$file" "$work/modinfo"  # (not to a pipe: objcopy seeks)
    deps=$(tr '\0' '\n' <"$work/modinfo" | sed -n 's/^depends=//p' | tr ',' ' ')
    # shellcheck disable=SC2086
    [ -z "$deps" ] || module_closure "$dir" $deps
    echo "${file#"$dir"/}"
  done
}

build_initramfs() {  # build_initramfs OUTPUT
  local kdir=$work/kernel
  dpkg-deb -x "$kernel_deb" "$kdir"
  local mdir=("$kdir"/lib/modules/*/kernel)
  : >"$work/modules.seen"
  module_closure "${mdir[0]}" "${initramfs_modules[@]}" >"$work/modules.list"
  . "$here/lib/debian-i386.sh"
  ino=0
  {
    for d in bin sbin usr usr/bin usr/sbin dev proc sys tmp lib lib/modules newroot; do cpio_entry "$d" 40755 ""; done
    cpio_entry dev/console 20600 "" 5 1
    cpio_entry init 100755 "$here/boot-images/initramfs-init"
    cpio_entry bin/busybox 100755 "$cache/busybox"
    sed 's/\.ko$//; s|.*/||' "$work/modules.list" >"$work/modules"
    cpio_entry modules 100644 "$work/modules"
    while read -r m; do cpio_entry "lib/modules/$(basename "$m")" 100644 "${mdir[0]}/$m"; done <"$work/modules.list"
    cpio_entry TRAILER!!! 0 ""
  } | gzip -9 -n >"$1"
}

stage_root() {  # stage_root FOLDER: the root tree of the disk and the CD
  local root=$1 applet
  mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,root}
  cp "$cache/busybox" "$cache/tls_test" "$root/bin/"
  cp "$here/boot-images/root-init" "$root/sbin/init"
  chmod 755 "$root/bin/busybox" "$root/bin/tls_test" "$root/sbin/init"
  # The applets root-init uses, as links (the CD's root is read-only: no busybox --install).
  for applet in sh ash awk cat cut echo grep ls md5sum mount poweroff reboot rm setsid cttyhack sleep sync touch umount uname; do
    ln -s busybox "$root/bin/$applet"
  done
}

append_common="console=ttyS0,115200 panic=-1"
syslinux_cfg() {  # syslinux_cfg APPEND: the configuration of SYSLINUX and ISOLINUX
  printf '%s\n' "SERIAL 0 115200" "DEFAULT linux" "PROMPT 0" "TIMEOUT 0" "LABEL linux" "  KERNEL vmlinuz" \
    "  INITRD initrd.gz" "  APPEND $1"
}

# ---- disk.img -------------------------------------------------------------------------
heads=16 sectors=63 cylinders=64
boot_start=2048 boot_size=24576 root_start=26624
build_disk() {
  need sfdisk:fdisk mke2fs:e2fsprogs mkfs.fat:dosfstools mcopy:mtools syslinux:syslinux \
    $mbr_bin:syslinux-common $syslinux_bios/ldlinux.c32:syslinux-common objcopy:binutils || return 0
  guest_ready || return 0
  if up_to_date disk "disk.img initrd.gz" "$0" "$here/boot-images/initramfs-init" "$here/boot-images/root-init" \
      "$cache/vmlinuz" "$cache/busybox" "$cache/tls_test" "$kernel_deb" "$mbr_bin" "$(syslinux --version 2>&1 | head -1)"; then
    log "disk.img is up to date"; return 0
  fi
  build_initramfs "$work/initrd.gz"
  local total=$((cylinders * heads * sectors)) root_size
  root_size=$((total - root_start))
  # partition 2: FAT16 with SYSLINUX; "hidden sectors" (-h) is its start on the disk,
  # which SYSLINUX's boot sector adds to its own sector numbers.
  truncate -s $((boot_size * 512)) "$work/boot.part"
  mkfs.fat -F 16 -h $boot_start -g $heads/$sectors -i 7838366c -n X86LAB-BOOT "$work/boot.part" >/dev/null
  syslinux_cfg "root=/dev/sda1 rootfstype=ext2 rw reboot=k $append_common" >"$work/syslinux.cfg"
  mcopy -i "$work/boot.part" "$cache/vmlinuz" "$work/initrd.gz" "$work/syslinux.cfg" ::
  syslinux --install "$work/boot.part"
  # partition 1: ext2 root from the staged tree
  stage_root "$work/root"
  truncate -s $((root_size * 512)) "$work/root.part"
  mke2fs -q -F -t ext2 -b 1024 -L x86lab-root -U $root_uuid -E root_owner=0:0,hash_seed=$root_uuid \
    -d "$work/root" "$work/root.part"
  # the disk: table, MBR code, partitions
  truncate -s $((total * 512)) "$work/disk.img"
  printf '%s\n' "label: dos" "label-id: 0x7838366c" "unit: sectors" \
    "start=$root_start, size=$root_size, type=83" "start=$boot_start, size=$boot_size, type=6, bootable" |
    sfdisk -q --no-reread --no-tell-kernel "$work/disk.img" >/dev/null 2>"$work/sfdisk.log" ||
    { cat "$work/sfdisk.log" >&2; die "sfdisk failed"; }
  dd if="$mbr_bin" of="$work/disk.img" bs=440 count=1 conv=notrunc status=none
  dd if="$work/boot.part" of="$work/disk.img" bs=512 seek=$boot_start conv=notrunc status=none
  dd if="$work/root.part" of="$work/disk.img" bs=512 seek=$root_start conv=notrunc status=none
  mv "$work/disk.img" "$out/disk.img"
  cp "$work/initrd.gz" "$out/initrd.gz"
  mark_built disk
  log "built $out/disk.img (${cylinders}x${heads}x${sectors}; root /dev/sda1 at sector $root_start, boot /dev/sda2 at $boot_start)"
}

# ---- boot.iso -------------------------------------------------------------------------
build_iso() {
  need xorriso:xorriso $isolinux_bin:isolinux $syslinux_bios/ldlinux.c32:syslinux-common objcopy:binutils || return 0
  guest_ready || return 0
  if up_to_date iso boot.iso "$0" "$here/boot-images/initramfs-init" "$here/boot-images/root-init" \
      "$cache/vmlinuz" "$cache/busybox" "$cache/tls_test" "$kernel_deb" "$isolinux_bin" "$syslinux_bios/ldlinux.c32"; then
    log "boot.iso is up to date"; return 0
  fi
  build_initramfs "$work/initrd.gz"
  stage_root "$work/cd"
  mkdir -p "$work/cd/isolinux"
  cp "$isolinux_bin" "$syslinux_bios/ldlinux.c32" "$cache/vmlinuz" "$work/initrd.gz" "$work/cd/isolinux/"
  syslinux_cfg "root=/dev/sr0 rootfstype=iso9660 ro $append_common" >"$work/cd/isolinux/isolinux.cfg"
  xorriso -as mkisofs -quiet -R -V X86LAB -o "$work/boot.iso" -b isolinux/isolinux.bin -c isolinux/boot.cat \
    -no-emul-boot -boot-load-size 4 -boot-info-table "$work/cd" 2>"$work/xorriso.log" ||
    { cat "$work/xorriso.log" >&2; die "xorriso failed"; }
  mv "$work/boot.iso" "$out/boot.iso"
  mark_built iso
  log "built $out/boot.iso (root /dev/sr0)"
}

# ---- floppy.img -----------------------------------------------------------------------
build_floppy() {
  need mkfs.fat:dosfstools mcopy:mtools syslinux:syslinux $syslinux_bios/mboot.c32:syslinux-common \
    $syslinux_bios/libcom32.c32:syslinux-common || return 0
  [ -n "$multiboot" ] || { skip "no Multiboot kernel given (--multiboot ELF)"; return 0; }
  [ -s "$multiboot" ] || { skip "no $multiboot (build the guest ROMs first)"; return 0; }
  if up_to_date floppy floppy.img "$0" "$multiboot" "$syslinux_bios/mboot.c32" "$(syslinux --version 2>&1 | head -1)"; then
    log "floppy.img is up to date"; return 0
  fi
  local name
  name=$(basename "$multiboot")
  mkfs.fat -C -F 12 -i 7838366c -n X86LAB-FD "$work/floppy.img" 1440 >/dev/null
  printf '%s\n' "SERIAL 0 115200" "DEFAULT multiboot" "PROMPT 0" "TIMEOUT 0" "LABEL multiboot" \
    "  KERNEL mboot.c32" "  APPEND $name" >"$work/syslinux.cfg"
  mcopy -i "$work/floppy.img" "$syslinux_bios/mboot.c32" "$syslinux_bios/libcom32.c32" "$multiboot" "$work/syslinux.cfg" ::
  syslinux --install "$work/floppy.img"
  mv "$work/floppy.img" "$out/floppy.img"
  mark_built floppy
  log "built $out/floppy.img ($name through mboot.c32)"
}

# ---- xv6.img, fs.img ------------------------------------------------------------------
build_xv6() {
  need make:make gcc:gcc perl:perl || return 0
  [ -f "$xv6_source/Makefile" ] || { skip "no xv6 source in $xv6_source (../shared/tests/xv6)"; return 0; }
  if up_to_date xv6 "xv6.img fs.img" "$0" $(cd "$xv6_source" && find . -type f | sort | sed "s|^\.|$xv6_source|"); then
    log "xv6.img and fs.img are up to date"; return 0
  fi
  cp -r "$xv6_source" "$work/xv6"
  chmod -R u+w "$work/xv6"
  # ORIGIN.md: GCC 12 needs the Makefile's -Werror dropped; TOOLPREFIX= is the host's
  # gcc (-m32), QEMU= keeps make from looking for one.
  make -C "$work/xv6" -s TOOLPREFIX= QEMU=true \
    CFLAGS="-fno-pic -static -fno-builtin -fno-strict-aliasing -O2 -Wall -MD -ggdb -m32 -fno-omit-frame-pointer -fno-stack-protector -fno-pie -no-pie" \
    xv6.img fs.img >"$work/xv6.log" 2>&1 || { tail -20 "$work/xv6.log" >&2; die "xv6: make xv6.img fs.img failed"; }
  cp "$work/xv6/xv6.img" "$work/xv6/fs.img" "$out/"
  mark_built xv6
  log "built $out/xv6.img and $out/fs.img"
}

for kind in "$@"; do
  case $kind in
    disk) build_disk ;;
    iso) build_iso ;;
    floppy) build_floppy ;;
    xv6) build_xv6 ;;
    all) kind=disk; build_disk; kind=iso; build_iso; kind=floppy; build_floppy; kind=xv6; build_xv6 ;;
    *) echo "make-boot-images: unknown image kind '$kind' (disk iso floppy xv6 all)" >&2; exit 2 ;;
  esac
done
