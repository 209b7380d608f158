// The MC146818 real-time clock and CMOS RAM of a PC at ports 70h (index, bit 7 = NMI
// mask) and 71h (data), interrupting on IRQ 8 (Motorola MC146818A data sheet:
// "Time, Calendar and Alarm Locations", "Update Cycle", "Interrupts", registers A-D;
// the IBM PC/AT CMOS layout for the configuration bytes). Time runs on the virtual
// clock from a start time chosen by the machine (fixed by default).
#pragma once
#include "trace/state_archive.h"
#include <array>
#include <functional>

#include "mmu/port_bus.h"
#include "platform/clock.h"

namespace x86lab {

class Mc146818 : public BusDevice {
 public:
  static constexpr u64 kUpdateInProgressNs = 244'000;  // UIP rises 244 us before each update
  static constexpr i64 kDefaultStart = 1'704'067'200;  // 2024-01-01 00:00:00 UTC

  // `start_seconds`: calendar time (seconds since 1970-01-01 UTC) at cycle 0.
  // `irq8` receives the IRQ line level (IRQF of register C).
  Mc146818(VirtualClock& clock, i64 start_seconds, std::function<void(bool)> irq8);

  // Writes the PC/AT configuration bytes: base and extended memory sizes (10h-18h,
  // 30h-31h, 34h-35h), equipment byte, century, and the 10h-2Dh checksum.
  void set_configuration(u32 ram_bytes, bool fpu_present);

  // Sets CMOS RAM byte `index` (0Eh-7Fh: the configuration bytes the BIOS reads, not
  // the clock registers) as a machine's setup does before power-on
  // (platform/bios_cmos.h); indexes below 0Eh or above 7Fh are ignored.
  void set_cmos_byte(unsigned index, u8 value) {
    if (index >= 0x0E && index < 0x80) ram_[index] = value;
  }

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "rtc"; }

  // Register or RAM byte `index` (0-127) without side effects (for tests and debuggers).
  u8 peek(unsigned index) const { return ram_[index & 0x7F]; }
  bool nmi_masked() const { return nmi_masked_; }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  // Register numbers of the clock part.
  enum : u8 { kSeconds = 0, kSecondsAlarm = 1, kMinutes = 2, kMinutesAlarm = 3, kHours = 4, kHoursAlarm = 5,
              kDayOfWeek = 6, kDayOfMonth = 7, kMonth = 8, kYear = 9, kA = 10, kB = 11, kC = 12, kD = 13,
              kCentury = 0x32 };
  bool binary() const { return ram_[kB] & 0x04; }
  bool hours_24() const { return ram_[kB] & 0x02; }
  bool divider_running() const { return ((ram_[kA] >> 4) & 7) == 2; }
  u8 encode(unsigned value) const;
  unsigned decode(u8 raw) const;
  u8 encode_hour(unsigned hour) const;
  unsigned decode_hour(u8 raw) const;
  void set_time(i64 seconds);
  void advance_one_second();
  void sync();
  void update_cycle();
  void schedule_update();
  u64 periodic_ticks() const;  // period in 32768 Hz ticks, or 0 for none
  u64 periodic_index() const;
  void schedule_periodic();
  void periodic_event();
  void update_irq();
  u8 read_register(u8 index);
  void write_register(u8 index, u8 value);

  VirtualClock& clock_;
  std::function<void(bool)> irq8_;
  std::array<u8, 128> ram_{};
  u8 index_ = 0;
  bool nmi_masked_ = false;
  u64 next_update_ns_ = 1'000'000'000;
  u64 periodic_reference_ = 0;  // periodic_index() when PF was last cleared
  VirtualClock::EventId update_event_, periodic_event_;
  bool irq_level_ = false;
};

}  // namespace x86lab
