// A CPU on 1 MiB of RAM for unit tests, with helpers to place code and run it.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>

#include "cpu/cpu.h"

namespace x86lab::testing {

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
  void steps(unsigned n) {
    for (unsigned i = 0; i < n; ++i) cpu.step();
  }
};

}  // namespace x86lab::testing
