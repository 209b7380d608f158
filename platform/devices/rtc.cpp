// MC146818 registers, the once-a-second update cycle with its alarm comparison, the
// periodic interrupt divider and the PC/AT CMOS configuration bytes.
#include "platform/devices/rtc.h"

#include <algorithm>

namespace x86lab {

namespace {
constexpr u8 kSet = 0x80, kPie = 0x40, kAie = 0x20, kUie = 0x10;  // register B
constexpr u8 kIrqf = 0x80, kPf = 0x40, kAf = 0x20, kUf = 0x10;    // register C
constexpr u64 kSecondNs = 1'000'000'000;

u8 to_bcd(unsigned value) { return static_cast<u8>(((value / 10) << 4) | (value % 10)); }

// Days since 1970-01-01 to a proleptic Gregorian date (era arithmetic on 400-year cycles).
void civil_from_days(i64 days, unsigned& year, unsigned& month, unsigned& day) {
  days += 719468;  // shift the epoch to 0000-03-01
  const i64 era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned shifted_month = (5 * day_of_year + 2) / 153;  // 0 = March
  day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
  month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
  year = static_cast<unsigned>(year_of_era + era * 400 + (month <= 2 ? 1 : 0));
}

// QUIRK: the MC146818 treats every year divisible by 4 as a leap year.
unsigned days_in_month(unsigned month, unsigned year_of_century) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && year_of_century % 4 == 0) return 29;
  return month >= 1 && month <= 12 ? kDays[month - 1] : 31;
}
}  // namespace

Mc146818::Mc146818(VirtualClock& clock, i64 start_seconds, std::function<void(bool)> irq8)
    : clock_(clock), irq8_(std::move(irq8)) {
  update_event_ = clock_.add_event("rtc update", [this] { update_cycle(); });
  periodic_event_ = clock_.add_event("rtc periodic", [this] { periodic_event(); });
  ram_[kA] = 0x26;  // divider running (32.768 kHz time base), 1024 Hz periodic rate
  ram_[kB] = 0x02;  // 24-hour, BCD, interrupts off
  ram_[kD] = 0x80;  // valid RAM and time
  set_time(start_seconds);
  schedule_update();
}

u8 Mc146818::encode(unsigned value) const { return binary() ? static_cast<u8>(value) : to_bcd(value); }
unsigned Mc146818::decode(u8 raw) const { return binary() ? raw : (raw >> 4) * 10 + (raw & 0xF); }

// 12-hour mode: 1-12 with bit 7 set for PM.
u8 Mc146818::encode_hour(unsigned hour) const {
  if (hours_24()) return encode(hour);
  const unsigned twelve = hour % 12 == 0 ? 12 : hour % 12;
  return static_cast<u8>(encode(twelve) | (hour >= 12 ? 0x80 : 0));
}
unsigned Mc146818::decode_hour(u8 raw) const {
  if (hours_24()) return decode(raw);
  const unsigned twelve = decode(raw & 0x7F) % 12;
  return twelve + ((raw & 0x80) ? 12 : 0);
}

void Mc146818::set_time(i64 seconds) {
  const i64 days = (seconds >= 0 ? seconds : seconds - 86399) / 86400;
  const unsigned of_day = static_cast<unsigned>(seconds - days * 86400);
  unsigned year, month, day;
  civil_from_days(days, year, month, day);
  ram_[kSeconds] = encode(of_day % 60);
  ram_[kMinutes] = encode(of_day / 60 % 60);
  ram_[kHours] = encode_hour(of_day / 3600);
  ram_[kDayOfWeek] = encode(static_cast<unsigned>(((days % 7) + 7 + 4) % 7) + 1);  // 1970-01-01 was a Thursday; Sunday = 1
  ram_[kDayOfMonth] = encode(day);
  ram_[kMonth] = encode(month);
  ram_[kYear] = encode(year % 100);
  ram_[kCentury] = to_bcd(year / 100 % 100);  // the PC/AT century byte is BCD
}

void Mc146818::advance_one_second() {
  unsigned second = decode(ram_[kSeconds]) + 1, minute = decode(ram_[kMinutes]), hour = decode_hour(ram_[kHours]);
  unsigned weekday = decode(ram_[kDayOfWeek]), day = decode(ram_[kDayOfMonth]), month = decode(ram_[kMonth]);
  unsigned year = decode(ram_[kYear]);
  if (second >= 60) { second = 0; ++minute; }
  if (minute >= 60) { minute = 0; ++hour; }
  if (hour >= 24) {
    hour = 0;
    weekday = weekday % 7 + 1;
    if (++day > days_in_month(month, year)) { day = 1; ++month; }
    if (month > 12) { month = 1; year = (year + 1) % 100; }
  }
  ram_[kSeconds] = encode(second);
  ram_[kMinutes] = encode(minute);
  ram_[kHours] = encode_hour(hour);
  ram_[kDayOfWeek] = encode(weekday);
  ram_[kDayOfMonth] = encode(day);
  ram_[kMonth] = encode(month);
  ram_[kYear] = encode(year);
}

// Update cycles are applied lazily, on the next register access or when an update
// or alarm interrupt is enabled (then an event is armed at the next update).
void Mc146818::sync() {
  const u64 now_ns = clock_.ns_at(clock_.now());
  if (!divider_running()) return;
  while (next_update_ns_ <= now_ns) {
    if (!(ram_[kB] & kSet)) {
      advance_one_second();
      ram_[kC] |= kUf;
      // An alarm byte with bits 7-6 = 11 matches any value ("don't care").
      auto matches = [&](u8 alarm, u8 time) { return (alarm & 0xC0) == 0xC0 || alarm == time; };
      if (matches(ram_[kSecondsAlarm], ram_[kSeconds]) && matches(ram_[kMinutesAlarm], ram_[kMinutes]) &&
          matches(ram_[kHoursAlarm], ram_[kHours]))
        ram_[kC] |= kAf;
    }
    next_update_ns_ += kSecondNs;
  }
  update_irq();
}

void Mc146818::schedule_update() {
  if (divider_running() && !(ram_[kB] & kSet) && (ram_[kB] & (kUie | kAie)))
    clock_.schedule(update_event_, clock_.cycle_of_ns(next_update_ns_));
  else
    clock_.cancel(update_event_);
}

void Mc146818::update_cycle() {
  sync();
  schedule_update();
}

u64 Mc146818::periodic_ticks() const {
  const unsigned rate = ram_[kA] & 0xF;
  if (!divider_running() || rate == 0) return 0;
  if (rate <= 2) return rate == 1 ? 128 : 256;  // 256 Hz and 128 Hz
  return u64{1} << (rate - 1);                   // 65536 >> rate Hz
}

u64 Mc146818::periodic_index() const {
  const u64 period = periodic_ticks();
  return period ? clock_.ticks_at(clock_.now(), 32768) / period : 0;
}

void Mc146818::schedule_periodic() {
  const u64 period = periodic_ticks();
  if (period && (ram_[kB] & kPie)) clock_.schedule(periodic_event_, clock_.cycle_of_tick((periodic_index() + 1) * period, 32768));
  else clock_.cancel(periodic_event_);
}

void Mc146818::periodic_event() {
  ram_[kC] |= kPf;
  update_irq();
  schedule_periodic();
}

void Mc146818::update_irq() {
  const u8 b = ram_[kB], c = ram_[kC];
  const bool irqf = ((c & kPf) && (b & kPie)) || ((c & kAf) && (b & kAie)) || ((c & kUf) && (b & kUie));
  ram_[kC] = static_cast<u8>(irqf ? c | kIrqf : c & ~kIrqf);
  if (irqf != irq_level_) {
    irq_level_ = irqf;
    if (irq8_) irq8_(irqf);
  }
}

u8 Mc146818::read_register(u8 index) {
  switch (index) {
    case kA: {
      const bool uip = divider_running() && !(ram_[kB] & kSet) &&
                       clock_.ns_at(clock_.now()) + kUpdateInProgressNs >= next_update_ns_;
      return static_cast<u8>(ram_[kA] | (uip ? 0x80 : 0));
    }
    case kC: {
      // PF is set at every period boundary even with PIE clear; reading C clears all flags.
      const u64 index_now = periodic_index();
      u8 value = ram_[kC];
      if (periodic_ticks() && index_now > periodic_reference_) value |= kPf;
      periodic_reference_ = index_now;
      ram_[kC] = 0;
      update_irq();
      return value;
    }
    case kD: return 0x80;
    default: return ram_[index];
  }
}

void Mc146818::write_register(u8 index, u8 value) {
  switch (index) {
    case kA: {
      const bool was_running = divider_running();
      ram_[kA] = value & 0x7F;  // UIP is read-only
      // Leaving divider reset: the first update comes half a second later.
      if (divider_running() && !was_running) next_update_ns_ = clock_.ns_at(clock_.now()) + kSecondNs / 2;
      periodic_reference_ = periodic_index();
      schedule_update();
      schedule_periodic();
      break;
    }
    case kB:
      ram_[kB] = static_cast<u8>((value & kSet) ? value & ~kUie : value);  // SET clears UIE
      update_irq();
      schedule_update();
      schedule_periodic();
      break;
    case kC: case kD: break;  // read-only
    default: ram_[index] = value; break;
  }
}

u32 Mc146818::read(u32 port, unsigned) {
  if (port == 0x71) {
    sync();
    return read_register(index_);
  }
  return 0xFF;  // the index port is write-only
}

void Mc146818::write(u32 port, unsigned, u32 value) {
  if (port == 0x70) {
    index_ = value & 0x7F;
    nmi_masked_ = value & 0x80;
  } else if (port == 0x71) {
    sync();
    write_register(index_, static_cast<u8>(value));
  }
}

void Mc146818::set_configuration(u32 ram_bytes, bool fpu_present) {
  constexpr u32 kMiB = 1024 * 1024;
  const u32 base_kb = 640;
  const u32 extended_kb = ram_bytes > kMiB ? std::min<u32>((ram_bytes - kMiB) / 1024, 0xFFFF) : 0;
  const u32 above_16m = ram_bytes > 16 * kMiB ? std::min<u32>((ram_bytes - 16 * kMiB) / 65536, 0xFFFF) : 0;
  ram_[0x10] = 0;                          // no floppy drives
  ram_[0x12] = 0;                          // no hard disks
  ram_[0x14] = fpu_present ? 0x02 : 0x00;  // equipment: coprocessor bit, VGA display, no floppy
  ram_[0x15] = static_cast<u8>(base_kb);
  ram_[0x16] = static_cast<u8>(base_kb >> 8);
  ram_[0x17] = ram_[0x30] = static_cast<u8>(extended_kb);
  ram_[0x18] = ram_[0x31] = static_cast<u8>(extended_kb >> 8);
  ram_[0x34] = static_cast<u8>(above_16m);
  ram_[0x35] = static_cast<u8>(above_16m >> 8);
  unsigned sum = 0;
  for (unsigned i = 0x10; i <= 0x2D; ++i) sum += ram_[i];
  ram_[0x2E] = static_cast<u8>(sum >> 8);
  ram_[0x2F] = static_cast<u8>(sum);
}

void Mc146818::transfer_state(StateArchive& a) {
  a.array(ram_, "CMOS RAM");
  a.field(index_, "CMOS index", 0x7F);
  a.field(nmi_masked_, "NMI mask");
  a.field(next_update_ns_, "RTC next update");
  a.field(periodic_reference_, "RTC periodic reference");
  a.field(irq_level_, "RTC IRQ 8");
}

}  // namespace x86lab
