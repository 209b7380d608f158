# gdb commands of reverse_next_step.sh (@PORT@ is replaced by x86lab's port).
set architecture i386
set pagination off
set confirm off
target remote 127.0.0.1:@PORT@
break reverse_kernel.c:59
continue
echo ==at-print==\n
frame
reverse-next
echo ==reverse-next-1==\n
frame
reverse-next
echo ==reverse-next-2==\n
frame
next
next
echo ==next-2==\n
frame
reverse-step
echo ==reverse-step==\n
frame
echo ==before-stepi==\n
info registers
echo ==end==\n
stepi
stepi
echo ==after-stepi==\n
info registers eip
reverse-stepi
reverse-stepi
echo ==after-reverse-stepi==\n
info registers
echo ==end==\n
delete
detach
