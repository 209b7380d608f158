// The P6 local APIC's registers, interrupt acceptance, priorities, EOI, the ICR and
// the virtual wire (Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller
// (APIC)"). The timer is in local_apic_timer.cpp.
#include "platform/devices/apic/local_apic.h"

#include <bit>

namespace x86lab {

namespace {
// Writable bits of the LVT entries, by index (timer, performance counter, LINT0,
// LINT1, error): SDM figure "Local Vector Table (LVT)", P6 layout (timer mode is bit
// 17 only; the timer and error entries have no delivery mode field).
constexpr std::array<u32, 5> kLvtWritable = {0x000300FFu, 0x000107FFu, 0x0001A7FFu, 0x0001A7FFu, 0x000100FFu};
constexpr unsigned kTimer = 0, kLint0 = 2, kLint1 = 3, kError = 4;
// ICR low: vector 7:0, delivery mode 10:8, destination mode 11, level 14, trigger mode
// 15, shorthand 19:18 (delivery status, bit 12, is read-only).
constexpr u32 kIcrLowWritable = 0x000CCFFFu;

DeliveryMode mode_of(u32 entry) { return static_cast<DeliveryMode>(entry >> 8 & 7); }

// The LVT index of a register offset, or -1.
int lvt_index(u32 offset) {
  switch (offset) {
    case lapic::kLvtTimer: return 0;
    case lapic::kLvtPerformanceCounter: return 1;
    case lapic::kLvtLint0: return 2;
    case lapic::kLvtLint1: return 3;
    case lapic::kLvtError: return 4;
    default: return -1;
  }
}
}  // namespace

LocalApic::LocalApic(Cpu& cpu, PhysicalBus& bus, ApicBus& apic_bus, VirtualClock& clock, InterruptController& pic,
                     const LocalApicConfig& config)
    : cpu_(cpu), bus_(bus), apic_bus_(apic_bus), clock_(clock), pic_(pic), config_(config) {
  timer_event_id_ = clock_.add_event("local apic timer", [this] { timer_event(); });
  apic_bus_.attach(static_cast<ApicBusAgent*>(this));
  reset();
}

void LocalApic::reset() {
  id_ = u32{config_.apic_id} << 24;
  tpr_ = ldr_ = 0;
  dfr_ = 0xFFFFFFFFu;
  svr_ = 0xFF;
  isr_ = tmr_ = irr_ = {};
  esr_ = errors_pending_ = 0;
  icr_low_ = icr_high_ = 0;
  lvt_.fill(lapic::kLvtMask);
  if (config_.lint0_ext_int_at_reset) lvt_[kLint0] = 0x700;  // ExtINT, unmasked, edge
  ext_int_request_ = false;
  initial_count_ = divide_configuration_ = 0;
  timer_start_tick_ = 0;
  timer_base_ = 0;
  timer_next_ = ~u64{0};
  clock_.cancel(timer_event_id_);
  apic_base_ = lapic::kDefaultBase | lapic::kApicBaseEnable | (config_.bsp ? lapic::kApicBaseBsp : 0);
  unmap_page();
  map_page();
}

// ---- priorities (SDM "Interrupt, Task, and Processor Priority") ----

int LocalApic::highest(const Bits256& bits) {
  for (int word = 7; word >= 0; --word)
    if (bits[word]) return word * 32 + 31 - std::countl_zero(bits[word]);
  return -1;
}

// PPR = TPR when TPR[7:4] >= ISRV[7:4], else ISRV[7:4]:0 (ISRV: the highest vector in service, or 0).
u8 LocalApic::processor_priority() const {
  const u32 isrv = static_cast<u32>(std::max(highest(isr_), 0));
  return static_cast<u8>((tpr_ & 0xF0) >= (isrv & 0xF0) ? tpr_ : isrv & 0xF0);
}

// SDM "Arbitration Priority Register (APR)": TPR when TPR[7:4] >= IRRV[7:4] and
// TPR[7:4] > ISRV[7:4]; else the largest of TPR[7:4], ISRV[7:4] and IRRV[7:4], with 3:0 = 0.
u8 LocalApic::arbitration_priority() const {
  const u32 isrv = static_cast<u32>(std::max(highest(isr_), 0)) & 0xF0;
  const u32 irrv = static_cast<u32>(std::max(highest(irr_), 0)) & 0xF0;
  const u32 tpr_class = tpr_ & 0xF0;
  if (tpr_class >= irrv && tpr_class > isrv) return static_cast<u8>(tpr_);
  return static_cast<u8>(std::max({tpr_class, isrv, irrv}));
}

// An IRR vector is dispatched only when its priority class is above the PPR's class.
int LocalApic::deliverable_vector() const {
  if (!enabled()) return -1;
  const int vector = highest(irr_);
  if (vector < 0 || (static_cast<u32>(vector) & 0xF0) <= (processor_priority() & 0xF0u)) return -1;
  return vector;
}

// ---- the CPU's INTR ----

bool LocalApic::virtual_wire() const {
  if (!enabled()) return true;
  const u32 lint0 = lvt_[kLint0];
  return !(lint0 & lapic::kLvtMask) && mode_of(lint0) == DeliveryMode::ExtInt;
}

bool LocalApic::interrupt_pending() const {
  if (!enabled()) return pic_.interrupt_pending();  // exactly the PC/AT path
  if ((virtual_wire() || ext_int_request_) && pic_.interrupt_pending()) return true;
  return deliverable_vector() >= 0;
}

// DEVIATION: an ExtINT request (LINT0 or a message) is taken before IRR vectors; the
// SDM gives no order between the two sources.
u8 LocalApic::acknowledge() {
  if (!enabled()) return pic_.acknowledge();
  if ((virtual_wire() || ext_int_request_) && pic_.interrupt_pending()) {
    ext_int_request_ = false;
    return pic_.acknowledge();
  }
  const int vector = deliverable_vector();
  // SDM "Spurious Interrupt": the request went away (TPR raised) between INTR and
  // INTA: the spurious vector, with no ISR bit set and no EOI expected.
  if (vector < 0) {
    emit(cpu_.tracer(), [&] {
      return events::LapicDispatch{.vector = static_cast<u8>(svr_), .ppr = processor_priority(), .spurious = true,
                                   .apic_id = apic_id()};
    });
    return static_cast<u8>(svr_);
  }
  const u8 v = static_cast<u8>(vector);
  emit(cpu_.tracer(), [&] { return events::LapicDispatch{.vector = v, .ppr = processor_priority(), .apic_id = apic_id()}; });
  ++cpu_.counters().apic_dispatches_by_vector[v];
  set(irr_, v, false);
  set(isr_, v, true);
  return v;
}

// ---- acceptance (SDM "Interrupt Acceptance for Fixed Interrupts") ----

bool LocalApic::is_destination(const ApicMessage& m) const {
  if (!(apic_base_ & lapic::kApicBaseEnable)) return false;
  if (!m.logical_destination) {
    // QUIRK: P6 physical destinations are 4 bits (ICR bits 59:56); 0Fh is the broadcast.
    const u8 destination = m.destination & 0x0F;
    return destination == 0x0F || destination == apic_id();
  }
  const u8 logical_id = static_cast<u8>(ldr_ >> 24);
  switch (dfr_ >> 28) {
    case 0xF: return (logical_id & m.destination) != 0;  // flat model: a bit per APIC
    case 0x0:  // cluster model: cluster in 7:4, a bit per APIC in 3:0; FFh is every APIC
      return m.destination == 0xFF ||
             ((m.destination >> 4) == (logical_id >> 4) && (m.destination & logical_id & 0x0F) != 0);
    default: return false;  // no model the SDM defines
  }
}

void LocalApic::request(u8 vector, bool level, u32 illegal_error) {
  if (vector < 16) {
    signal_error(illegal_error);
    return;
  }
  set(irr_, vector, true);
  set(tmr_, vector, level);
  cpu_.notify_interrupt();
}

// DEVIATION: SMI, INIT and start-up are not modeled (one CPU, no SMM): they are
// accepted and have no effect. Fixed and lowest-priority interrupts are not accepted
// while the APIC is software-disabled (SDM "Local APIC State After It Has Been
// Software Disabled" lists only INIT, NMI, SMI and start-up as answered then).
void LocalApic::accept(const ApicMessage& m) {
  if (!(apic_base_ & lapic::kApicBaseEnable)) return;
  const auto traced = [&] {
    emit(cpu_.tracer(), [&] {
      const bool ipi = m.source_apic_id != 0xFF;
      return events::LapicAccept{.vector = m.vector, .delivery_mode = static_cast<u8>(m.delivery_mode),
                                 .level = m.level_triggered,
                                 .source = ipi ? events::ApicSource::Ipi : events::ApicSource::IoApic,
                                 .source_apic_id = m.source_apic_id, .apic_id = apic_id()};
    });
  };
  switch (m.delivery_mode) {
    case DeliveryMode::Fixed:
    case DeliveryMode::LowestPriority:
      if (!(svr_ & 0x100)) break;
      traced();
      request(m.vector, m.level_triggered, lapic::kReceiveIllegalVector);
      break;
    case DeliveryMode::Nmi:
      traced();
      cpu_.raise_nmi();
      break;
    case DeliveryMode::ExtInt:
      traced();
      ext_int_request_ = true;
      cpu_.notify_interrupt();
      break;
    case DeliveryMode::Smi:
    case DeliveryMode::Init:
    case DeliveryMode::StartUp: break;
  }
}

void LocalApic::deliver_local(u32 lvt, bool level, events::ApicSource source) {
  if (lvt & lapic::kLvtMask) return;
  const DeliveryMode mode = mode_of(lvt);
  if (mode == DeliveryMode::Fixed || mode == DeliveryMode::Nmi)
    emit(cpu_.tracer(), events::LapicAccept{.vector = static_cast<u8>(lvt), .delivery_mode = static_cast<u8>(mode),
                                            .level = level, .source = source, .apic_id = apic_id()});
  switch (mode) {
    case DeliveryMode::Fixed: request(static_cast<u8>(lvt), level, lapic::kReceiveIllegalVector); break;
    case DeliveryMode::Nmi: cpu_.raise_nmi(); break;
    default: break;  // ExtINT is LINT0's virtual wire; SMI and INIT are not modeled
  }
}

// Errors accumulate until the next ESR write; each newly detected one raises the
// LVT error entry (an illegal error vector cannot recurse: its bit is then set).
void LocalApic::signal_error(u32 bits) {
  const u32 fresh = bits & ~errors_pending_;
  errors_pending_ |= bits;
  if (fresh) deliver_local(lvt_[kError], false, events::ApicSource::Error);
}

void LocalApic::set_lint1(bool level) {
  const bool rising = level && !lint1_;
  lint1_ = level;
  if (!rising) return;
  if (!enabled()) cpu_.raise_nmi();  // the pin is the NMI input itself
  else deliver_local(lvt_[kLint1], false, events::ApicSource::Lint1);
}

// ---- EOI (SDM "EOI Register") ----

void LocalApic::end_of_interrupt() {
  const int vector = highest(isr_);
  if (vector < 0) return;
  const u8 v = static_cast<u8>(vector);
  set(isr_, v, false);
  ++cpu_.counters().apic_eois;
  emit(cpu_.tracer(), [&] { return events::LapicEoi{.vector = v, .level = test(tmr_, v), .apic_id = apic_id()}; });
  if (test(tmr_, v)) apic_bus_.broadcast_eoi(v);
}

// ---- the ICR (SDM "Interrupt Command Register (ICR)") ----

void LocalApic::send_ipi() {
  ApicMessage m;
  m.vector = static_cast<u8>(icr_low_);
  m.delivery_mode = mode_of(icr_low_);
  m.logical_destination = icr_low_ >> 11 & 1;
  m.assert = icr_low_ >> 14 & 1;
  m.level_triggered = icr_low_ >> 15 & 1;
  m.shorthand = static_cast<DestinationShorthand>(icr_low_ >> 18 & 3);
  m.destination = static_cast<u8>(icr_high_ >> 24);
  m.source_apic_id = apic_id();
  // INIT level de-assert goes to every APIC whatever the destination (SDM, ICR delivery mode 101).
  if (m.delivery_mode == DeliveryMode::Init && m.level_triggered && !m.assert)
    m.shorthand = DestinationShorthand::AllIncludingSelf;
  const bool fixed = m.delivery_mode == DeliveryMode::Fixed || m.delivery_mode == DeliveryMode::LowestPriority;
  // Our choice: a fixed IPI with an illegal vector sets Send Illegal Vector and is not sent.
  if (fixed && m.vector < 16) {
    signal_error(lapic::kSendIllegalVector);
    return;
  }
  ++cpu_.counters().apic_ipis;
  emit(cpu_.tracer(), [&] {
    return events::LapicIpi{.vector = m.vector, .delivery_mode = static_cast<u8>(m.delivery_mode),
                            .logical = m.logical_destination, .assert = m.assert, .level = m.level_triggered,
                            .shorthand = static_cast<u8>(m.shorthand), .destination = m.destination,
                            .apic_id = m.source_apic_id};
  });
  apic_bus_.send(m);
}

// ---- the register page ----

u32 LocalApic::register_value(u32 offset) const {
  if (offset >= lapic::kIsr && offset < lapic::kEsr) {
    const unsigned word = (offset >> 4) & 7;
    if (offset < lapic::kTmr) return isr_[word];
    if (offset < lapic::kIrr) return tmr_[word];
    return irr_[word];
  }
  if (const int index = lvt_index(offset); index >= 0) return lvt_[static_cast<unsigned>(index)];
  switch (offset) {
    case lapic::kId: return id_;
    // The SDM gives the version as 1xH for an integrated APIC and Max LVT Entry 4 for
    // the P6 family; 11h is what Pentium Pro/II/III parts report (assumption: Linux's
    // "APIC version 17" boot lines on them, not an SDM statement).
    case lapic::kVersion: return config_.xapic_version ? lapic::kXapicVersion : lapic::kP6Version;
    case lapic::kTpr: return tpr_;
    case lapic::kApr: return arbitration_priority();
    case lapic::kPpr: return processor_priority();
    case lapic::kLdr: return ldr_;
    case lapic::kDfr: return dfr_;
    case lapic::kSvr: return svr_;
    case lapic::kEsr: return esr_;
    case lapic::kIcrLow: return icr_low_;  // delivery status 0: a send completes within the write
    case lapic::kIcrHigh: return icr_high_;
    case lapic::kInitialCount: return initial_count_;
    case lapic::kCurrentCount: return current_count();
    case lapic::kDivideConfiguration: return divide_configuration_;
    default: return 0;  // EOI (write-only) and reserved offsets
  }
}

namespace {
bool is_register(u32 offset) {
  switch (offset) {
    case lapic::kId: case lapic::kVersion: case lapic::kTpr: case lapic::kApr: case lapic::kPpr:
    case lapic::kEoi: case lapic::kLdr: case lapic::kDfr: case lapic::kSvr: case lapic::kEsr:
    case lapic::kIcrLow: case lapic::kIcrHigh: case lapic::kLvtTimer: case lapic::kLvtPerformanceCounter:
    case lapic::kLvtLint0: case lapic::kLvtLint1: case lapic::kLvtError: case lapic::kInitialCount:
    case lapic::kCurrentCount: case lapic::kDivideConfiguration: return true;
    default: return offset >= lapic::kIsr && offset < lapic::kEsr;
  }
}
}  // namespace

u32 LocalApic::read(u32 address, unsigned size) {
  const u32 slot = address & 0xFF0, byte = address & 0xF;
  if (!is_register(slot)) {
    signal_error(lapic::kIllegalRegisterAddress);
    return 0;
  }
  if (byte >= 4) return 0;
  const u32 value = register_value(slot) >> (8 * byte);
  return size >= 4 ? value : value & ((1u << (8 * size)) - 1);
}

void LocalApic::write(u32 address, unsigned size, u32 value) {
  const u32 slot = address & 0xFF0;
  if (!is_register(slot)) {
    signal_error(lapic::kIllegalRegisterAddress);
    return;
  }
  if (size != 4 || (address & 0xF) != 0) return;  // our choice: only aligned 32-bit writes
  if (const int index = lvt_index(slot); index >= 0) {
    write_lvt(static_cast<unsigned>(index), value);
  } else {
    switch (slot) {
      case lapic::kId: id_ = value & 0x0F000000u; break;
      case lapic::kTpr: tpr_ = value & 0xFF; break;
      case lapic::kEoi: end_of_interrupt(); break;
      case lapic::kLdr: ldr_ = value & 0xFF000000u; break;
      case lapic::kDfr: dfr_ = value | 0x0FFFFFFFu; break;
      case lapic::kSvr: write_svr(value); break;
      case lapic::kEsr:  // write-before-read: latch the errors seen since the last write
        esr_ = errors_pending_;
        errors_pending_ = 0;
        break;
      case lapic::kIcrLow:
        icr_low_ = value & kIcrLowWritable;
        send_ipi();
        break;
      case lapic::kIcrHigh: icr_high_ = value & 0xFF000000u; break;
      case lapic::kInitialCount:
        initial_count_ = value;
        restart_timer(value);
        break;
      case lapic::kDivideConfiguration: {
        const u32 count = current_count();
        divide_configuration_ = value & 0xB;
        restart_timer(count);
        break;
      }
      default: break;  // read-only registers
    }
  }
  cpu_.notify_interrupt();
}

void LocalApic::write_lvt(unsigned index, u32 value) {
  u32 entry = value & kLvtWritable[index];
  // Software-disabled: the masks are set and writes cannot clear them (SDM "Local APIC
  // State After It Has Been Software Disabled").
  if (!(svr_ & 0x100)) entry |= lapic::kLvtMask;
  if (index == kTimer) {
    const u32 count = current_count();
    lvt_[index] = entry;
    restart_timer(count);
    return;
  }
  lvt_[index] = entry;
}

// SVR: spurious vector 7:0 with bits 3:0 hardwired to 1 on the P6 family, APIC
// software enable 8, focus processor checking 9 (SDM "Spurious-Interrupt Vector Register").
void LocalApic::write_svr(u32 value) {
  svr_ = (value & 0x3FF) | 0x0F;
  if (!(svr_ & 0x100))
    for (u32& entry : lvt_) entry |= lapic::kLvtMask;
}

// ---- IA32_APIC_BASE and the page ----

bool LocalApic::write_apic_base(u64 value) {
  if (value & ~(lapic::kApicBaseAddress | lapic::kApicBaseEnable | lapic::kApicBaseBsp)) return false;
  u64 next = (value & (lapic::kApicBaseAddress | lapic::kApicBaseEnable)) | (apic_base_ & lapic::kApicBaseBsp);
  // QUIRK: on the P6 family a globally disabled APIC is enabled again only by a reset
  // (SDM "Enabling or Disabling the Local APIC").
  if (!(apic_base_ & lapic::kApicBaseEnable)) next &= ~lapic::kApicBaseEnable;
  if (next == apic_base_) return true;
  apic_base_ = next;
  unmap_page();
  map_page();
  cpu_.notify_interrupt();
  return true;
}

void LocalApic::map_page() {
  if (!(apic_base_ & lapic::kApicBaseEnable)) return;
  mapped_base_ = static_cast<u32>(apic_base_ & lapic::kApicBaseAddress);
  bus_.map_mmio(mapped_base_, PhysicalBus::kPageBytes, this);
  page_mapped_ = true;
}

void LocalApic::unmap_page() {
  if (!page_mapped_) return;
  bus_.unmap_mmio(this);
  page_mapped_ = false;
}

void LocalApic::transfer_state(StateArchive& a) {
  a.field(apic_base_, "IA32_APIC_BASE");
  a.field(id_, "APIC ID");
  a.field(tpr_, "TPR");
  a.field(ldr_, "LDR");
  a.field(dfr_, "DFR");
  a.field(svr_, "SVR");
  a.array(isr_, "ISR");
  a.array(tmr_, "TMR");
  a.array(irr_, "IRR");
  a.field(esr_, "ESR");
  a.field(errors_pending_, "errors since the ESR write");
  a.field(icr_low_, "ICR low");
  a.field(icr_high_, "ICR high");
  a.array(lvt_, "LVT");
  a.field(ext_int_request_, "ExtINT request");
  a.field(lint1_, "LINT1");
  a.field(initial_count_, "initial count");
  a.field(divide_configuration_, "divide configuration", 0xB);
  a.field(timer_start_tick_, "timer start");
  a.field(timer_base_, "timer base count");
  a.field(timer_next_, "timer next expiry");
  if (!a.loading()) return;
  unmap_page();
  map_page();
}

}  // namespace x86lab
