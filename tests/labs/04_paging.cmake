# docs/labs/04-paging.md, step by step.
set(kernel ${ROM_DIR}/labs/lab_paging_kernel.elf)
# 1. The kernel's own account.
run_cli(run 33 run --kernel ${kernel} --stats)
expect_in(run.txt
  "  PDE[1] 00104003 A=0   PTE 00105003 A=0 D=0\nread [00400000h] = AAAAAAAA\n  PDE[1] 00104023 A=1   PTE 00105023 A=1 D=0\n"
  "wrote [00400004h]\n  PDE[1] 00104023 A=1   PTE 00105063 A=1 D=1\n"
  "PTE now points at page_b, no INVLPG\nread [00400000h] = AAAAAAAA\nINVLPG 00400000h\nread [00400000h] = BBBBBBBB\nlab 4 done"
  "\nlocked.page-directory-ad 2\n" "\nlocked.page-table-ad 10\n" "\npage-walks 10\n" "\ninvlpg 1\n")
# 2. The walks in a trace.
run_cli(trace 33 run --kernel ${kernel} --trace text:walks.trace --trace-filter mem,walk)
expect_in(walks.trace
  "#11768 c=10109 mem rmw page-directory-ad LOCK lin=00102004 phys=00102004 size=4 value=00104003->00104023"
  "#11768 c=10109 mem rmw page-table-ad LOCK lin=00104000 phys=00104000 size=4 value=00105003->00105023"
  "#11768 c=10109 walk lin=00400000 phys=00105000 pde=00104003 pte=00105003"
  "#13930 c=12080 mem rmw page-table-ad LOCK lin=00104000 phys=00104000 size=4 value=00105023->00105063"
  "#13930 c=12080 walk lin=00400004 phys=00105004 pde=00104023 pte=00105023 write"
  "#17983 c=15734 walk lin=00400000 phys=00106000 pde=00104023 pte=00106003")
expect_lines(walks.trace "walk lin=00400000" 2)
# 3. In the inspector.
run_gui(gui 04-paging.script --kernel ${kernel})
expect_in(gui/04-a-first-read.txt "event breakpoint 1 (lock) page-directory-ad at 0010:00100263"
  "linear 00400000  CR3 00102000" "| PDE[001] | 00102004 | 00104023 | A W P |" "| PTE[000] | 00104000 | 00105023 | A W P |"
  "-> physical 00105000 (4 KiB page, supervisor, writable)" "| EAX AAAAAAAA |")
expect_image(gui 04-a-first-read)
expect_in(gui/04-b-first-write.txt "event breakpoint 2 (lock) page-table-ad at 0010:001002AB" "instructions 13931")
expect_in(gui/04-c-pte-changed.txt "event breakpoint 2 (lock) page-table-ad at 0010:001002E4" "instructions 15765")
expect_in(gui/04-d-after-invlpg.txt "event breakpoint 2 (lock) page-table-ad at 0010:0010032A" "instructions 17984"
  "| EAX BBBBBBBB |")
