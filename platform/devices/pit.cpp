// 8254 counters as functions of the input-clock edge count: each mode's count and
// OUT are computed from the edges elapsed since the count was loaded (82C54 data
// sheet, "Mode 0" to "Mode 5", "Gate", "Read Operations").
#include "platform/devices/pit.h"

namespace x86lab {

namespace {
u32 from_bcd(u32 raw) {
  return ((raw >> 12) & 0xF) * 1000 + ((raw >> 8) & 0xF) * 100 + ((raw >> 4) & 0xF) * 10 + (raw & 0xF);
}
u16 to_bcd(u32 value) {
  return static_cast<u16>(((value / 1000) % 10) << 12 | ((value / 100) % 10) << 8 | ((value / 10) % 10) << 4 | (value % 10));
}
}  // namespace

Pit8254::Pit8254(VirtualClock& clock, std::function<void(bool)> out0_changed)
    : clock_(clock), out0_changed_(std::move(out0_changed)) {
  event0_ = clock_.add_event("pit counter 0", [this] { update_counter0(); });
}

void Pit8254::sync(Counter& c, u64 edge) {
  if (c.has_pending && !c.frozen && edge >= c.pending_edge) {
    c.modulus = c.pending_modulus;
    c.load_edge = c.pending_edge;
    c.has_pending = false;
  }
  if (c.null_count && c.counting && !c.has_pending && edge >= c.load_edge) c.null_count = false;
}

bool Pit8254::elapsed(const Counter& c, u64 edge, u64& j) const {
  if (!c.counting) return false;
  if (c.frozen) {
    j = c.frozen_elapsed;
    return true;
  }
  if (edge < c.load_edge) return false;
  j = edge - c.load_edge;
  return true;
}

u32 Pit8254::count_at(Counter& c, u64 edge) {
  sync(c, edge);
  u64 j;
  if (!elapsed(c, edge, j)) return c.counting ? c.modulus : 0;
  const u64 n = c.modulus;
  const u64 wrap = c.bcd ? 10000 : 0x10000;
  switch (c.mode) {
    case 2: return static_cast<u32>(n - j % n);
    case 3: {
      // Counts down by two through each half period (high half first, (N+1)/2 edges).
      const u64 p = j % n, high = (n + 1) / 2;
      const u64 length = p < high ? high : n / 2, k = p < high ? p : p - high;
      return static_cast<u32>((2 * (length - k)) % wrap);
    }
    default: return static_cast<u32>((n + wrap - j % wrap) % wrap);  // modes 0, 1, 4, 5 wrap past 0
  }
}

bool Pit8254::out_at(Counter& c, u64 edge) {
  sync(c, edge);
  if (c.frozen && (c.mode == 2 || c.mode == 3)) return true;  // GATE low forces OUT high
  u64 j;
  if (!elapsed(c, edge, j)) return c.out_initial;
  const u64 n = c.modulus;
  switch (c.mode) {
    case 0: case 1: return j >= n;          // high at terminal count
    case 2: return j % n != n - 1;          // low for the one clock when the count is 1
    case 3: return j % n < (n + 1) / 2;     // square wave, high half first
    default: return j != n;                 // modes 4 and 5: a one-clock low strobe at 0
  }
}

u64 Pit8254::next_out_edge(Counter& c, u64 edge) {
  sync(c, edge);
  u64 next = VirtualClock::kNever;
  if (c.counting && !c.frozen) {
    const u64 n = c.modulus;
    if (edge < c.load_edge) {
      next = c.load_edge;
    } else {
      const u64 j = edge - c.load_edge, p = j % n;
      switch (c.mode) {
        case 0: case 1: if (j < n) next = c.load_edge + n; break;
        case 2: next = p < n - 1 ? edge + (n - 1 - p) : edge + 1; break;
        case 3: {
          const u64 high = (n + 1) / 2;
          next = p < high ? edge + (high - p) : edge + (n - p);
          break;
        }
        default:
          if (j < n) next = c.load_edge + n;
          else if (j == n) next = edge + 1;
          break;
      }
    }
  }
  if (c.has_pending && c.pending_edge < next) next = c.pending_edge;
  return next;
}

u16 Pit8254::encoded_count(const Counter& c, u32 count) const {
  if (c.bcd) return to_bcd(count % 10000);
  return static_cast<u16>(count);
}

u8 Pit8254::status(Counter& c, u64 edge) {
  // Read-back status: OUT, NULL COUNT, RW1 RW0, M2 M1 M0, BCD.
  const bool out = out_at(c, edge);
  return static_cast<u8>((out ? 0x80 : 0) | (c.null_count ? 0x40 : 0) | (c.access << 4) | (c.mode << 1) | (c.bcd ? 1 : 0));
}

bool Pit8254::out(unsigned counter) { return out_at(counters_[counter], edge_now()); }

// Reports OUT 0 to IRQ 0 and schedules the next change. The CPU stops for a device
// event only at an instruction boundary, so this can run after the edge it was
// scheduled for; OUT is then replayed edge by edge from that one, so that a pulse
// shorter than the delay (the one-clock low strobe of mode 4 at terminal count, the
// one-clock low of mode 2) still gives IRQ 0 its rising edge (82C54 data sheet,
// "Mode 4" and "Mode 2"). Without the replay a late strobe was lost, and a kernel
// whose one-shot timer (Linux's PIT clockevent, mode 4) never fired waited forever.
void Pit8254::update_counter0() {
  Counter& c = counters_[0];
  const u64 now = edge_now();
  u64 edge = event0_edge_ < now ? event0_edge_ : now;
  for (unsigned replayed = 0;; ++replayed) {
    const bool level = out_at(c, edge);
    if (level != out0_reported_) {
      out0_reported_ = level;
      if (out0_changed_) out0_changed_(level);
    }
    const u64 next = next_out_edge(c, edge);
    // At most a few edges per call; later ones run from the clock right away.
    if (next > now || replayed == 3) {
      event0_edge_ = next == VirtualClock::kNever ? UINT64_MAX : next;
      if (next == VirtualClock::kNever) clock_.cancel(event0_);
      else clock_.schedule(event0_, clock_.cycle_of_tick(next, kInputHz));
      return;
    }
    edge = next;
  }
}

void Pit8254::write_control(u8 value) {
  const unsigned select = value >> 6;
  const u8 access = (value >> 4) & 3;
  const u64 edge = edge_now();
  if (select == 3) {  // read-back: 11 /COUNT /STATUS CNT2 CNT1 CNT0 0
    for (unsigned i = 0; i < 3; ++i) {
      if (!((value >> (i + 1)) & 1)) continue;
      Counter& c = counters_[i];
      if (!(value & 0x20) && !c.count_latched) {
        c.latched_count = encoded_count(c, count_at(c, edge));
        c.count_latched = true;
        c.latch_msb_next = false;
      }
      if (!(value & 0x10) && !c.status_latched) {
        c.latched_status = status(c, edge);
        c.status_latched = true;
      }
    }
    return;
  }
  Counter& c = counters_[select];
  if (access == 0) {  // counter latch command; a second latch before reading is ignored
    if (!c.count_latched) {
      c.latched_count = encoded_count(c, count_at(c, edge));
      c.count_latched = true;
      c.latch_msb_next = false;
    }
    return;
  }
  u8 mode = (value >> 1) & 7;
  if (mode > 5) mode -= 4;  // 110 and 111 are modes 2 and 3
  const bool gate = c.gate;
  c = Counter{};
  c.gate = gate;
  c.mode = mode;
  c.access = access;
  c.bcd = value & 1;
  c.out_initial = mode != 0;  // mode 0 sets OUT low, the others high
  c.null_count = true;
  if (select == 0) update_counter0();
}

void Pit8254::load_count(Counter& c, u32 raw, u64 edge) {
  u32 n = c.bcd ? from_bcd(raw & 0xFFFF) : raw & 0xFFFF;
  if (n == 0) n = c.bcd ? 10000 : 0x10000;
  c.null_count = true;
  switch (c.mode) {
    case 1: case 5:  // loaded by the next GATE rising edge
      c.trigger_modulus = n;
      c.armed = true;
      break;
    case 2: case 3:
      if (c.counting && !c.frozen && edge >= c.load_edge) {
        // A new count during counting takes effect at the end of the current period.
        const u64 j = edge - c.load_edge;
        c.has_pending = true;
        c.pending_modulus = n;
        c.pending_edge = c.load_edge + c.modulus * (j / c.modulus + 1);
        break;
      }
      [[fallthrough]];
    default:  // modes 0 and 4 restart; the count is loaded on the next clock edge
      c.counting = true;
      c.has_pending = false;
      c.modulus = n;
      c.load_edge = edge + 1;
      c.frozen = !c.gate;  // GATE low: loaded but held
      c.frozen_elapsed = 0;
      break;
  }
}

void Pit8254::write_count(unsigned index, u8 value) {
  Counter& c = counters_[index];
  const u64 edge = edge_now();
  sync(c, edge);
  switch (c.access) {
    case 1: load_count(c, value, edge); break;
    case 2: load_count(c, u32{value} << 8, edge); break;
    default:
      if (!c.write_msb_next) {
        c.write_lsb = value;
        c.write_msb_next = true;
        if (c.mode == 0) c.counting = false;  // mode 0: writing the first byte stops counting
      } else {
        c.write_msb_next = false;
        load_count(c, c.write_lsb | (u32{value} << 8), edge);
      }
      break;
  }
  if (index == 0) update_counter0();
}

u8 Pit8254::read_counter(unsigned index) {
  Counter& c = counters_[index];
  if (c.status_latched) {
    c.status_latched = false;
    return c.latched_status;
  }
  u16 value;
  bool msb;
  if (c.count_latched) {
    value = c.latched_count;
    msb = c.access == 2 || (c.access == 3 && c.latch_msb_next);
    if (c.access == 3 && !c.latch_msb_next) c.latch_msb_next = true;
    else c.count_latched = false;
  } else {
    value = encoded_count(c, count_at(c, edge_now()));
    msb = c.access == 2 || (c.access == 3 && c.read_msb_next);
    if (c.access == 3) c.read_msb_next = !c.read_msb_next;
  }
  return static_cast<u8>(msb ? value >> 8 : value);
}

void Pit8254::set_gate(unsigned counter, bool level) {
  Counter& c = counters_[counter];
  const u64 edge = edge_now();
  sync(c, edge);
  if (level == c.gate) return;
  c.gate = level;
  u64 j = 0;
  const bool running = elapsed(c, edge, j);
  switch (c.mode) {
    case 0: case 4:  // GATE low suspends counting; high resumes it
      if (!level && c.counting) {
        c.frozen = true;
        c.frozen_elapsed = running ? j : 0;
      } else if (level && c.frozen) {
        c.frozen = false;
        c.load_edge = edge - c.frozen_elapsed;
      }
      break;
    case 1: case 5:  // a rising edge (re)triggers the count
      if (level && c.armed) {
        c.counting = true;
        c.frozen = false;
        c.modulus = c.trigger_modulus;
        c.load_edge = edge + 1;
      }
      break;
    default:  // modes 2 and 3: low holds OUT high; a rising edge reloads the count
      if (!level && c.counting) {
        c.frozen = true;
        c.frozen_elapsed = running ? j : 0;
      } else if (level && c.counting) {
        if (c.has_pending) c.modulus = c.pending_modulus;
        c.has_pending = false;
        c.frozen = false;
        c.load_edge = edge + 1;
      }
      break;
  }
  if (counter == 0) update_counter0();
}

u32 Pit8254::read(u32 port, unsigned) {
  if (port >= 0x40 && port <= 0x42) return read_counter(port - 0x40);
  return 0xFF;  // the control word register cannot be read
}

void Pit8254::write(u32 port, unsigned, u32 value) {
  if (port == 0x43) write_control(static_cast<u8>(value));
  else if (port >= 0x40 && port <= 0x42) write_count(port - 0x40, static_cast<u8>(value));
}

void Pit8254::transfer_state(StateArchive& a) {
  for (Counter& c : counters_) {
    a.field(c.mode, "PIT mode", 5);
    a.field(c.access, "PIT access", 3);
    a.field(c.bcd, "PIT BCD");
    a.field(c.modulus, "PIT modulus", 0x10000);
    a.field(c.counting, "PIT counting");
    a.field(c.load_edge, "PIT load edge");
    a.field(c.frozen, "PIT frozen");
    a.field(c.frozen_elapsed, "PIT frozen edges");
    a.field(c.has_pending, "PIT pending count");
    a.field(c.pending_modulus, "PIT pending modulus", 0x10000);
    a.field(c.pending_edge, "PIT pending edge");
    a.field(c.trigger_modulus, "PIT trigger modulus", 0x10000);
    a.field(c.armed, "PIT armed");
    a.field(c.gate, "PIT GATE");
    a.field(c.out_initial, "PIT OUT");
    a.field(c.null_count, "PIT null count");
    a.field(c.write_msb_next, "PIT write byte");
    a.field(c.write_lsb, "PIT write LSB");
    a.field(c.read_msb_next, "PIT read byte");
    a.field(c.count_latched, "PIT count latch");
    a.field(c.latched_count, "PIT latched count");
    a.field(c.latch_msb_next, "PIT latch byte");
    a.field(c.status_latched, "PIT status latch");
    a.field(c.latched_status, "PIT latched status");
  }
  a.field(out0_reported_, "PIT OUT0");
  a.field(event0_edge_, "PIT event edge");
}

}  // namespace x86lab
