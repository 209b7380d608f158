// The tracer: filters events and hands them to sinks (DESIGN.md section 6). The CPU
// tells it which instruction is executing (begin_instruction); every layer emits a
// typed record (trace/events.h) with emit(tracer, record), which costs one branch
// when no tracer is attached: nothing is built or formatted then.
#pragma once
#include <bitset>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

#include "trace/events.h"
#include "trace/sink.h"

namespace x86lab {

struct TraceFilter {
  std::bitset<kEventKindCount> kinds = std::bitset<kEventKindCount>().set();  // event kinds kept
  u32 eip_min = 0, eip_max = 0xFFFFFFFFu;    // keep events of instructions with EIP in [min, max]
  std::optional<u16> cs;                      // ... and this CS selector, if set
  std::optional<u8> cpl;                      // keep events of instructions at this CPL
  u64 from_instruction = 0;                   // instruction window [from, to)
  u64 to_instruction = UINT64_MAX;
};

struct TraceTriggers {
  std::optional<u32> start_eip;     // start tracing at the first instruction with this EIP
  std::optional<u8> start_vector;   // start at the first delivery of this vector
  std::optional<u32> stop_eip;      // stop (for good) at the first instruction with this EIP
  bool end_run = false;             // end the run when the filter's window is over ("window")
};

// Parses "--trace-filter" text: comma-separated kind names (kEventKindNames), "apic"
// (every APIC kind, kFirstApicEventKind on), "cpl=N",
// "eip=LO-HI" (hex, LO <= HI), "cs=SEL" (hex), "window=FROM-TO" (instructions, decimal,
// FROM < TO). Throws std::invalid_argument with one line naming the bad item: a number
// too wide for its field (EIP 32 bits, CS 16), a reversed range, or no item at all.
TraceFilter parse_trace_filter(const std::string& text);
// Parses "--trace-start"/"--trace-stop" text: "eip=HEX", (start only) "vector=N" or
// (stop only) "window": end the run once the --trace-filter window is over.
void parse_trace_trigger(const std::string& text, bool start, TraceTriggers& triggers);

class Tracer {
 public:
  Tracer(TraceFilter filter, TraceTriggers triggers) : filter_(filter), triggers_(triggers) {
    active_ = !triggers.start_eip && !triggers.start_vector;
  }
  void add_sink(std::unique_ptr<TraceSink> sink) { sinks_.push_back(std::move(sink)); }

  // Called by the CPU before each instruction: its index, CS:EIP, CPL and the cycle.
  void begin_instruction(u64 index, u64 cycle, u16 cs, u32 eip, u8 cpl) {
    instruction_ = index;
    cycle_ = cycle;
    cs_ = cs;
    eip_ = eip;
    cpl_ = cpl;
    if (!active_ && !stopped_ && triggers_.start_eip && *triggers_.start_eip == eip) active_ = true;
    if (active_ && triggers_.stop_eip && *triggers_.stop_eip == eip) {
      active_ = false;
      stopped_ = true;
    }
  }
  void set_cycle(u64 cycle) { cycle_ = cycle; }

  // A sink that sees every event before the filter and the triggers (the debugger's
  // event breakpoints); null for none. Not owned; finish() is not called on it.
  void set_tap(TraceSink* tap) { tap_ = tap; }
  TraceSink* tap() const { return tap_; }

  // Emits an event attributed to the current instruction (fills instruction/cycle).
  void emit(Event event) {
    if (tap_) [[unlikely]] {
      event.instruction = instruction_;
      event.cycle = cycle_;
      tap_->write(event);
    }
    if (!active_ && !stopped_ && event.kind == EventKind::Exception && triggers_.start_vector &&
        *triggers_.start_vector == event.detail)
      active_ = true;
    if (!active_ || !passes(event.kind)) return;
    event.instruction = instruction_;
    event.cycle = cycle_;
    ++emitted_;
    for (auto& sink : sinks_) sink->write(event);
  }
  // Empties the sinks' files once every input of the run has been checked
  // (OutputFile::start).
  void start() {
    for (auto& sink : sinks_) sink->start();
  }
  // Finishes every sink, then rethrows the first error (OutputError: a file that
  // could not be written).
  void finish() {
    std::exception_ptr first_error;
    for (auto& sink : sinks_) {
      try {
        sink->finish();
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    sinks_.clear();
    if (first_error) std::rethrow_exception(first_error);
  }
  u64 emitted() const { return emitted_; }
  // The instructions whose events this tracer can keep, [window_begin(), window_end())
  // (--trace-filter window=), when that window alone decides it: no start or stop
  // trigger and no tap, which must see the events outside it. Otherwise [0, 2^64).
  // The machine runs the CPU untraced outside it (Machine::attach_tracer).
  u64 window_begin() const { return windowed() ? filter_.from_instruction : 0; }
  u64 window_end() const { return windowed() ? filter_.to_instruction : UINT64_MAX; }
  // Whether the run ends once the window is over (--trace-stop window).
  bool ends_run() const { return triggers_.end_run && windowed() && filter_.to_instruction != UINT64_MAX; }
  // Whether register-write events are wanted (the CPU skips the snapshot otherwise).
  bool wants(EventKind kind) const { return active_ && passes(kind); }

 private:
  bool windowed() const { return !triggers_.start_eip && !triggers_.start_vector && !triggers_.stop_eip && !tap_; }
  bool passes(EventKind kind) const {
    if (!filter_.kinds.test(static_cast<std::size_t>(kind))) return false;
    if (instruction_ < filter_.from_instruction || instruction_ >= filter_.to_instruction) return false;
    if (eip_ < filter_.eip_min || eip_ > filter_.eip_max) return false;
    if (filter_.cs && *filter_.cs != cs_) return false;
    if (filter_.cpl && *filter_.cpl != cpl_) return false;
    return true;
  }
  TraceFilter filter_;
  TraceTriggers triggers_;
  std::vector<std::unique_ptr<TraceSink>> sinks_;
  TraceSink* tap_ = nullptr;
  bool active_ = true, stopped_ = false;
  u64 instruction_ = 0, cycle_ = 0, emitted_ = 0;
  u16 cs_ = 0;
  u32 eip_ = 0;
  u8 cpl_ = 0;
};

// Emits `record` (a trace/events.h record) when `tracer` is set: the only cost
// without a tracer is the test of the pointer (the record's fields are computed only
// past it, once this is inlined).
template <class Record>
  requires(!std::is_invocable_v<Record>)
[[gnu::always_inline]] inline void emit(Tracer* tracer, const Record& record) {
  if (tracer) [[unlikely]] tracer->emit(events::to_event(record));
}
// The same for a record that costs something to build: `make()` returns it and is
// called only when `tracer` is set.
template <class Make>
  requires std::is_invocable_v<Make>
[[gnu::always_inline]] inline void emit(Tracer* tracer, Make&& make) {
  if (tracer) [[unlikely]] tracer->emit(events::to_event(make()));
}

}  // namespace x86lab
