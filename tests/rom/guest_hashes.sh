#!/usr/bin/env bash
# Hashes of the guest programs (ROM images and Multiboot ELF kernels) in a guest build
# folder, and their check against the committed list tests/rom/guest_hashes.txt.
#   guest_hashes.sh print DIR          the list for DIR on stdout
#   guest_hashes.sh check DIR LIST     exit 0 when DIR's guests are exactly LIST's, else 1
#   guest_hashes.sh rebuild SRC LIST   builds SRC/roms/guest in a fresh folder with the
#                                      Makefile generator (the presets use Ninja), a Debug
#                                      build type and hostile CFLAGS/LDFLAGS,
#                                      then checks it against LIST
# An ELF is hashed by what a loader sees, its entry point, program headers and loadable
# bytes (objcopy -O binary), not its symbol and debug sections, which name the build
# folder. test386 images (built from ../shared) are not listed.
set -euo pipefail

hash_one() {
  local file=$1
  case $file in
    *.elf)
      local flat
      flat=$(mktemp)
      objcopy -O binary "$file" "$flat"
      { readelf -hlW "$file" | grep -E '^ *(Entry point|LOAD)'; sha256sum <"$flat"; } | sha256sum | cut -d' ' -f1
      rm -f "$flat" ;;
    *) sha256sum <"$file" | cut -d' ' -f1 ;;
  esac
}

print_list() {
  local dir=$1
  (cd "$dir" && find . \( -name CMakeFiles -o -name test386 \) -prune -o \( -name '*.bin' -o -name '*.elf' \) -type f -print |
    sed 's|^\./||' | LC_ALL=C sort) | while read -r rel; do
    printf '%s  %s\n' "$(hash_one "$dir/$rel")" "$rel"
  done
}

check_list() {
  local dir=$1 list=$2 actual
  actual=$(mktemp)
  print_list "$dir" >"$actual"
  if diff -u <(grep -v '^#' "$list") "$actual"; then
    echo "guest_hashes: $(wc -l <"$actual") guest images in $dir match $list"
    rm -f "$actual"
  else
    echo "guest_hashes: the guest images in $dir differ from $list (lines above: - listed, + built)." >&2
    echo "guest_hashes: after an intended change to a guest, regenerate the list with:" >&2
    echo "  tests/rom/guest_hashes.sh print $dir > tests/rom/guest_hashes.txt  (keep its header)" >&2
    rm -f "$actual"
    return 1
  fi
}

case ${1:-} in
  print) print_list "$2" ;;
  check) check_list "$2" "$3" ;;
  rebuild)
    src=$2 list=$3
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    gen="Unix Makefiles"  # the presets use Ninja, which orders a link's objects otherwise
    echo "guest_hashes: building $src/roms/guest with '$gen', CFLAGS=-O0 -g3 -DNDEBUG, LDFLAGS=-s"
    CFLAGS="-O0 -g3 -DNDEBUG" LDFLAGS="-s" cmake -S "$src/roms/guest" -B "$out" -G "$gen" \
      -DCMAKE_BUILD_TYPE=Debug -DX86LAB_ROM_SOURCE="$src/roms" >"$out/configure.log" 2>&1 ||
      { cat "$out/configure.log"; exit 1; }
    cmake --build "$out" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
    check_list "$out" "$list" ;;
  *) echo "usage: guest_hashes.sh print DIR | check DIR LIST | rebuild SRC LIST" >&2; exit 2 ;;
esac
