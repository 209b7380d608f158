#!/usr/bin/env bash
# `x86lab compare tls-real` on the Linux compare guest (issue 25): boots Debian's i386
# kernel with the compare initramfs (scripts/fetch-linux-compare-guest.sh), records the
# TLS stream of coreutils `ls -R` over the 1,000-file tree (not from the cache), replays
# it through the tls designs and checks the report against independent facts:
#   - ls -R of 20 directories of 50 files prints 1 + 20 + 1 + 20 x (1 + 50) + 19 = 1061 lines;
#   - a clipped segment faults exactly on the accesses below the thread pointer: the
#     emulation design's #GP count equals the stream's negative-offset accesses, counted
#     by the recorder (not by the replay guest);
#   - emulation and flipping fault (> 0), native and virt-happy never;
#   - two processes use TLS in the window (the shell and ls), so at least two threads.
# Skips (exit 77) when the guest is not in the cache.
# usage: linux_tls_real.sh X86LAB [OUT-DIR]
set -u
x86lab=$1
out=${2:-$(mktemp -d)}
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initrd-compare.gz" ]; then
  echo "skipped: no Linux compare guest in $cache (run scripts/fetch-linux-compare-guest.sh to build it from Debian's archive)"
  exit 77
fi
rm -rf "$out"
"$x86lab" compare tls-real --workload ls --no-stream-cache --out "$out" -j 2 > "$out.stdout" 2> "$out.stderr"
status=$?
cat "$out.stderr"
[ -e "$out/tls-real.txt" ] && cat "$out/tls-real.txt"
if [ $status != 0 ]; then echo "compare tls-real exit status $status"; exit 1; fi
fail=0
grep -qF "x86lab-guest: ls -R lines 1061" "$out/tls-real-console.txt" || { echo "missing: ls -R lines 1061"; fail=1; }
grep -qF "X86LAB-WORKLOAD-END ls status=0" "$out/tls-real-console.txt" || { echo "missing: ls status=0"; fail=1; }
python3 - "$out/tls-real.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
d = {x["name"]: x for x in r["designs"]}
s = r["stream"]
checks = [
    ("every design replayed", all(x["succeeded"] for x in r["designs"])),
    ("negative accesses > 0", s["negative_accesses"] > 0),
    ("emulation #GP == negative-offset accesses", d["emulation"]["faults"] == s["negative_accesses"]),
    ("emulation-rewrites #GP == negative-offset accesses", d["emulation-rewrites"]["faults"] == s["negative_accesses"]),
    ("flipping faults > 0", d["flipping"]["faults"] > 0),
    ("flipping replays every fault", d["flipping"]["replays"] == d["flipping"]["faults"]),
    ("native never faults", d["native"]["faults"] == 0),
    ("virt-happy never faults", d["virt-happy"]["faults"] == 0),
    ("at least two threads", s["threads"] >= 2),
    ("the workload's own instructions exceed its TLS accesses", r["workload_instructions"] > s["accesses"]),
    # -mno-tls-direct-seg-refs code only adds a load: never faster than native.
    ("virt-happy slowdown >= 0", d["virt-happy"]["slowdown_percent"] >= 0),
    ("every slowdown has its interval around it",
     all(x["slowdown_interval"][0] <= x["slowdown_percent"] <= x["slowdown_interval"][1]
         for x in r["designs"] if "slowdown_interval" in x)),
    ("labelled as recorded", r["stack_protector"] == "as recorded"),
]
# The stack-protector knob: the canary reads (4-byte reads of %gs:0x14) removed, emulation
# keeps every #GP (they are all at negative offsets), flipping loses flips.
n = json.load(open(sys.argv[1].replace("tls-real.json", "tls-real-no-canary.json")))
nd = {x["name"]: x for x in n["designs"]}
checks += [
    ("no-canary labelled none", n["stack_protector"] == "none"),
    ("no-canary removed reads", n["canary_reads_removed"] > 0
     and n["stream"]["accesses"] == s["accesses"] - n["canary_reads_removed"]),
    ("no-canary emulation #GP unchanged", nd["emulation"]["faults"] == d["emulation"]["faults"]),
    ("no-canary flipping has fewer flips", nd["flipping"]["flips"] < d["flipping"]["flips"]),
]
bad = [name for name, ok in checks if not ok]
for name in bad: print("failed:", name)
print("stream:", s, "emulation faults", d["emulation"]["faults"], "flipping faults", d["flipping"]["faults"])
sys.exit(1 if bad else 0)
PY
exit $fail
