// The APIC window's view model (see apic_model.h).
#include "ui/gui/apic_model.h"

#include <cstdio>

#include "platform/debugger/apic_inspect.h"
#include "platform/devices/apic/io_apic.h"
#include "platform/devices/apic/local_apic.h"
#include "platform/machine.h"

namespace x86lab::gui {

namespace {
constexpr u32 kLvtOffsets[] = {lapic::kLvtTimer, lapic::kLvtLint0, lapic::kLvtLint1, lapic::kLvtError,
                               lapic::kLvtPerformanceCounter};

ApicBits bits_at(const LocalApic& apic, u32 first_offset) {
  ApicBits bits{};
  for (unsigned word = 0; word < 8; ++word) bits[word] = apic.register_value(first_offset + 0x10 * word);
  return bits;
}

LocalApicSnapshot capture_local(const LocalApic& apic, const VirtualClock& clock) {
  LocalApicSnapshot s;
  s.present = true;
  s.apic_base = apic.apic_base();
  s.id = apic.register_value(lapic::kId);
  s.version = apic.register_value(lapic::kVersion);
  s.tpr = apic.register_value(lapic::kTpr);
  s.apr = apic.register_value(lapic::kApr);
  s.ppr = apic.register_value(lapic::kPpr);
  s.ldr = apic.register_value(lapic::kLdr);
  s.dfr = apic.register_value(lapic::kDfr);
  s.svr = apic.register_value(lapic::kSvr);
  s.esr = apic.register_value(lapic::kEsr);  // the latched value; only a write latches
  s.icr_low = apic.register_value(lapic::kIcrLow);
  s.icr_high = apic.register_value(lapic::kIcrHigh);
  s.irr = bits_at(apic, lapic::kIrr);
  s.isr = bits_at(apic, lapic::kIsr);
  s.tmr = bits_at(apic, lapic::kTmr);
  for (unsigned i = 0; i < s.lvt.size(); ++i) s.lvt[i] = apic.register_value(kLvtOffsets[i]);
  s.initial_count = apic.register_value(lapic::kInitialCount);
  s.current_count = apic.current_count();
  s.divide_configuration = apic.register_value(lapic::kDivideConfiguration);
  if (const auto expiry = apic.timer_expiry_cycle())
    s.cycles_to_expiry = *expiry > clock.now() ? *expiry - clock.now() : 0;
  return s;
}

IoApicSnapshot capture_io(const Machine& machine) {
  const IoApicView v = inspect_io_apic(machine);
  IoApicSnapshot s{.id = v.id_register, .version = v.version_register, .arbitration = v.arbitration,
                   .io_register_select = v.io_register_select};
  for (unsigned pin = 0; pin < IoApic::kPins; ++pin) {
    s.entries[pin] = v.entries[pin].entry.bits;
    s.inputs |= u32{v.entries[pin].input_high} << pin;
  }
  return s;
}
}  // namespace

ApicSnapshot capture_apic(const Machine& machine) {
  ApicSnapshot snapshot;
  if (machine.local_apic) snapshot.local = capture_local(*machine.local_apic, machine.clock);
  if (machine.devices) snapshot.io = capture_io(machine);
  return snapshot;
}

bool vector_bit(const ApicBits& bits, u8 vector) { return bits[vector >> 5] >> (vector & 31) & 1; }

std::vector<u8> set_vectors(const ApicBits& bits) {
  std::vector<u8> vectors;
  for (unsigned v = 0; v < 256; ++v)
    if (vector_bit(bits, static_cast<u8>(v))) vectors.push_back(static_cast<u8>(v));
  return vectors;
}

std::string vector_list(const ApicBits& bits) {
  std::string text;
  for (const u8 v : set_vectors(bits)) {
    char item[8];
    std::snprintf(item, sizeof item, "%s%02Xh", text.empty() ? "" : " ", v);
    text += item;
  }
  return text.empty() ? "none" : text;
}

std::string_view delivery_mode_name(unsigned mode) {
  static constexpr std::string_view kNames[8] = {"Fixed", "LowPri", "SMI",     "reserved",
                                                 "NMI",   "INIT",   "StartUp", "ExtINT"};
  return kNames[mode & 7];
}

// The fields come from the monitor's decoders (platform/debugger/apic_inspect.h); the
// window names them its own way.
LvtRow decode_lvt(LvtIndex index, u32 raw) {
  const bool has_mode = index != LvtIndex::Timer && index != LvtIndex::Error;
  const bool lint = index == LvtIndex::Lint0 || index == LvtIndex::Lint1;
  const LvtEntryView entry = decode_lvt_entry(kLvtNames[static_cast<unsigned>(index)], raw, has_mode, lint);
  const auto lint_only = [&](bool value) { return lint ? std::optional(value) : std::nullopt; };
  return {.name = entry.name, .raw = entry.raw, .vector = entry.vector,
          .delivery_mode = delivery_mode_name(entry.delivery_mode),  // 0 ("Fixed") without a mode field
          .masked = entry.masked, .pending = entry.delivery_pending, .level = lint_only(entry.level),
          .remote_irr = lint_only(entry.remote_irr), .active_low = lint_only(entry.polarity_low),
          .periodic = index == LvtIndex::Timer ? std::optional((raw & lapic::kLvtPeriodic) != 0) : std::nullopt};
}

IcrFields decode_icr(u32 low, u32 high) {
  static constexpr std::string_view kShorthands[4] = {"none", "self", "all incl. self", "all excl. self"};
  const IcrView icr = x86lab::decode_icr(low, high);
  return {.vector = icr.vector, .delivery_mode = delivery_mode_name(icr.delivery_mode),
          .shorthand = kShorthands[icr.shorthand], .logical = icr.logical, .pending = icr.delivery_pending,
          .assert = icr.assert, .level = icr.level, .destination = icr.destination};
}

ApicBaseFields decode_apic_base(u64 value) {
  return {static_cast<u32>(value & lapic::kApicBaseAddress), (value & lapic::kApicBaseEnable) != 0,
          (value & lapic::kApicBaseBsp) != 0};
}

std::string_view timer_mode_name(u32 lvt_timer) { return lvt_timer & lapic::kLvtPeriodic ? "periodic" : "one-shot"; }

RedirectionRow decode_redirection(unsigned pin, u64 bits, bool input_high) {
  const IoApic::RedirectionEntry e{bits};
  return {.pin = pin, .vector = e.vector(), .delivery_mode = delivery_mode_name(static_cast<unsigned>(e.delivery_mode())),
          .logical = e.logical(), .active_low = e.polarity_low(), .level = e.level_triggered(),
          .remote_irr = e.remote_irr(), .masked = e.masked(), .pending = e.delivery_pending(),
          .destination = e.destination(), .input_high = input_high};
}

}  // namespace x86lab::gui
