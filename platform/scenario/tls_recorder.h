// Recording the TLS access stream of a run (`x86lab run --record-tls FILE`,
// docs/compare.md "Recording a TLS stream"; the format is roms/scenarios/tls/stream.h): every completed data access through GS at CPL 3 (Linux
// i386 glibc keeps its thread pointer in GS; SDM Vol. 3, "Segment Registers"), with
// the points where the GS descriptor base changed (a context switch to another thread),
// inside a window given by two serial-console markers or an instruction range.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "cpu/cpu.h"
#include "platform/devices/uart.h"
#include "platform/scenario/tls_stream.h"

namespace x86lab {

class Machine;

// Where recording starts and stops: between the first COM1 output containing `begin`
// and the next containing `end` (markers), or for the instructions [from, to)
// counted from power-on (Counters::instructions).
struct TlsWindow {
  std::string begin, end;  // markers; both empty for an instruction window (or the whole run)
  u64 from = 0, to = UINT64_MAX;
  bool markers() const { return !begin.empty(); }
};

// Parses `--record-tls-window`: "BEGIN..END" with two decimal instruction counts
// (FROM < TO), else two serial markers (non-empty, no newline). Throws InputError
// naming the option.
TlsWindow parse_tls_window(const std::string& text);

// What the window saw besides the stream: the instructions and modeled cycles between
// its opening and closing (the workload's own, for `compare tls-real`).
struct TlsWindowCounts {
  bool opened = false, closed = false;
  u64 instructions = 0;  // retired between opening and closing (or the run's end)
  u64 cycles = 0;        // modeled cycles likewise
};

class TlsRecorder final : public SegmentAccessObserver, public SerialHost {
 public:
  // `forward` receives COM1 as before (null: the bytes are dropped after the marker check).
  TlsRecorder(TlsWindow window, SerialHost* forward);

  // Observes `machine` (its COM1 host must be this recorder): an instruction window opens
  // at once (accesses before `from` are skipped), a marker window at its begin marker.
  void attach(Machine& machine);
  // Closes an open window at the end of the run (counts up to now).
  void finish();

  const TlsStream& stream() const { return stream_; }
  const TlsWindowCounts& counts() const { return counts_; }
  // Accesses through GS at CPL 0-2 inside the window (not recorded; a check on the filter).
  u64 kernel_accesses() const { return kernel_accesses_; }
  // Accesses in the stream (records that are not switch markers), those at negative
  // offsets (the ones a segment clipped below the thread pointer faults on), and switches.
  u64 accesses() const { return accesses_; }
  u64 negative_accesses() const { return negative_accesses_; }
  u64 switches() const { return stream_.records.size() - accesses_; }

  void segment_access(const Cpu& cpu, u32 offset, unsigned size, bool write) override;
  void transmit(u8 byte) override;
  std::optional<u8> receive() override { return forward_ ? forward_->receive() : std::nullopt; }
  bool input_open() const override { return forward_ && forward_->input_open(); }
  InputPosition input_position() const override { return forward_ ? forward_->input_position() : InputPosition{}; }
  void resume_input(const InputPosition& position) override {
    if (forward_) forward_->resume_input(position);
  }

 private:
  void open();
  void close();
  u8 thread_of(u32 base);

  TlsWindow window_;
  SerialHost* forward_;
  Machine* machine_ = nullptr;
  TlsStream stream_;
  TlsWindowCounts counts_;
  u64 kernel_accesses_ = 0, accesses_ = 0, negative_accesses_ = 0;
  u64 open_instructions_ = 0, open_cycles_ = 0;
  std::string tail_;               // the last transmitted bytes, for the marker search
  std::vector<u32> thread_bases_;  // GS base of thread n
  int current_thread_ = -1;        // the thread of the last access, -1 before the first
  bool recording_ = false;
};

}  // namespace x86lab
