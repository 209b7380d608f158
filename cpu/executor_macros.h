// Shorthands for table rows: the executor pair of a byte form (B), of a word/dword
// form (V) and of a form whose executor does not depend on the operand size (N), the
// eight rows of a register-in-opcode form and the sixteen rows of a condition-code
// family. B and V take the template arguments that follow the operand type, if any:
// V(shift, Shift::Rol) names shift<u16, Shift::Rol> and shift<u32, Shift::Rol>.
#pragma once

#define B(executor, ...) &executor<u8 __VA_OPT__(, ) __VA_ARGS__>, &executor<u8 __VA_OPT__(, ) __VA_ARGS__>
#define V(executor, ...) &executor<u16 __VA_OPT__(, ) __VA_ARGS__>, &executor<u32 __VA_OPT__(, ) __VA_ARGS__>
#define N(executor) &executor, &executor

// Eight rows opcode+0 .. opcode+7 for an instruction with the register in the
// opcode's low three bits (operand notation Z).
#define REGISTER_ROWS(opcode, mnemonic, operands, ...)                                                           \
  {opcode + 0, -1, mnemonic, operands, __VA_ARGS__}, {opcode + 1, -1, mnemonic, operands, __VA_ARGS__},          \
  {opcode + 2, -1, mnemonic, operands, __VA_ARGS__}, {opcode + 3, -1, mnemonic, operands, __VA_ARGS__},          \
  {opcode + 4, -1, mnemonic, operands, __VA_ARGS__}, {opcode + 5, -1, mnemonic, operands, __VA_ARGS__},          \
  {opcode + 6, -1, mnemonic, operands, __VA_ARGS__}, {opcode + 7, -1, mnemonic, operands, __VA_ARGS__}

// Sixteen rows opcode+0 .. opcode+15 for Jcc/SETcc/CMOVcc; the executor reads the
// condition from the opcode's low four bits.
#define CONDITION_ROWS(opcode, mnemonic, operands, ...)                                                     \
  {opcode + 0x0, -1, mnemonic "O", operands, __VA_ARGS__}, {opcode + 0x1, -1, mnemonic "NO", operands, __VA_ARGS__}, \
  {opcode + 0x2, -1, mnemonic "B", operands, __VA_ARGS__}, {opcode + 0x3, -1, mnemonic "AE", operands, __VA_ARGS__},  \
  {opcode + 0x4, -1, mnemonic "E", operands, __VA_ARGS__}, {opcode + 0x5, -1, mnemonic "NE", operands, __VA_ARGS__},  \
  {opcode + 0x6, -1, mnemonic "BE", operands, __VA_ARGS__}, {opcode + 0x7, -1, mnemonic "A", operands, __VA_ARGS__},  \
  {opcode + 0x8, -1, mnemonic "S", operands, __VA_ARGS__}, {opcode + 0x9, -1, mnemonic "NS", operands, __VA_ARGS__},  \
  {opcode + 0xA, -1, mnemonic "P", operands, __VA_ARGS__}, {opcode + 0xB, -1, mnemonic "NP", operands, __VA_ARGS__},  \
  {opcode + 0xC, -1, mnemonic "L", operands, __VA_ARGS__}, {opcode + 0xD, -1, mnemonic "GE", operands, __VA_ARGS__},  \
  {opcode + 0xE, -1, mnemonic "LE", operands, __VA_ARGS__}, {opcode + 0xF, -1, mnemonic "G", operands, __VA_ARGS__}
