# Sourced by the linux tests: linux_guest_start X86LAB [LOG] INITRD sets $x86lab, $log
# (LOG or a temporary file) and $cache (the guest folder of scripts/fetch-linux-guest.sh),
# and skips the test (exit 77) when the kernel or the initramfs INITRD is not there.
linux_guest_start() {
  x86lab=$1
  log=${2:-$(mktemp)}
  local initrd=$3
  cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
  if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/$initrd" ]; then
    echo "skipped: no Linux guest ($initrd) in $cache (run scripts/fetch-linux-guest.sh to fetch Debian's kernel and busybox)"
    exit 77
  fi
}
