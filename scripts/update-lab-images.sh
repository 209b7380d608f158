#!/usr/bin/env bash
# Refreshes the screenshots of docs/labs/ from the lab tests: runs every labs.* test
# (offscreen; their scripts write the PNGs into the build tree), then copies each PNG
# the scripts wrote into docs/labs/images/. Look at them before committing.
# usage: scripts/update-lab-images.sh [BUILD-DIR]   (default build/release)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
[ -d "$build/tests/labs" ] || { echo "update-lab-images: no lab tests in $build (build first)" >&2; exit 2; }
SDL_VIDEODRIVER=offscreen ctest --test-dir "$build" -R '^labs\.' -LE long -j 2 > /dev/null || true
count=0
while IFS= read -r png; do
  cp "$png" "$root/docs/labs/images/"
  count=$((count + 1))
done < <(find "$build/tests/labs" -name '*.png' | sort)
echo "update-lab-images: $count screenshots copied into docs/labs/images/"
