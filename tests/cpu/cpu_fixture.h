// A CPU on 1 MiB of RAM for unit tests, with helpers to place code and run it.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>

#include "../mmu/bus_words.h"
#include "cpu/cpu.h"

namespace x86lab::testing {

// An interrupt controller with one request line (an 8259A in its simplest use):
// `raised` stays set until the CPU acknowledges it, with `vector`.
struct OneShotInterrupt : InterruptController {
  explicit OneShotInterrupt(u8 vector_number = 0x50) : vector(vector_number) {}
  bool raised = false;
  u8 vector;
  bool interrupt_pending() const override { return raised; }
  u8 acknowledge() override {
    raised = false;
    return vector;
  }
};

struct CpuFixture {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, default_profile()};

  // Real mode, CS = DS = ES = SS = 0, code at 0x1000, SP = 0x8000.
  void real_mode_at(u32 eip = 0x1000) {
    for (auto& s : cpu.state.segments) {
      s.selector = 0;
      s.cache.set_real_mode(0);
    }
    cpu.state.eip = eip;
    cpu.state.gpr[ESP] = 0x8000;
  }
  void code(u32 address, std::initializer_list<u8> bytes) {
    for (u8 b : bytes) bus.poke(address++, b);
  }
  void poke32(u32 address, u32 value) { testing::poke32(bus, address, value); }
  u32 peek32(u32 address) const { return testing::peek32(bus, address); }
  void steps(unsigned n) {
    for (unsigned i = 0; i < n; ++i) cpu.step();
  }
};

}  // namespace x86lab::testing
