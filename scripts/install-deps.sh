#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages x86lab builds and tests with
# (docs/DESIGN.md section 8 plus build and test tools). Idempotent: packages that
# are already installed are skipped, and nothing is done when none is missing.
set -euo pipefail

packages=(
  # build tools
  cmake ninja-build pkg-config g++ make clang libclang-rt-14-dev ccache
  # guest programs
  nasm gcc-multilib
  # libraries (DESIGN.md section 8)
  libboost-program-options-dev libboost-dev
  libsdl2-dev libimgui-dev libstb-dev
  libgtest-dev libgmock-dev
  libzydis-dev nlohmann-json3-dev zlib1g-dev libzstd-dev
  # plots of x86lab compare (docs/compare.md)
  gnuplot-nox
  # sweeps spread over machines (docs/compare.md, "Running a sweep on a cluster"):
  # GNU parallel runs the job file (ctest compare.sweep_parallel_matches_jobs), Slurm's
  # client tools submit the array script
  parallel slurm-client
  # test peers (QEMU, and Bochs for the ROM tests: docs/bochs-differences.md; the ROM
  # is its BIOS, so no BIOS image is needed, but Bochs loads its default VGA BIOS,
  # /usr/share/bochs/VGABIOS-lgpl-latest of package vgabios, and stops without it)
  # and GUI test tools
  qemu-system-x86 qemu-user bochs vgabios xvfb xauth xdotool imagemagick gdb
  # the PC BIOSes x86lab boots images with (docs/booting.md "BIOS and chipset"; the
  # ctests bios.seabios_post and bios.bochs_post): SeaBIOS with its VGA BIOSes, and
  # the Bochs BIOS
  seabios bochsbios
  # the report checks of tests/boot/linux_tls_real.sh (and scripts/sst286-known-failures.py)
  python3
  # the boot images of scripts/make-boot-images.sh (tests/images/, docs/booting.md,
  # "Images"): SYSLINUX/ISOLINUX with their MBR code and COM32 modules, sfdisk,
  # mke2fs/debugfs, mkfs.fat, mtools, xorriso; make and perl build xv6; Bochs's BIOS for
  # the Bochs peers (the Linux guest's kernel and busybox come from
  # scripts/fetch-linux-guest.sh)
  syslinux syslinux-common syslinux-utils extlinux isolinux fdisk e2fsprogs dosfstools mtools xorriso
  make perl bochsbios
)
# --bench: also the benchmark peers and tools of bench/run_bench.sh (Bochs's BIOS
# images, GNU time for peak RSS, valgrind for callgrind profiles; syslinux,
# mtools and dosfstools make the disk image Bochs boots Linux from).
if [ "${1:-}" = --bench ]; then
  packages+=(bochsbios time valgrind syslinux mtools dosfstools)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO=(sudo -n)
else
  echo "install-deps: not root and no password-less sudo; run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
