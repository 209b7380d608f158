# Sourced by the bench scripts: what they share. Sets `root` (the repository);
# `parse_options` parses "--NAME VALUE" options into the variables the script allows,
# `require_x86lab` checks the build, `make_work_dir` makes a temporary folder removed
# on exit (`work`), and `median` prints the median of the numbers on standard input.
#
# usage (in a script): source "$(dirname "$0")/bench_common.sh"
#                      parse_options SCRIPT "build runs rounds" "$@"
# Each allowed NAME must already hold its default. An unknown option, or one without a
# value, prints one line naming it and exits with status 2.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

parse_options() {
  local script=$1 allowed=" $2 " name
  shift 2
  while [ $# -gt 0 ]; do
    name=${1#--}
    if [ "$name" = "$1" ] || [[ $allowed != *" $name "* ]]; then
      echo "$script: unknown option '$1' (see the usage at the top of the script)" >&2
      exit 2
    fi
    [ $# -ge 2 ] || { echo "$script: option '$1' needs a value" >&2; exit 2; }
    printf -v "$name" '%s' "$2"
    shift 2
  done
}

# require_x86lab SCRIPT BUILD: the build folder must hold an x86lab binary.
require_x86lab() {
  [ -x "$2/x86lab" ] || { echo "$1: no x86lab binary in '$2' (build first or pass --build)" >&2; exit 2; }
}

make_work_dir() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}

# The median of the numbers on standard input (the upper one of an even count).
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# linux_gdb_stub SCRIPT [WRAPPER...] X86LAB: boots the cached Linux guest
# (scripts/fetch-linux-guest.sh; $cache) under `X86LAB run --gdb 127.0.0.1:0 --wait-gdb`,
# prefixed by WRAPPER (e.g. GNU time), in the background: serial output in $work/serial,
# stderr in $work/stderr, the process in $pid (killed on exit), the stub's port in $port.
# Without the guest it says so and exits 0; without a port in 10 s it exits 1.
linux_gdb_stub() {
  local script=$1
  shift
  if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initrd.gz" ]; then
    echo "$script: not run: no guest in $cache (scripts/fetch-linux-guest.sh)"
    exit 0
  fi
  x86lab=${*: -1}
  stub_wrapper=("${@:1:$#-1}")
  source "$root/tests/gdb/start_stub.sh"
  start_stub --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1" \
    --serial "file:$work/serial" --wait-gdb </dev/null
}
