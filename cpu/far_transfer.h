// Far control transfers shared by several executors: far JMP/CALL, far RET, IRET,
// call gates and task switches by instruction (Intel SDM Vol. 2, "JMP", "CALL",
// "RET", "IRET/IRETD"; Vol. 3, "Privilege Level Checking When Transferring Program
// Control Between Code Segments", "Task Switching").
#pragma once
#include "cpu/cpu.h"

namespace x86lab {

// Sets EIP to `target` (masked to 16 bits for a 16-bit operand size) after checking
// it against the CS limit: #GP(0) outside.
void branch(Cpu& c, const Instruction& i, u32 target);

// Far JMP or CALL to selector:offset in the current mode. `operand32` chooses the
// size of the pushed return address for CALL. In protected mode the selector may name
// a code segment, a call gate, a task gate or a TSS.
void far_jump_or_call(Cpu& c, u16 selector, u32 offset, bool is_call, bool operand32);

// JMP/CALL through a call gate (call_gate.cpp): the gate's checks, then a transfer to
// the same ring, or for CALL to a more privileged ring with the stack switch from the
// TSS and the gate's parameter count of words or dwords copied (SDM "CALL": CALL-GATE).
void call_gate_transfer(Cpu& c, Selector gate_selector, const Descriptor& gate, bool is_call);

// JMP/CALL to a TSS descriptor or a task gate (task_switch.cpp, SDM "JMP"/"CALL":
// TASK-GATE and TASK-STATE-SEGMENT).
void task_transfer(Cpu& c, Selector selector, const DescriptorSlot& slot, bool is_call);

// IRET with NT = 1: a switch back to the task in the current TSS's previous-task link
// (task_switch.cpp, SDM "IRET": TASK-RETURN).
void task_return(Cpu& c);

// Invalidates DS, ES, FS and GS after a return to an outer ring when they hold a data
// or non-conforming code segment whose DPL is below the new CPL (SDM "RET").
void clear_inner_segments(Cpu& c);

}  // namespace x86lab
