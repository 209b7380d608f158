// Recording TLS access streams (platform/scenario/tls_recorder.h).
#include "platform/scenario/tls_recorder.h"

#include <algorithm>

#include "platform/input_error.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

bool is_decimal(const std::string& text) {
  return !text.empty() && text.size() <= 19 && text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

TlsWindow parse_tls_window(const std::string& text) {
  const std::string problem = "--record-tls-window '" + text + "' must be BEGIN..END: two serial markers, or two " +
                              "instruction counts FROM..TO with FROM < TO";
  const auto dots = text.find("..");
  if (dots == std::string::npos || text.find('\n') != std::string::npos) throw InputError(problem);
  const std::string first = text.substr(0, dots), second = text.substr(dots + 2);
  if (first.empty() || second.empty()) throw InputError(problem);
  TlsWindow window;
  if (is_decimal(first) && is_decimal(second)) {
    window.from = std::stoull(first);
    window.to = std::stoull(second);
    if (window.from >= window.to) throw InputError(problem);
    return window;
  }
  window.begin = first;
  window.end = second;
  return window;
}

TlsRecorder::TlsRecorder(TlsWindow window, SerialHost* forward) : window_(std::move(window)), forward_(forward) {}

void TlsRecorder::attach(Machine& machine) {
  machine_ = &machine;
  if (!window_.markers()) open();
}

void TlsRecorder::open() {
  if (recording_ || counts_.closed) return;
  recording_ = true;
  counts_.opened = true;
  open_instructions_ = machine_->counters.instructions;
  open_cycles_ = machine_->cpu.clock().cycles();
  machine_->cpu.observe_segment(GS, this);
}

void TlsRecorder::close() {
  if (!recording_) return;
  recording_ = false;
  counts_.closed = true;
  counts_.instructions = machine_->counters.instructions - open_instructions_;
  counts_.cycles = machine_->cpu.clock().cycles() - open_cycles_;
  machine_->cpu.observe_segment(GS, nullptr);
}

void TlsRecorder::finish() { close(); }

u8 TlsRecorder::thread_of(u32 base) {
  const auto known = std::find(thread_bases_.begin(), thread_bases_.end(), base);
  if (known != thread_bases_.end()) return static_cast<u8>(known - thread_bases_.begin());
  if (thread_bases_.size() == 256) return 255;  // the thread byte is full: later bases share the last number
  thread_bases_.push_back(base);
  stream_.threads = static_cast<u32>(thread_bases_.size());  // TlsStream's default is 1 (none seen yet)
  return static_cast<u8>(thread_bases_.size() - 1);
}

void TlsRecorder::segment_access(const Cpu& cpu, u32 offset, unsigned size, bool write) {
  if (cpu.state.cpl != 3) {
    ++kernel_accesses_;
    return;
  }
  if (!window_.markers()) {
    const u64 index = machine_->counters.instructions;
    if (index < window_.from) return;
    if (index >= window_.to) {
      close();
      return;
    }
  }
  const u8 thread = thread_of(cpu.state.segments[GS].cache.base);
  if (thread != current_thread_) {
    current_thread_ = thread;
    stream_.records.push_back(tls_switch(thread));
  }
  ++accesses_;
  if (static_cast<i32>(offset) < 0) ++negative_accesses_;
  stream_.records.push_back(tls_access(static_cast<i32>(offset), static_cast<u8>(size), write, cpu.executing_length(), thread));
}

void TlsRecorder::transmit(u8 byte) {
  if (forward_) forward_->transmit(byte);
  if (!window_.markers() || counts_.closed) return;
  const std::string& marker = recording_ ? window_.end : window_.begin;
  tail_.push_back(static_cast<char>(byte));
  if (tail_.size() > marker.size()) tail_.erase(0, tail_.size() - marker.size());
  if (tail_ != marker) return;
  tail_.clear();
  if (recording_) close();
  else open();
}

}  // namespace x86lab
