/* The hypervisor's #GP(0) handler for guest TLS accesses (docs/scenarios/tls.md),
 * in the two forms Xen used in 2004:
 *  - emulation (July-October): decode the faulting instruction (prefixes, opcode,
 *    ModRM, disp8/disp32; MOV r<->m, MOV imm->m, MOV moffs, CMP forms; no SIB), check
 *    that the %gs offset is "small negative" (top nibble F) and that the wrapped linear
 *    address lies below the hole, do the access (CMP: compute the flags), advance EIP;
 *  - flipping (from 20 October): decode only as far as the offset, rewrite the TLS
 *    descriptor in the GDT (expand-up <-> expand-down, descriptor.h) and return without
 *    advancing EIP; start.asm's exit path pops %gs, which loads the rewritten
 *    descriptor, and the instruction replays natively.
 * Anything else is a real fault, which this scenario does not expect: the run fails. */
#include "hypervisor.h"

enum access_kind { LOAD, STORE_REG, STORE_IMM, CMP_MEM_REG, CMP_REG_MEM, CMP_MEM_IMM };

struct gs_access {
  uint32_t length;  /* instruction bytes */
  uint32_t offset;  /* effective address (the %gs offset) */
  uint32_t size;    /* operand bytes: 1, 2 or 4 */
  enum access_kind kind;
  unsigned reg;     /* ModRM reg field (register operand) */
  uint32_t imm;     /* immediate, sign-extended where the encoding says so */
};

static uint64_t gp_faults, gp_ring[4], emulations, emulated_by_kind[6], flips_down, flips_up;
uint64_t hv_handler_descriptor_writes;
/* start.asm adds the RDPMC window of every #GP here. */
uint32_t hv_gp_window_instructions, hv_gp_window_cycles;
static struct seg_desc last_flipped_down;

/* Instructions of gp_entry outside its RDPMC window (start.asm): 9 before, 14 after. */
#define GP_STUB_INSTRUCTIONS_OUTSIDE 23u

/* Register r (ModRM numbering EAX ECX EDX EBX ESP EBP ESI EDI) of the frame. */
static uint32_t *frame_register(struct frame *f, unsigned r) {
  switch (r & 7) {
    case 0: return &f->eax;
    case 1: return &f->ecx;
    case 2: return &f->edx;
    case 3: return &f->ebx;
    case 4: return &f->esp;
    case 5: return &f->ebp;
    case 6: return &f->esi;
    default: return &f->edi;
  }
}

/* Decodes the instruction at `code`. Returns 0 for anything that is not a
 * %gs-prefixed form of the list above. */
static int decode(const uint8_t *code, struct frame *f, struct gs_access *a) {
  unsigned i = 0, gs = 0, operand16 = 0;
  for (;; ++i) {
    if (i == 4) return 0;
    const uint8_t p = code[i];
    if (p == 0x65) gs = 1;
    else if (p == 0x66) operand16 = 1;
    else if (p == 0x26 || p == 0x2E || p == 0x36 || p == 0x3E || p == 0x64 || p == 0xF0 || p == 0xF2 || p == 0xF3) return 0;
    else break;
  }
  if (!gs) return 0;
  const uint8_t op = code[i++];
  const uint32_t full = operand16 ? 2 : 4;
  a->size = (op & 1) ? full : 1;
  if (op >= 0xA0 && op <= 0xA3) {  /* MOV AL/eAX <-> moffs32 */
    a->kind = op < 0xA2 ? LOAD : STORE_REG;
    a->reg = 0;
    a->offset = *(const uint32_t *)(code + i);
    a->length = i + 4;
    return 1;
  }
  switch (op) {
    case 0x88: case 0x89: a->kind = STORE_REG; break;
    case 0x8A: case 0x8B: a->kind = LOAD; break;
    case 0xC6: case 0xC7: a->kind = STORE_IMM; break;
    case 0x38: case 0x39: a->kind = CMP_MEM_REG; break;
    case 0x3A: case 0x3B: a->kind = CMP_REG_MEM; break;
    case 0x80: case 0x81: case 0x83: a->kind = CMP_MEM_IMM; if (op == 0x83) a->size = full; break;
    default: return 0;
  }
  const uint8_t modrm = code[i++];
  const unsigned mod = modrm >> 6, rm = modrm & 7;
  a->reg = (modrm >> 3) & 7;
  if (mod == 3 || rm == 4) return 0;  /* register operand, or a SIB byte */
  if ((a->kind == STORE_IMM && a->reg != 0) || (a->kind == CMP_MEM_IMM && a->reg != 7)) return 0;
  if (mod == 0 && rm == 5) {
    a->offset = *(const uint32_t *)(code + i);
    i += 4;
  } else {
    a->offset = *frame_register(f, rm);
    if (mod == 1) a->offset += (uint32_t)(int32_t)(int8_t)code[i++];
    else if (mod == 2) { a->offset += *(const uint32_t *)(code + i); i += 4; }
  }
  if (a->kind == STORE_IMM || a->kind == CMP_MEM_IMM) {
    if (op == 0x83 || a->size == 1) a->imm = (uint32_t)(int32_t)(int8_t)code[i++];
    else if (a->size == 2) { a->imm = *(const uint16_t *)(code + i); i += 2; }
    else { a->imm = *(const uint32_t *)(code + i); i += 4; }
  }
  a->length = i;
  return 1;
}

static uint32_t read_sized(uint32_t linear, uint32_t size) {
  if (size == 1) return *(volatile const uint8_t *)linear;
  if (size == 2) return *(volatile const uint16_t *)linear;
  return *(volatile const uint32_t *)linear;
}

static void write_sized(uint32_t linear, uint32_t size, uint32_t value) {
  if (size == 1) *(volatile uint8_t *)linear = (uint8_t)value;
  else if (size == 2) *(volatile uint16_t *)linear = (uint16_t)value;
  else *(volatile uint32_t *)linear = value;
}

/* EFLAGS of `left - right` at the operand size, computed by the CPU's own CMP. */
static uint32_t compare_flags(uint32_t left, uint32_t right, uint32_t size) {
  uint32_t flags;
  if (size == 1) __asm__("cmpb %b2, %b1\n\tpushfl\n\tpopl %0" : "=r"(flags) : "q"(left), "q"(right) : "cc");
  else if (size == 2) __asm__("cmpw %w2, %w1\n\tpushfl\n\tpopl %0" : "=r"(flags) : "r"(left), "r"(right) : "cc");
  else __asm__("cmpl %2, %1\n\tpushfl\n\tpopl %0" : "=r"(flags) : "r"(left), "r"(right) : "cc");
  return flags;
}

/* The value of register operand `reg` at the access size (AH..BH for 4-7 when 1 byte). */
static uint32_t register_operand(struct frame *f, unsigned reg, uint32_t size) {
  if (size == 1) return reg < 4 ? *frame_register(f, reg) & 0xFF : (*frame_register(f, reg - 4) >> 8) & 0xFF;
  const uint32_t value = *frame_register(f, reg);
  return size == 2 ? value & 0xFFFF : value;
}

static void set_register_operand(struct frame *f, unsigned reg, uint32_t size, uint32_t value) {
  if (size == 1) {
    uint32_t *r = frame_register(f, reg & 3);
    const unsigned shift = reg < 4 ? 0 : 8;
    *r = (*r & ~(0xFFu << shift)) | ((value & 0xFF) << shift);
  } else if (size == 2) {
    uint32_t *r = frame_register(f, reg);
    *r = (*r & 0xFFFF0000u) | (value & 0xFFFF);
  } else {
    *frame_register(f, reg) = value;
  }
}

static void emulate(struct frame *f, const struct gs_access *a, struct seg_desc tls) {
  /* "Small negative" offset, and the wrapped access entirely below the hole. */
  const uint32_t linear = desc_base(tls) + a->offset;
  if ((a->offset >> 28) != 0xF || linear >= TLS_HOLE_START || TLS_HOLE_START - linear < a->size)
    hv_fail("#GP(0) on a %gs access that is not a small negative offset", f);
  uint32_t flags_left = 0, flags_right = 0;
  switch (a->kind) {
    case LOAD: set_register_operand(f, a->reg, a->size, read_sized(linear, a->size)); break;
    case STORE_REG: write_sized(linear, a->size, register_operand(f, a->reg, a->size)); break;
    case STORE_IMM: write_sized(linear, a->size, a->imm); break;
    case CMP_MEM_REG: flags_left = read_sized(linear, a->size); flags_right = register_operand(f, a->reg, a->size); break;
    case CMP_REG_MEM: flags_left = register_operand(f, a->reg, a->size); flags_right = read_sized(linear, a->size); break;
    case CMP_MEM_IMM: flags_left = read_sized(linear, a->size); flags_right = a->imm; break;
  }
  if (a->kind >= CMP_MEM_REG) {
    const uint32_t arithmetic = 0x8D5;  /* OF SF ZF AF PF CF */
    f->eflags = (f->eflags & ~arithmetic) | (compare_flags(flags_left, flags_right, a->size) & arithmetic);
  }
  f->eip += a->length;
  ++emulations;
  ++emulated_by_kind[a->kind];
}

static void flip(struct frame *f, const struct gs_access *a, struct seg_desc *entry) {
  const struct seg_desc now = *entry;
  struct seg_desc next;
  if (!desc_expand_down(now) && (a->offset >> 31)) {
    next = desc_flip_down(now);
    last_flipped_down = next;
    ++flips_down;
  } else if (desc_expand_down(now) && !(a->offset >> 31)) {
    next = desc_flip_up(now);
    ++flips_up;
  } else {
    hv_fail("#GP(0) on a %gs access that a flip cannot fix", f);
  }
  if (!desc_offset_valid(next, a->offset, a->size)) hv_fail("%gs access outside both TLS descriptor forms", f);
  entry->low = next.low;
  entry->high = next.high;
  ++hv_handler_descriptor_writes;
}

void hv_gp_handler(struct frame *f) {
  ++gp_faults;
  ++gp_ring[f->cs & 3];
  if (f->error_code != 0 || (f->cs & 3) == 0) hv_fail("#GP with an error code or from ring 0", f);
  if (hv_start_info.mode == MODE_NATIVE) hv_fail("#GP(0) in native mode", f);
  const unsigned gs_index = f->gs >> 3;
  if ((f->gs & 4) || gs_index != GDT_TLS_ENTRY) hv_fail("#GP(0) without the TLS selector in %gs", f);
  const struct seg_desc code = hv_gdt[(f->cs >> 3) % GDT_ENTRIES];
  struct gs_access a = {0, 0, 0, LOAD, 0, 0};
  if (!decode((const uint8_t *)(desc_base(code) + f->eip), f, &a)) hv_fail("#GP(0) on an instruction the handler does not decode", f);
  if (hv_start_info.mode == MODE_EMULATION) emulate(f, &a, hv_gdt[gs_index]);
  else flip(f, &a, &hv_gdt[gs_index]);
}

void hv_gp_report(struct text *t) {
  static const char *const kind_names[6] = {"emulated_load", "emulated_store_reg", "emulated_store_imm",
                                            "emulated_cmp_mem_reg", "emulated_cmp_reg_mem", "emulated_cmp_mem_imm"};
  const uint64_t instructions = hv_gp_window_instructions + gp_faults * GP_STUB_INSTRUCTIONS_OUTSIDE;
  text_metric(t, "gp_faults", gp_faults);
  text_metric(t, "gp_faults_ring1", gp_ring[1]);
  text_metric(t, "gp_faults_ring3", gp_ring[3]);
  text_metric(t, "emulations", emulations);
  for (unsigned k = 0; k < 6; ++k)
    if (emulated_by_kind[k]) text_metric(t, kind_names[k], emulated_by_kind[k]);
  text_metric(t, "flips_to_expand_down", flips_down);
  text_metric(t, "flips_to_expand_up", flips_up);
  text_metric(t, "handler_descriptor_writes", hv_handler_descriptor_writes);
  text_metric(t, "handler_instructions", gp_faults ? instructions : 0);
  text_metric(t, "handler_cycles_measured", hv_gp_window_cycles);
  if (gp_faults) {
    text_metric(t, "handler_instructions_per_fault", (instructions + gp_faults / 2) / gp_faults);
    text_metric(t, "handler_cycles_measured_per_fault", (hv_gp_window_cycles + gp_faults / 2) / gp_faults);
  }
  if (flips_down) {
    text_metric(t, "tls_flipped_high", last_flipped_down.high);
    text_metric(t, "tls_flipped_low", last_flipped_down.low);
  }
}
