# docs/labs/06-tls-designs.md, the real workload: `compare tls-real` boots the Linux
# compare guest and replays the TLS stream of `ls -R` through each design.
set(cache $ENV{X86LAB_GUEST_CACHE})
if(NOT cache)
  set(cache $ENV{HOME}/.cache/x86lab/guests)
endif()
if(NOT EXISTS ${cache}/vmlinuz OR NOT EXISTS ${cache}/initrd-compare.gz)
  message(STATUS "lab skipped: no Linux compare guest in ${cache} (scripts/fetch-linux-compare-guest.sh builds it)")
  return()
endif()
run_cli(tls-real 0 compare tls-real --no-files)
expect_in(tls-real.txt
  "its TLS stream: 36300 accesses through %gs at CPL 3, 12055 at negative offsets"
  "emulation                  12055         0         0"
  "flipping                   19492     19492     19492"
  "emulation: +46.8 % against the seed's +67 %: below it"
  "flipping:  +81.2 % against the seed's +117 %: below it")
