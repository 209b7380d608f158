# gdb commands of gdb_session.sh (@PORT@ is replaced by x86lab's port).
set architecture i386
set pagination off
set confirm off
target remote 127.0.0.1:@PORT@
info registers eip
break bump
continue
print counter
continue
print counter
delete
watch counter
continue
delete
set var counter = 40
print counter
x/4xb &counter
set $eax = 0x1234
print/x $eax
stepi
info registers eip
monitor info segments
break add_twice
continue
print a
finish
monitor break-on io 0xe9
continue
monitor break-on clear
continue
