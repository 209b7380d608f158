# Shell library of the Linux-guest scripts (sourced, not run): a private apt state for
# Debian 12 (bookworm) i386 packages, and a cpio "newc" writer for initramfs images.
# The caller defines log() and die() and sets `cache` (the guest folder) first.
#
#   debian_i386_apt_setup       finds the host's bookworm mirror, writes $cache/apt/etc/
#                               sources.list and runs apt-get update into $cache/apt/lists;
#                               sets the array apt_opts and apt_dir.
#   debian_i386_download PKG..  downloads the .debs into $apt_dir/debs (old ones of the same
#                               packages are replaced).
#   cpio_entry NAME MODE FILE [MAJOR MINOR]   writes one newc entry to stdout (MODE octal,
#                               FILE empty for a directory or device; the caller resets ino=0).
#   cpio_symlink NAME TARGET    writes a symbolic link entry.

debian_i386_mirror() {  # the Debian mirror apt is configured with (deb822 .sources first, then sources.list)
  local mirror= f
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
  echo "$mirror"
}

debian_i386_apt_setup() {
  local mirror keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  mirror=$(debian_i386_mirror)
  [ -n "$mirror" ] || die "no Debian bookworm mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
  log "using the configured mirror for bookworm i386"
  apt_dir="$cache/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc/preferences.d" \
    "$apt_dir/etc/none" "$apt_dir/debs"
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
  log "apt-get update (i386 lists in $apt_dir/lists)"
  apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; die "apt-get update failed"; }
}

debian_i386_download() {
  local pkg
  for pkg in "$@"; do rm -f "$apt_dir/debs/${pkg}"_*.deb; done
  (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" -q download "$@") || die "apt-get download $* failed"
}

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
cpio_symlink() {  # cpio_symlink NAME TARGET: the link's data is its target, mode 120777
  local name=$1 target=$2 namesize size
  namesize=$(( ${#name} + 1 ))
  size=${#target}
  ino=$((ino + 1))
  printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
    "$ino" "$((8#120777))" 0 0 1 0 "$size" 0 0 0 0 "$namesize" 0
  printf '%s\0' "$name"
  head -c $(( (4 - (110 + namesize) % 4) % 4 )) /dev/zero
  printf '%s' "$target"
  head -c $(( (4 - size % 4) % 4 )) /dev/zero
}
