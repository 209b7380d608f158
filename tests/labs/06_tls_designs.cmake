# docs/labs/06-tls-designs.md: the micro-benchmark part (the tls-real part is
# labs.06_tls_real, label long: it boots Linux).
run_cli(tls 0 compare tls --no-files)
expect_in(tls.txt
  "tls: TLS on a segment-truncating hypervisor (seed 000, Xen 2.0, 2004)"
  "modeled cycles per operation                    22.31            24.26      208.33              210.76      402.07             407.19       22.47                24.90"
  "vector 13 (0Dh) #GP                               0                0        4160                4160        8191               8255           0                    0"
  "emulations (guest)                                  0                0        4160                4160           0                  0           0                    0"
  "flips_to_expand_down (guest)                        0                0           0                   0        4096               4160           0                    0"
  "hypervisor_descriptor_writes (guest)                1               65           1                  65        8192               8320           1                   65")
run_cli(tls-json 0 compare tls --no-files --format json)
expect_in(tls-json.txt "\"scenario\"")
# Question 5's sweep.
run_cli(sweep 0 compare sweep tls --vary run=1,4,16 --out sweep)
expect_in(sweep/sweep.csv "\n1,emulation,1,6.162," "\n1,flipping,1,11.638," "\n4,emulation,1,6.077," "\n4,flipping,1,3.668,"
  "\n16,emulation,1,6.094," "\n16,flipping,1,1.726,")
expect_lines(sweep/sweep.csv "^(1|4|16),emulation,1,[0-9.]+,[0-9]+,[0-9]+,[0-9.]+,4228," 3)
