// Far control transfers shared by several executors: far JMP/CALL, far RET, IRET
// (Intel SDM Vol. 2, "JMP", "CALL", "RET", "IRET/IRETD"; Vol. 3, "Privilege Level
// Checking When Transferring Program Control Between Code Segments").
#pragma once
#include "cpu/cpu.h"

namespace x86lab {

// Sets EIP to `target` (masked to 16 bits for a 16-bit operand size) after checking
// it against the CS limit: #GP(0) outside.
void branch(Cpu& c, const Instruction& i, u32 target);

// Far JMP or CALL to selector:offset in the current mode. `operand32` chooses the
// size of the pushed return address for CALL.
void far_jump_or_call(Cpu& c, u16 selector, u32 offset, bool is_call, bool operand32);

}  // namespace x86lab
