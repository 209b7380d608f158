// The instruction forms of the host differential tests and the random cases drawn from
// them (see host_cases.h). Operand notation as in Intel SDM Vol. 2, Appendix A.
#include "host_cases.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/decoder.h"
#include "cpu/undefined_flags.h"

namespace x86lab::testing {
namespace {

enum class Width : u8 { Byte, Variable, Dword };  // Variable: 16 or 32 bits, drawn per case

// Operand layouts, by the SDM's operand notation.
enum class Shape : u8 {
  EG,      // Ev,Gv
  GE,      // Gv,Ev
  E,       // Ev (ModRM.reg is the extension, or random when the form has none)
  EIb,     // Ev,Ib
  EIz,     // Ev,Iz
  E1,      // Ev,1
  ECL,     // Ev,CL
  AccI,    // AL,Ib / eAX,Iz
  GEIb,    // Gv,Ev,Ib
  GEIz,    // Gv,Ev,Iz
  EGIb,    // Ev,Gv,Ib
  EGCL,    // Ev,Gv,CL
  Z,       // Zv: register in the opcode's low three bits
  ZI,      // Zv,Iv
  Plain,   // no explicit operand
  String,  // Xv/Yv string operands
  GM,      // Gv,M (LEA)
  Mq,      // Mq (CMPXCHG8B)
};

enum Trait : u16 {
  kLock = 1 << 0,              // LOCK allowed with a memory destination
  kDivide = 1 << 1,            // DIV: a dividend whose quotient fits, half of the time
  kSigned = 1 << 2,            // IDIV
  kBitOffset = 1 << 3,         // BT family Ev,Gv: Gv is a signed bit offset into memory
  kSource8 = 1 << 4,           // MOVZX/MOVSX Gv,Eb
  kSource16 = 1 << 5,          // MOVZX/MOVSX Gv,Ew
  kCompareExchange = 1 << 6,   // CMPXCHG: the accumulator equals the destination half of the time
  kRepeatable = 1 << 7,        // string form honouring REP
  kConditional = 1 << 8,       // CMPS/SCAS: REPE and REPNE
  kXlat = 1 << 9,              // XLAT: EBX addresses the table
  kShift = 1 << 10,            // shift or rotate: count-dependent flags
  kDoubleShift = 1 << 11,      // SHLD/SHRD
  kUsesAccumulator = 1 << 12,  // reads EAX (and EDX) implicitly
};

struct Form {
  std::string_view mnemonic;
  std::array<u8, 2> opcode;
  u8 opcode_length;
  i8 extension;  // ModRM.reg, or -1
  Width width;
  Shape shape;
  u16 traits;
};

Form one(std::string_view m, u8 op, i8 ext, Width w, Shape s, u16 t = 0) { return {m, {op, 0}, 1, ext, w, s, t}; }
Form two(std::string_view m, u8 op, i8 ext, Width w, Shape s, u16 t = 0) { return {m, {0x0F, op}, 2, ext, w, s, t}; }

constexpr Width B = Width::Byte, V = Width::Variable, D = Width::Dword;

std::vector<Form> build_forms() {
  std::vector<Form> f;
  // ADD OR ADC SBB AND SUB XOR CMP: the opcode-map rows 0-3 and groups 80h/81h/83h
  // (82h is invalid in 64-bit mode).
  constexpr std::string_view kAlu[8] = {"ADD", "OR", "ADC", "SBB", "AND", "SUB", "XOR", "CMP"};
  for (int op = 0; op < 8; ++op) {
    const u8 base = static_cast<u8>(op * 8);
    const u16 lock = op == 7 ? 0 : kLock;
    const auto m = kAlu[op];
    f.push_back(one(m, base + 0, -1, B, Shape::EG, lock));
    f.push_back(one(m, base + 1, -1, V, Shape::EG, lock));
    f.push_back(one(m, base + 2, -1, B, Shape::GE));
    f.push_back(one(m, base + 3, -1, V, Shape::GE));
    f.push_back(one(m, base + 4, -1, B, Shape::AccI));
    f.push_back(one(m, base + 5, -1, V, Shape::AccI));
    f.push_back(one(m, 0x80, static_cast<i8>(op), B, Shape::EIb, lock));
    f.push_back(one(m, 0x81, static_cast<i8>(op), V, Shape::EIz, lock));
    f.push_back(one(m, 0x83, static_cast<i8>(op), V, Shape::EIb, lock));
  }
  f.push_back(one("TEST", 0x84, -1, B, Shape::EG));
  f.push_back(one("TEST", 0x85, -1, V, Shape::EG));
  f.push_back(one("TEST", 0xA8, -1, B, Shape::AccI));
  f.push_back(one("TEST", 0xA9, -1, V, Shape::AccI));
  for (i8 ext : {0, 1}) {  // /1 is the undocumented alias of /0
    f.push_back(one("TEST", 0xF6, ext, B, Shape::EIb));
    f.push_back(one("TEST", 0xF7, ext, V, Shape::EIz));
  }
  // One-operand groups, each as a byte form (F6h/FEh) and a word/dword form (F7h/FFh):
  // NOT NEG INC DEC (lockable), then multiply and divide.
  struct Unary {
    std::string_view mnemonic;
    u8 byte_opcode;
    i8 ext;
    u16 traits;
  };
  constexpr Unary kUnary[] = {
      {"NOT", 0xF6, 2, kLock},
      {"NEG", 0xF6, 3, kLock},
      {"INC", 0xFE, 0, kLock},
      {"DEC", 0xFE, 1, kLock},
      {"MUL", 0xF6, 4, kUsesAccumulator},
      {"IMUL", 0xF6, 5, kUsesAccumulator},
      {"DIV", 0xF6, 6, kUsesAccumulator | kDivide},
      {"IDIV", 0xF6, 7, kUsesAccumulator | kDivide | kSigned},
  };
  for (const Unary& u : kUnary) {
    f.push_back(one(u.mnemonic, u.byte_opcode, u.ext, B, Shape::E, u.traits));
    f.push_back(one(u.mnemonic, static_cast<u8>(u.byte_opcode + 1), u.ext, V, Shape::E, u.traits));
  }
  f.push_back(two("IMUL", 0xAF, -1, V, Shape::GE));
  f.push_back(one("IMUL", 0x69, -1, V, Shape::GEIz));
  f.push_back(one("IMUL", 0x6B, -1, V, Shape::GEIb));
  // Shifts and rotates (group 2; /6 is the undocumented alias of SHL, spelled SAL).
  constexpr std::string_view kShifts[8] = {"ROL", "ROR", "RCL", "RCR", "SHL", "SHR", "SAL", "SAR"};
  for (int op = 0; op < 8; ++op) {
    const auto m = kShifts[op];
    const auto ext = static_cast<i8>(op);
    f.push_back(one(m, 0xC0, ext, B, Shape::EIb, kShift));
    f.push_back(one(m, 0xC1, ext, V, Shape::EIb, kShift));
    f.push_back(one(m, 0xD0, ext, B, Shape::E1, kShift));
    f.push_back(one(m, 0xD1, ext, V, Shape::E1, kShift));
    f.push_back(one(m, 0xD2, ext, B, Shape::ECL, kShift));
    f.push_back(one(m, 0xD3, ext, V, Shape::ECL, kShift));
  }
  f.push_back(two("SHLD", 0xA4, -1, V, Shape::EGIb, kShift | kDoubleShift));
  f.push_back(two("SHLD", 0xA5, -1, V, Shape::EGCL, kShift | kDoubleShift));
  f.push_back(two("SHRD", 0xAC, -1, V, Shape::EGIb, kShift | kDoubleShift));
  f.push_back(two("SHRD", 0xAD, -1, V, Shape::EGCL, kShift | kDoubleShift));
  // Bit tests and scans.
  f.push_back(two("BT", 0xA3, -1, V, Shape::EG, kBitOffset));
  f.push_back(two("BTS", 0xAB, -1, V, Shape::EG, kBitOffset | kLock));
  f.push_back(two("BTR", 0xB3, -1, V, Shape::EG, kBitOffset | kLock));
  f.push_back(two("BTC", 0xBB, -1, V, Shape::EG, kBitOffset | kLock));
  f.push_back(two("BT", 0xBA, 4, V, Shape::EIb));
  f.push_back(two("BTS", 0xBA, 5, V, Shape::EIb, kLock));
  f.push_back(two("BTR", 0xBA, 6, V, Shape::EIb, kLock));
  f.push_back(two("BTC", 0xBA, 7, V, Shape::EIb, kLock));
  f.push_back(two("BSF", 0xBC, -1, V, Shape::GE));
  f.push_back(two("BSR", 0xBD, -1, V, Shape::GE));
  // Conditional moves and sets: one form per condition.
  for (u8 cc = 0; cc < 16; ++cc) {
    f.push_back(two("CMOVcc", static_cast<u8>(0x40 + cc), -1, V, Shape::GE));
    f.push_back(two("SETcc", static_cast<u8>(0x90 + cc), -1, B, Shape::E));
  }
  // Exchange, compare-exchange, byte swap, moves with extension.
  f.push_back(two("XADD", 0xC0, -1, B, Shape::EG, kLock));
  f.push_back(two("XADD", 0xC1, -1, V, Shape::EG, kLock));
  f.push_back(two("CMPXCHG", 0xB0, -1, B, Shape::EG, kLock | kCompareExchange | kUsesAccumulator));
  f.push_back(two("CMPXCHG", 0xB1, -1, V, Shape::EG, kLock | kCompareExchange | kUsesAccumulator));
  f.push_back(two("CMPXCHG8B", 0xC7, 1, D, Shape::Mq, kLock | kCompareExchange | kUsesAccumulator));
  f.push_back(two("BSWAP", 0xC8, -1, D, Shape::Z));
  f.push_back(two("MOVZX", 0xB6, -1, V, Shape::GE, kSource8));
  f.push_back(two("MOVZX", 0xB7, -1, V, Shape::GE, kSource16));
  f.push_back(two("MOVSX", 0xBE, -1, V, Shape::GE, kSource8));
  f.push_back(two("MOVSX", 0xBF, -1, V, Shape::GE, kSource16));
  f.push_back(one("XCHG", 0x86, -1, B, Shape::EG, kLock));
  f.push_back(one("XCHG", 0x87, -1, V, Shape::EG, kLock));
  f.push_back(one("XCHG", 0x90, -1, V, Shape::Z));
  f.push_back(one("MOV", 0x88, -1, B, Shape::EG));
  f.push_back(one("MOV", 0x89, -1, V, Shape::EG));
  f.push_back(one("MOV", 0x8A, -1, B, Shape::GE));
  f.push_back(one("MOV", 0x8B, -1, V, Shape::GE));
  f.push_back(one("MOV", 0xC6, 0, B, Shape::EIb));
  f.push_back(one("MOV", 0xC7, 0, V, Shape::EIz));
  f.push_back(one("MOV", 0xB0, -1, B, Shape::ZI));
  f.push_back(one("MOV", 0xB8, -1, V, Shape::ZI));
  f.push_back(one("LEA", 0x8D, -1, V, Shape::GM));
  f.push_back(one("CBW", 0x98, -1, V, Shape::Plain));
  f.push_back(one("CWD", 0x99, -1, V, Shape::Plain));
  f.push_back(one("LAHF", 0x9F, -1, B, Shape::Plain));
  f.push_back(one("SAHF", 0x9E, -1, B, Shape::Plain));
  f.push_back(one("XLAT", 0xD7, -1, B, Shape::Plain, kXlat));
  // String instructions.
  f.push_back(one("MOVS", 0xA4, -1, B, Shape::String, kRepeatable));
  f.push_back(one("MOVS", 0xA5, -1, V, Shape::String, kRepeatable));
  f.push_back(one("CMPS", 0xA6, -1, B, Shape::String, kRepeatable | kConditional));
  f.push_back(one("CMPS", 0xA7, -1, V, Shape::String, kRepeatable | kConditional));
  f.push_back(one("SCAS", 0xAE, -1, B, Shape::String, kRepeatable | kConditional));
  f.push_back(one("SCAS", 0xAF, -1, V, Shape::String, kRepeatable | kConditional));
  f.push_back(one("LODS", 0xAC, -1, B, Shape::String, kRepeatable));
  f.push_back(one("LODS", 0xAD, -1, V, Shape::String, kRepeatable));
  f.push_back(one("STOS", 0xAA, -1, B, Shape::String, kRepeatable));
  f.push_back(one("STOS", 0xAB, -1, V, Shape::String, kRepeatable));
  return f;
}

const std::vector<Form>& forms() {
  static const std::vector<Form> table = build_forms();
  return table;
}

u32 width_mask(unsigned width) { return width == 32 ? 0xFFFFFFFFu : (1u << width) - 1; }

// Where an E operand lives: a register (8-bit numbers AL CL DL BL AH CH DH BH) or
// data-buffer bytes.
struct Location {
  bool memory = false;
  unsigned reg = 0;
  unsigned offset = 0;
};

class CaseBuilder {
 public:
  CaseBuilder(const Form& form, std::mt19937_64& random) : form_(form), random_(random) {}
  InstructionCase build();

 private:
  u32 bits() { return static_cast<u32>(random_()); }
  unsigned below(unsigned n) { return static_cast<unsigned>(random_() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
  u32 value(unsigned width);
  u8 shift_count();
  void reserve(unsigned reg) { reserved_ |= 1u << reg; }

  u32 read(const Location& at, unsigned width) const;
  void write(const Location& at, unsigned width, u32 value);

  void choose_prefixes();
  void choose_e_operand(unsigned width);
  u32 bit_offset_address(unsigned width);
  void encode_memory(unsigned reg_field, u32 effective_address, bool constrained);
  void encode_modrm(unsigned reg_field);
  void immediate(u32 value, unsigned bytes);
  void set_up_divide();
  void set_up_string();
  void finish_flags(u8 count);

  const Form& form_;
  std::mt19937_64& random_;
  InstructionCase c_;
  std::vector<u8> prefixes_;
  std::vector<u8> tail_;  // ModRM, SIB, displacement, immediates
  u32 reserved_ = 0;      // registers the addressing must not use
  u32 addressing_ = 0;    // registers holding parts of the memory operand's address
  unsigned reg_field_ = 0;
  Location e_;
};

u32 CaseBuilder::value(unsigned width) {
  if (chance(55)) return bits();
  const u32 mask = width_mask(width), sign = 1u << (width - 1);
  const u32 edges[] = {0, 1, 2, sign - 1, sign, sign + 1, mask, mask - 1, 0x0F, 0x10, 0x55555555u, 0xAAAAAAAAu};
  const u32 high = chance(50) ? bits() & ~mask : 0;
  return high | (edges[below(std::size(edges))] & mask);
}

u8 CaseBuilder::shift_count() {
  const u8 w = static_cast<u8>(c_.width);
  const u8 counts[] = {0,  1,  2,  3,  static_cast<u8>(w - 1), w, static_cast<u8>(w + 1), 15, 16, 17, 31, 32,
                       33, 63, 64, 255};
  if (chance(40)) return static_cast<u8>(bits());
  return counts[below(std::size(counts))];
}

u32 CaseBuilder::read(const Location& at, unsigned width) const {
  if (at.memory) {
    u32 v = 0;
    for (unsigned i = 0; i < width / 8; ++i) v |= u32{c_.memory[at.offset + i]} << (8 * i);
    return v;
  }
  if (width == 8) return at.reg < 4 ? c_.before.gpr[at.reg] & 0xFF : (c_.before.gpr[at.reg - 4] >> 8) & 0xFF;
  return c_.before.gpr[at.reg] & width_mask(width);
}

void CaseBuilder::write(const Location& at, unsigned width, u32 value) {
  if (at.memory) {
    for (unsigned i = 0; i < width / 8; ++i) c_.memory[at.offset + i] = static_cast<u8>(value >> (8 * i));
    return;
  }
  if (width == 8) {
    u32& r = c_.before.gpr[at.reg & 3];
    const unsigned shift = at.reg < 4 ? 0 : 8;
    r = (r & ~(0xFFu << shift)) | ((value & 0xFF) << shift);
    return;
  }
  u32& r = c_.before.gpr[at.reg];
  r = (r & ~width_mask(width)) | (value & width_mask(width));
}

void CaseBuilder::immediate(u32 value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) tail_.push_back(static_cast<u8>(value >> (8 * i)));
}

// Encodes a memory operand whose effective address is `effective_address`: the base
// and index registers get the values that produce it. In 64-bit mode the address is
// computed in 64 bits, so the parts must add up without a 32-bit wraparound.
void CaseBuilder::encode_memory(unsigned reg_field, u32 effective_address, bool constrained) {
  std::vector<unsigned> free;
  for (unsigned r = 0; r < 8; ++r)
    if (!(reserved_ & (1u << r))) free.push_back(r);
  const unsigned base = free[below(static_cast<unsigned>(free.size()))];
  const unsigned mode = below(4);  // [base], [base+disp8], [base+disp32], SIB with an index
  std::vector<unsigned> indexes;
  for (unsigned r : free)
    if (r != 4 && r != base) indexes.push_back(r);
  const bool sib = mode == 3 && !indexes.empty();
  const unsigned index = sib ? indexes[below(static_cast<unsigned>(indexes.size()))] : 4;
  const unsigned scale = sib ? below(4) : 0;
  const bool no_base = sib && chance(25);  // SIB base 101b with mod 00: [index*s + disp32]
  unsigned mod;
  if (no_base)
    mod = 0;
  else if (mode == 1 || (sib && chance(40)))
    mod = 1;
  else if (mode == 2 || (sib && chance(50)))
    mod = 2;
  else
    mod = 0;
  if (!no_base && mod == 0 && base == 5) mod = 1;  // mod 00 with base 101b means disp32 (RIP-relative in 64-bit mode)

  i64 displacement = 0;
  if (mod == 1) displacement = static_cast<i8>(bits());
  if (mod == 2) displacement = chance(50) ? static_cast<i32>(bits()) : static_cast<i32>(below(8192)) - 4096;
  u32 index_value = sib ? below(64) : 0;
  if (no_base) {
    index_value = (effective_address >> scale) - below(16);
    displacement = static_cast<i64>(effective_address) - (i64{index_value} << scale);
  }
  i64 base_value = static_cast<i64>(effective_address) - (i64{index_value} << scale) - displacement;
  if (!no_base && (base_value < 0 || base_value > 0xFFFFFFFFll)) {
    displacement = 0;  // keep the encoding, drop the displacement's size
    base_value = static_cast<i64>(effective_address) - (i64{index_value} << scale);
  }
  if (constrained) {
    if (!no_base) c_.before.gpr[base] = static_cast<u32>(base_value), addressing_ |= 1u << base;
    if (sib) c_.before.gpr[index] = index_value, addressing_ |= 1u << index;
  }

  const unsigned rm = sib ? 4 : base;
  if (!sib && base == 4) {  // ESP as a base needs a SIB byte with no index
    tail_.push_back(static_cast<u8>((mod << 6) | (reg_field << 3) | 4));
    tail_.push_back(0x24);
  } else {
    tail_.push_back(static_cast<u8>((mod << 6) | (reg_field << 3) | rm));
    if (sib) tail_.push_back(static_cast<u8>((scale << 6) | (index << 3) | (no_base ? 5 : base)));
  }
  if (mod == 1) immediate(static_cast<u32>(displacement), 1);
  if (mod == 2 || no_base) immediate(static_cast<u32>(displacement), 4);
}

// The effective address of a BT-family memory operand whose register bit offset
// (already in the G register) selects a bit inside the data buffer.
u32 CaseBuilder::bit_offset_address(unsigned width) {
  const u32 raw = c_.before.gpr[reg_field_];
  i64 offset = width == 16 ? static_cast<i16>(raw) : static_cast<i32>(raw);
  if (offset > 0x3FFFFF) {  // keep the operand's address above 0 (no 32-bit wrap)
    offset &= 0x3FFFFF;
    c_.before.gpr[reg_field_] = static_cast<u32>(offset);
  }
  const i64 element_bytes = (offset >> (width == 16 ? 4 : 5)) * (width / 8);
  const u32 target = below(kDataBytes - width / 8 + 1);
  e_.offset = target;
  return static_cast<u32>(kDataAddress + target - element_bytes);
}

void CaseBuilder::choose_e_operand(unsigned width) {
  const bool memory_only = form_.shape == Shape::GM || form_.shape == Shape::Mq;
  if (!memory_only && chance(50)) {
    e_ = {false, below(8), 0};
    tail_.push_back(static_cast<u8>(0xC0 | (reg_field_ << 3) | e_.reg));
    if (chance(2)) prefixes_.push_back(0xF0);  // LOCK with a register operand: #UD
    return;
  }
  e_.memory = true;
  u32 address;
  if (form_.traits & kBitOffset) {
    address = bit_offset_address(width);
  } else {
    const unsigned bytes = form_.shape == Shape::Mq ? 8 : width / 8;
    e_.offset = below(kDataBytes - bytes + 1);
    address = kDataAddress + e_.offset;
  }
  encode_memory(reg_field_, address, form_.shape != Shape::GM);
  if (form_.shape != Shape::GM && chance(15)) prefixes_.push_back(std::array<u8, 3>{0x26, 0x36, 0x3E}[below(3)]);
  // LOCK where it is allowed, and now and then where it raises #UD (SDM "LOCK").
  if (chance((form_.traits & kLock) ? 20 : 2)) prefixes_.push_back(0xF0);
}

// DIV/IDIV: half of the dividends are built as quotient * divisor + remainder so the
// quotient fits; the rest are random and mostly raise #DE.
void CaseBuilder::set_up_divide() {
  const unsigned w = c_.width;
  const u32 mask = width_mask(w);
  u32 divisor = chance(5) ? 0 : value(w) & mask;
  if (!e_.memory && (e_.reg == EAX || (w != 8 && e_.reg == EDX) || (w == 8 && e_.reg == 4))) divisor = read(e_, w);
  write(e_, w, divisor);
  u64 dividend = (u64{value(w) & mask} << w) | (value(w) & mask);
  if (chance(8)) {
    // Quotients at the edge of the range: divisors 1 and -1 (all ones) with the most
    // negative dividends (IDIV by -1 overflows exactly there).
    divisor = chance(50) ? mask : 1;
    const u64 edges[] = {u64{1} << (2 * w - 1), ~u64{0} << (w - 1), ~u64{0} << w, (u64{1} << (w - 1)) - 1};
    dividend = edges[below(std::size(edges))];
    if (w != 32) dividend &= (u64{1} << (2 * w)) - 1;
    write(e_, w, divisor);
  } else if (divisor != 0 && chance(50)) {
    if (form_.traits & kSigned) {
      const i64 d = w == 8 ? static_cast<i8>(divisor) : w == 16 ? static_cast<i16>(divisor) : static_cast<i32>(divisor);
      const u32 q_raw = value(w);
      const i64 q = w == 8 ? static_cast<i8>(q_raw) : w == 16 ? static_cast<i16>(q_raw) : static_cast<i32>(q_raw);
      const i64 magnitude = d < 0 ? -d : d;
      i64 r = static_cast<i64>(random_() % static_cast<u64>(magnitude));
      if (q * d < 0) r = -r;
      dividend = static_cast<u64>(q * d + r);
    } else {
      dividend = u64{value(w) & mask} * divisor + random_() % divisor;
    }
  }
  if (w == 8) {
    c_.before.gpr[EAX] = (c_.before.gpr[EAX] & 0xFFFF0000u) | static_cast<u16>(dividend);
  } else {
    write({false, EAX, 0}, w, static_cast<u32>(dividend));
    write({false, EDX, 0}, w, static_cast<u32>(dividend >> w));
  }
  if (!e_.memory) write(e_, w, divisor);  // the divisor wins when it shares a register
}

// Strings: ESI and EDI in the middle of the buffer, small counts under REP, and bytes
// from a two-letter alphabet half of the time so REPE/REPNE see both outcomes.
void CaseBuilder::set_up_string() {
  const bool repeat = (form_.traits & kConditional) ? chance(67) : chance(50);
  if (repeat) {
    prefixes_.push_back((form_.traits & kConditional) && chance(50) ? 0xF2 : 0xF3);
    c_.before.gpr[ECX] = below(9);
  }
  c_.before.gpr[ESI] = kDataAddress + 64 + below(128);
  c_.before.gpr[EDI] = kDataAddress + 64 + below(128);
  if (chance(50)) c_.before.eflags |= flag::DF;
  if ((form_.traits & kConditional) && chance(50)) {
    for (auto& b : c_.memory) b = chance(50) ? 0x00 : 0x5A;
    u32 accumulator = 0;
    for (unsigned i = 0; i < 4; ++i) accumulator |= (chance(50) ? 0x5Au : 0u) << (8 * i);
    c_.before.gpr[EAX] = accumulator;
  }
  if (form_.mnemonic != "STOS" && form_.mnemonic != "SCAS" && chance(15))
    prefixes_.push_back(std::array<u8, 3>{0x26, 0x36, 0x3E}[below(3)]);  // source segment override
}

// The flags the SDM leaves undefined for this case: the flags column of the row the
// case's bytes decode to (cpu/opcode_map.tsv, "u:"); for shifts and rotates they depend
// on the masked count (cpu/undefined_flags.h). The row's "w:" bounds the flags the host
// may change. SHLD/SHRD by more than the operand size also leave the destination
// undefined.
void CaseBuilder::finish_flags(u8 count) {
  Instruction insn;
  bool decoded = false;
  try {
    decoded = decode_bytes(c_.bytes.data(), c_.length, true, insn);
  } catch (const Fault&) {
    // A form that raises #UD at decode (LOCK where it is not allowed): no row, no flags
    // change, nothing undefined.
    c_.written_flags = flag::kStatus | flag::DF;
    return;
  }
  if (!decoded) throw std::logic_error("host case for " + std::string(c_.mnemonic) + " does not decode");
  c_.written_flags = insn.form->flags_written;
  if (!(form_.traits & kShift)) {
    c_.undefined_flags = insn.form->flags_undefined;
    return;
  }
  const unsigned masked = count & 0x1F;
  c_.undefined_flags = undefined_shift_flags(insn.form->flags_undefined, insn.form->mnemonic, masked, c_.width);
  if ((form_.traits & kDoubleShift) && masked > c_.width) {
    if (e_.memory) {
      c_.undefined_memory_offset = static_cast<int>(e_.offset);
      c_.undefined_memory_bytes = c_.width / 8;
    } else {
      c_.undefined_register = static_cast<int>(e_.reg);
      c_.undefined_register_mask = width_mask(c_.width);
    }
  }
}

InstructionCase CaseBuilder::build() {
  c_.mnemonic = form_.mnemonic;
  c_.width = form_.width == Width::Byte ? 8 : form_.width == Width::Dword ? 32 : (chance(50) ? 16 : 32);
  for (auto& r : c_.before.gpr) r = value(32);
  for (auto& b : c_.memory)
    b = static_cast<u8>(chance(20) ? std::array<u8, 4>{0x00, 0xFF, 0x80, 0x7F}[below(4)] : bits());
  c_.before.eflags = flag::Reserved1 | (bits() & flag::kStatus);
  if (c_.width == 16) prefixes_.push_back(0x66);
  const unsigned w = c_.width;
  u8 count = 0;
  bool has_count = false;

  if (form_.traits & kUsesAccumulator) reserve(EAX), reserve(EDX);
  if (form_.shape == Shape::ECL || form_.shape == Shape::EGCL) reserve(ECX);
  if (form_.shape == Shape::Mq) reserve(ECX), reserve(EBX);
  reg_field_ = form_.extension >= 0 ? static_cast<unsigned>(form_.extension) : below(8);
  if (form_.traits & kBitOffset) reserve(reg_field_);

  std::vector<u8> opcode(form_.opcode.begin(), form_.opcode.begin() + form_.opcode_length);
  switch (form_.shape) {
    case Shape::EG:
    case Shape::GE:
    case Shape::E:
    case Shape::GM:
    case Shape::Mq: choose_e_operand((form_.traits & kSource8) ? 8 : (form_.traits & kSource16) ? 16 : w); break;
    case Shape::EIb:
    case Shape::GEIb:
    case Shape::EGIb:
      choose_e_operand(w);
      count = (form_.traits & kShift) ? shift_count() : static_cast<u8>(value(8));
      has_count = true;
      immediate(count, 1);
      break;
    case Shape::EIz:
    case Shape::GEIz:
      choose_e_operand(w);
      immediate(value(w), w == 16 ? 2 : 4);
      break;
    case Shape::E1:
      choose_e_operand(w);
      count = 1, has_count = true;
      break;
    case Shape::ECL:
    case Shape::EGCL:
      choose_e_operand(w);
      count = shift_count(), has_count = true;
      c_.before.gpr[ECX] = (c_.before.gpr[ECX] & ~0xFFu) | count;
      break;
    case Shape::AccI: immediate(value(w), w == 8 ? 1 : w == 16 ? 2 : 4); break;
    case Shape::Z:
      opcode.back() = static_cast<u8>(opcode.back() + (form_.mnemonic == "XCHG" ? 1 + below(7) : below(8)));
      break;
    case Shape::ZI:
      opcode.back() = static_cast<u8>(opcode.back() + below(8));
      immediate(value(w), w == 8 ? 1 : w == 16 ? 2 : 4);
      break;
    case Shape::Plain:
      if (form_.traits & kXlat) c_.before.gpr[EBX] = kDataAddress;
      break;
    case Shape::String: set_up_string(); break;
  }
  if (form_.traits & kDivide) set_up_divide();
  if ((form_.traits & kCompareExchange) && chance(50)) {
    if (form_.shape == Shape::Mq) {
      c_.before.gpr[EAX] = read(e_, 32);
      c_.before.gpr[EDX] = read({true, 0, e_.offset + 4}, 32);
    } else {
      write(e_, w, c_.before.gpr[EAX]);
    }
  }
  // Equal operands now and then, for CMP, SUB, XOR and friends.
  const unsigned g_register = w == 8 ? reg_field_ & 3 : reg_field_;
  const bool plain_binary = (form_.shape == Shape::EG || form_.shape == Shape::GE) && !(form_.traits & ~kLock) &&
                            !(addressing_ & (1u << g_register));
  if (plain_binary && chance(10)) write({false, reg_field_, 0}, w, read(e_, w));

  // Prefixes in any order, now and then one that changes nothing: 66h on a byte form,
  // or one of the prefixes repeated (within the 15-byte limit).
  if (w == 8 && form_.shape != Shape::Plain && chance(5)) prefixes_.push_back(0x66);
  if (!prefixes_.empty() && prefixes_.size() + opcode.size() + tail_.size() < c_.bytes.size() && chance(5))
    prefixes_.push_back(prefixes_[below(static_cast<unsigned>(prefixes_.size()))]);
  std::shuffle(prefixes_.begin(), prefixes_.end(), random_);
  if (prefixes_.size() + opcode.size() + tail_.size() > c_.bytes.size())
    throw std::logic_error("host case longer than 15 bytes");
  for (u8 b : prefixes_) c_.bytes[c_.length++] = b;
  for (u8 b : opcode) c_.bytes[c_.length++] = b;
  for (u8 b : tail_) c_.bytes[c_.length++] = b;
  finish_flags(has_count ? count : 0);
  return c_;
}

}  // namespace

unsigned host_form_count() { return static_cast<unsigned>(forms().size()); }

InstructionCase make_host_case(unsigned form, std::mt19937_64& random) {
  return CaseBuilder(forms().at(form), random).build();
}

}  // namespace x86lab::testing
