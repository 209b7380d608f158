// Instruction forms (one table row each) and decoded instructions.
//
// A row states the shape of one instruction form in the SDM's notation (Intel SDM
// Vol. 2, Appendix A "Opcode Map", "Key to Abbreviations"): opcode, ModRM.reg
// extension, operands such as "Ev,Gv", mnemonic, the executor for each operand size,
// and attributes. The decoder, the CPU's statistics and cost model, the debugger's
// step-over and step-out, and the decoder tests read the same rows; the operand
// notation alone decides ModRM and immediate lengths. The instruction text of the text
// trace and the GUI's disassembly is written from the decoded rows too
// (cpu/disassembler.h); Zydis is only the tests' independent oracle.
#pragma once
#include <array>
#include <span>
#include <string_view>

#include "trace/types.h"

namespace x86lab {

class Cpu;
struct Instruction;
using Executor = void (*)(Cpu&, const Instruction&);

// Operand addressing methods of the SDM's opcode map (the letter before the size).
enum class OperandMethod : u8 {
  None,
  E,         // ModRM r/m: register or memory
  G,         // ModRM reg: general register
  M,         // ModRM r/m: memory only
  R,         // ModRM r/m: register only (MOV to/from CRn/DRn)
  S,         // ModRM reg: segment register
  C,         // ModRM reg: control register
  D,         // ModRM reg: debug register
  I,         // immediate
  J,         // relative offset added to EIP
  A,         // far pointer immediate (selector:offset)
  O,         // memory offset immediate (moffs), no ModRM
  Z,         // general register in the opcode's low 3 bits
  X,         // string source DS:[E]SI
  Y,         // string destination ES:[E]DI
  Accumulator,  // AL / AX / EAX by size
  Counter,      // CL
  Port,         // DX as an I/O port
  One,          // the constant 1 (shift by one)
  Segment,      // a fixed segment register (PUSH ES ...); register number in `fixed`
  StackTop,       // x87 "ST": ST(0)
  StackRegister,  // x87 "ST(i)": i is ModRM.rm
};

// Operand sizes: b byte, w word, d dword, v word/dword by operand size, z word/dword
// immediate (16 or 32 bits by operand size), p far pointer (32 or 48 bits),
// a BOUND pair, q quadword, s 6-byte descriptor-table pseudo-descriptor.
enum class OperandSize : u8 { None, b, w, d, v, z, p, a, q, s };

struct OperandSpec {
  OperandMethod method = OperandMethod::None;
  OperandSize size = OperandSize::None;
  u8 fixed = 0;  // register number for Segment / fixed registers
};

// Row attributes. kProtectedModeOnly, kDebugRegisterAccess and kPrivileged are checks
// made before the executor runs, in that order: cpu/generate_forms.cmake gives such a
// row the executor checked<attributes, executor> (cpu/privilege.h), so no other
// instruction pays for them.
enum Attribute : u16 {
  kLockable = 1 << 0,        // LOCK allowed with a memory destination
  kMemoryOnly = 1 << 1,      // ModRM.mod = 3 raises #UD
  kRegisterOnly = 1 << 2,    // ModRM.mod != 3 raises #UD (or selects another row)
  kStringOp = 1 << 3,        // honours REP/REPE/REPNE
  // Calls a procedure or handler that returns to the next instruction: CALL, INT n,
  // INT3, INTO, INT1 (the debugger's step-over runs over it).
  kCall = 1 << 4,
  // Privileged (SDM Vol. 3, "Privileged Instructions"): #GP(0) at CPL > 0 and in
  // virtual-8086 mode; real mode has no privilege levels.
  kPrivileged = 1 << 5,
  kDefault32 = 1 << 6,       // operand size does not depend on 66h (e.g. MOV CRn)
  kReturn = 1 << 7,          // RET, RETF, IRET (the debugger's step-out stops after it)
  // #UD in real-address and virtual-8086 mode ("not recognized"): SLDT STR LLDT LTR VERR
  // VERW LAR LSL ARPL.
  kProtectedModeOnly = 1 << 8,
  // Loads CS or changes CPL without a fault: far JMP/CALL/RET, IRET, INT n, INT3, INTO,
  // INT1, SYSENTER, SYSEXIT (and the task switches they may make). The CPU runs them
  // through execute_ending_run (cpu/fetch_unit.cpp), which ends a linked run after them; any other
  // instruction that changes CS or CPL does so by faulting.
  kLoadsCs = 1 << 9,
  // MOV to/from DRn: DR7.GD raises #DB (SDM "Debug Control Register (DR7)") before
  // the privilege check.
  kDebugRegisterAccess = 1 << 10,
};

struct InstructionForm {
  u16 opcode;                 // 0x00-0xFF one-byte map; 0x100-0x1FF the 0F map
  i8 extension;               // ModRM.reg for group rows, -1 otherwise
  std::string_view mnemonic;  // as the SDM spells it
  std::string_view operands;  // SDM notation, e.g. "Ev,Gv"; "" for none
  Executor execute16;         // operand size 16 (also byte forms)
  Executor execute32;         // operand size 32
  u16 attributes = 0;
  i8 rm = -1;                 // x87 register forms named by the whole ModRM byte (D9 E0 FCHS): ModRM.rm
  u16 map_line = 0;           // the row's line in cpu/opcode_map.tsv (the table's rows follow it)
  // The flags column (SDM Vol. 2, each instruction's "Flags Affected"), as EFLAGS bits
  // (cpu/flags.h): the flags the instruction may change, and those of them the SDM
  // leaves undefined (shifts: at counts other than 0 and 1, cpu/undefined_flags.h).
  u32 flags_written = 0;
  u32 flags_undefined = 0;
};

inline constexpr u8 kNoRegister = 0xFF;
// Instruction::register_operand's mark for the immediate operand (or the constant 1)
// whose value decode resolved into Instruction::immediate_operand.
inline constexpr u8 kImmediateOperand = 0xFE;
// Instruction::register_operand's mark for a memory operand at the ModRM effective
// address (methods E with ModRM.mod != 3, and M) in Instruction::segment. Every value
// below it is a register.
inline constexpr u8 kModrmMemoryOperand = 0xFD;

struct Instruction {
  const InstructionForm* form = nullptr;
  Executor execute = nullptr;
  u16 row = 0;             // the form's index in InstructionTable::rows() (cost model, statistics)
  u16 opcode_index = 0;    // 00-FF one-byte map, 100-1FF the 0F map
  std::array<OperandSpec, 3> operands{};
  u8 length = 0;
  u8 opcode = 0;           // the last opcode byte (its low 3 bits name Z registers)
  u8 mod = 0, reg = 0, rm = 0;
  bool has_modrm = false;
  bool operand_size_32 = false;
  bool address_size_32 = false;
  bool lock = false;
  u8 rep = 0;              // 0, 0xF2 (REPNE) or 0xF3 (REP/REPE)
  u8 segment = 3;          // segment of the memory operand: default or the last override
  bool segment_override = false;
  u8 base = kNoRegister;   // memory operand: base register
  u8 index = kNoRegister;  // memory operand: index register
  u8 scale = 0;            // index shift (0..3)
  u32 displacement = 0;
  u32 immediate = 0;       // first immediate (or moffs, or the offset of Ap)
  u32 immediate2 = 0;      // second immediate (ENTER's level, Ap's selector)
  // Set by the CPU after decoding: the cost model's price of this instruction (its
  // row's cost plus the memory-operand cost), in 1/256 cycles.
  u32 cost = 0;
  // Set by the CPU after decoding: for each operand the general register
  // read_operand/write_operand use (numbered as Cpu::reg<T> takes it), kImmediateOperand
  // for the first immediate or the constant 1 (its value in immediate_operand),
  // kModrmMemoryOperand for a memory operand at the ModRM effective address, or
  // kNoRegister for another memory operand (moffs, string operands), a segment
  // register and a second immediate (the generic path decides those).
  std::array<u8, 3> register_operand{kNoRegister, kNoRegister, kNoRegister};
  // Set with register_operand: the first immediate as read_operand<T> returns it when
  // cast to T (an Ib operand sign-extended to 32 bits), or 1 for the constant 1.
  u32 immediate_operand = 0;
  // Set with register_operand: every operand is a register or the immediate (none is
  // kNoRegister or kModrmMemoryOperand), so executors may take their register-only
  // form (dispatch_resolved).
  bool operands_resolved = false;

  bool is_memory() const { return has_modrm && mod != 3; }
  // The form's executor for this operand size (16-bit also for byte forms).
  Executor form_executor() const { return operand_size_32 ? form->execute32 : form->execute16; }
};

// All rows of one family of instructions: its lines of cpu/opcode_map.tsv, generated
// at build time into the kForms table next to their executors.
using FormList = std::span<const InstructionForm>;

// Parses one operand in SDM notation ("Ev", "Ib", "AL", "eAX", "CL", "DX", "1", "ES",
// "Xb", "Zv", ...). Throws std::invalid_argument naming the text for an unknown one.
OperandSpec parse_operand(std::string_view text);

}  // namespace x86lab
