# gdb commands of reverse_session.sh (@PORT@ is replaced by x86lab's port).
set architecture i386
set pagination off
set confirm off
target remote 127.0.0.1:@PORT@
break bump
continue
echo ==after-bump-1==\n
info registers eip
stepi
stepi
echo ==second-stepi==\n
info registers
echo ==end==\n
stepi
echo ==third-stepi==\n
info registers eip
reverse-stepi
echo ==after-reverse-stepi==\n
info registers
echo ==end==\n
continue
continue
echo ==at-bump-3==\n
print counter
reverse-continue
echo ==reverse-continue-bump==\n
print counter
reverse-finish
echo ==reverse-finish==\n
x/i $pc
delete
break print
continue
watch *(long long *)&gdt[3]
reverse-continue
echo ==reverse-watch-1==\n
print (unsigned)$pc == (unsigned)&load_ds_insn
reverse-continue
echo ==reverse-watch-2==\n
print (unsigned)$pc == (unsigned)&gdt_write_high
reverse-continue
echo ==reverse-watch-3==\n
print (unsigned)$pc == (unsigned)&gdt_write_low
delete
monitor break-on selector 0x18
continue
echo ==forward-selector==\n
print (unsigned)$pc == (unsigned)&load_ds_insn + 2
reverse-continue
echo ==reverse-selector==\n
print (unsigned)$pc == (unsigned)&load_ds_insn
monitor break-on clear
monitor break-on write gdt 3
reverse-continue
echo ==reverse-descriptor-write==\n
print (unsigned)$pc == (unsigned)&gdt_write_high
monitor break-on clear
monitor history snapshots
reverse-continue
echo ==history-begin==\n
info registers eip
continue
