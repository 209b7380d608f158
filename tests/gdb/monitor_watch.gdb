# gdb commands of monitor_watch.sh (@PORT@ is replaced by x86lab's port).
set architecture i386
set pagination off
set confirm off
target remote 127.0.0.1:@PORT@
eval "monitor break-on phys 0x%x 4 w", &counter
continue
echo ==phys-1==\n
print counter
continue
echo ==phys-2==\n
print counter
monitor break-on clear
eval "monitor break-on watch 0x%x 4 w", &counter
continue
echo ==linear-3==\n
print counter
monitor break-on clear
continue
