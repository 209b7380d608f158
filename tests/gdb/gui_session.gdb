# gdb commands of gui_gdb_session.sh (@PORT@ is replaced by the inspector's port).
set architecture i386
set pagination off
set confirm off
target remote 127.0.0.1:@PORT@
break bump
continue
print counter
info registers eip
continue
print counter
set var counter = 40
delete
break add_twice
continue
print a
detach
