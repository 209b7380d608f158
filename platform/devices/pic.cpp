// 8259A initialization and operation command words, priority resolution and the
// INTA sequence (Intel 8259A data sheet, "Interrupt Sequence", "Programming the
// 8259A", "Priority Cell"; PIIX4 data sheet, "ELCR1/ELCR2").
#include "platform/devices/pic.h"

namespace x86lab {

namespace {
// ELCR bits that must stay edge-triggered on a PC: IRQ 0, 1, 2 (master) and 8, 13 (slave).
constexpr u8 kMasterElcrWritable = 0xF8, kSlaveElcrWritable = 0xDE;
}  // namespace

void Pic8259::set_input(unsigned ir, bool level) {
  const u8 bit = static_cast<u8>(1u << ir);
  const bool was_high = lines_ & bit;
  if (level) {
    lines_ |= bit;
    if (!was_high || level_triggered(ir)) irr_ |= bit;
  } else {
    // QUIRK: a request that goes away before INTA is lost; the acknowledge then
    // answers the default IR7 (data sheet, "Edge and Level Triggered Modes").
    lines_ &= static_cast<u8>(~bit);
    irr_ &= static_cast<u8>(~bit);
  }
}

void Pic8259::refresh_level_inputs() {
  for (unsigned ir = 0; ir < 8; ++ir)
    if (level_triggered(ir) && input(ir)) irr_ |= static_cast<u8>(1u << ir);
}

int Pic8259::highest_request() const {
  const u8 pending = irr_ & static_cast<u8>(~imr_);
  if (!pending) return -1;
  for (unsigned i = 0; i < 8; ++i) {
    const unsigned ir = (lowest_priority_ + 1 + i) & 7;
    const bool requested = (pending >> ir) & 1;
    // In special mask mode the in-service bits do not block other levels.
    if (((isr_ >> ir) & 1) && !special_mask_) {
      // Special fully nested mode: a slave's new, higher-priority request passes the
      // master's cascade input although that input is in service.
      if (special_fully_nested_ && master_ && ((icw3_ >> ir) & 1) && requested) return static_cast<int>(ir);
      return -1;
    }
    if (requested) return static_cast<int>(ir);
  }
  return -1;
}

int Pic8259::highest_in_service() const {
  for (unsigned i = 0; i < 8; ++i) {
    const unsigned ir = (lowest_priority_ + 1 + i) & 7;
    if ((isr_ >> ir) & 1) return static_cast<int>(ir);
  }
  return -1;
}

unsigned Pic8259::acknowledge(bool& spurious) {
  const int ir = highest_request();
  spurious = ir < 0;
  if (spurious) return 7;  // default IR7: ISR is not set
  const u8 bit = static_cast<u8>(1u << ir);
  // Edge mode: the edge latch is consumed. Level mode: IRR keeps following the input.
  if (!level_triggered(static_cast<unsigned>(ir))) irr_ &= static_cast<u8>(~bit);
  if (auto_eoi_) {
    if (rotate_on_auto_eoi_) lowest_priority_ = static_cast<u8>(ir);
  } else {
    isr_ |= bit;
  }
  return static_cast<unsigned>(ir);
}

void Pic8259::end_of_interrupt(int ir, bool rotate) {
  if (ir < 0) return;
  isr_ &= static_cast<u8>(~(1u << ir));
  if (rotate) lowest_priority_ = static_cast<u8>(ir);
}

unsigned Pic8259::poll() {
  poll_pending_ = false;
  bool spurious;
  const int pending = highest_request();
  if (pending < 0) return 0;
  return 0x80 | acknowledge(spurious);
}

u8 Pic8259::read(unsigned a0) {
  if (poll_pending_) return static_cast<u8>(poll());
  if (a0) return imr_;
  return read_isr_ ? isr_ : irr_;
}

void Pic8259::write(unsigned a0, u8 value) {
  if (!a0) {
    if (value & 0x10) {  // ICW1
      ltim_ = value & 0x08;
      single_ = value & 0x02;
      icw4_needed_ = value & 0x01;
      imr_ = isr_ = 0;
      irr_ = 0;  // the edge sense circuit is reset
      refresh_level_inputs();
      lowest_priority_ = 7;
      special_mask_ = read_isr_ = poll_pending_ = false;
      if (!icw4_needed_) auto_eoi_ = special_fully_nested_ = false;
      rotate_on_auto_eoi_ = false;
      init_step_ = 2;
    } else if (value & 0x08) {  // OCW3
      if (value & 0x40) special_mask_ = value & 0x20;
      if (value & 0x04) poll_pending_ = true;
      if (value & 0x02) read_isr_ = value & 0x01;
    } else {  // OCW2: R SL EOI and the level L2-L0
      const int level = value & 7;
      switch (value >> 5) {
        case 0b001: end_of_interrupt(highest_in_service(), false); break;
        case 0b011: end_of_interrupt(level, false); break;
        case 0b101: end_of_interrupt(highest_in_service(), true); break;
        case 0b111: end_of_interrupt(level, true); break;
        case 0b100: rotate_on_auto_eoi_ = true; break;
        case 0b000: rotate_on_auto_eoi_ = false; break;
        case 0b110: lowest_priority_ = static_cast<u8>(level); break;
        default: break;  // 010: no operation
      }
    }
    return;
  }
  switch (init_step_) {
    case 2:  // ICW2: vector bits T7-T3
      icw2_ = value;
      init_step_ = !single_ ? 3 : icw4_needed_ ? 4 : 0;
      break;
    case 3:  // ICW3: master: IRs with a slave; slave: its cascade identity
      icw3_ = value;
      init_step_ = icw4_needed_ ? 4 : 0;
      break;
    case 4:  // ICW4: uPM (always 8086 here), AEOI, buffered mode, SFNM
      auto_eoi_ = value & 0x02;
      special_fully_nested_ = value & 0x10;
      init_step_ = 0;
      break;
    default: imr_ = value; break;  // OCW1
  }
}

// ---- the pair -------------------------------------------------------------

void PicPair::update_cascade() {
  master_.set_input(2, slave_.int_output());
  if (cpu_) cpu_->notify_interrupt();
  if (int_output_listener_) int_output_listener_(master_.int_output());
}

void PicPair::set_irq(unsigned irq, bool level) {
  if (irq < 8) master_.set_input(irq, level);
  else slave_.set_input(irq - 8, level);
  update_cascade();
}

u8 PicPair::acknowledge() {
  bool spurious;
  const unsigned ir = master_.acknowledge(spurious);
  u8 vector = static_cast<u8>(master_.vector_base() + ir);
  if (!spurious && ((master_.cascade_inputs() >> ir) & 1)) {
    // The slave answers the second INTA with its own vector (IR7 if its request
    // went away: the spurious IRQ 15 case, with the master's cascade bit in service).
    const unsigned slave_ir = slave_.acknowledge(spurious);
    vector = static_cast<u8>(slave_.vector_base() + slave_ir);
  }
  update_cascade();
  return vector;
}

u32 PicPair::read(u32 port, unsigned) {
  switch (port) {
    case 0x20: case 0x21: case 0xA0: case 0xA1: {
      const u8 value = (port < 0xA0 ? master_ : slave_).read(port & 1);
      update_cascade();  // a poll read acknowledges (on either chip: its INT output may fall)
      return value;
    }
    case 0x4D0: return master_.elcr();
    case 0x4D1: return slave_.elcr();
    default: return 0xFF;
  }
}

void PicPair::write(u32 port, unsigned, u32 value) {
  const u8 byte = static_cast<u8>(value);
  switch (port) {
    case 0x20: case 0x21: master_.write(port & 1, byte); break;
    case 0xA0: case 0xA1: slave_.write(port & 1, byte); break;
    case 0x4D0: master_.set_elcr(byte & kMasterElcrWritable); break;
    case 0x4D1: slave_.set_elcr(byte & kSlaveElcrWritable); break;
    default: break;
  }
  update_cascade();
}

void Pic8259::transfer_state(StateArchive& a) {
  a.field(irr_, "PIC IRR");
  a.field(isr_, "PIC ISR");
  a.field(imr_, "PIC IMR");
  a.field(lines_, "PIC input lines");
  a.field(elcr_, "PIC ELCR");
  a.field(icw2_, "PIC ICW2");
  a.field(icw3_, "PIC ICW3");
  a.field(lowest_priority_, "PIC lowest priority", 7);
  a.field(ltim_, "PIC LTIM");
  a.field(auto_eoi_, "PIC AEOI");
  a.field(rotate_on_auto_eoi_, "PIC rotate on AEOI");
  a.field(special_fully_nested_, "PIC SFNM");
  a.field(special_mask_, "PIC special mask");
  a.field(read_isr_, "PIC read ISR");
  a.field(poll_pending_, "PIC poll");
  a.field(icw4_needed_, "PIC IC4");
  a.field(single_, "PIC SNGL");
  a.field(init_step_, "PIC initialisation step", 4);
}

void PicPair::transfer_state(StateArchive& a) {
  master_.transfer_state(a);
  slave_.transfer_state(a);
}

}  // namespace x86lab
