// The debugger tests' machine (tests/platform/debugger_test.cpp and
// debugger_slice_test.cpp): a small real-mode program poked into RAM, with its nasm
// listing beside the bytes, from which the tests take their expected EIPs and values.
#pragma once
#include <memory>
#include <span>

#include "platform/debugger/debugger.h"
#include "platform/snapshot/machine_state.h"

namespace x86lab::debugger_test {

// bits 16, org 0x1000 (nasm listing: offset, bytes, source):
inline constexpr u8 kProgram[] = {
    0xB8, 0x01, 0x00,              // 1000 mov ax, 1
    0xE8, 0x30, 0x00,              // 1003 call func (1036)
    0x40,                          // 1006 inc ax
    0xCD, 0x40,                    // 1007 int 0x40 (IVT entry -> handler 103C)
    0xB9, 0x05, 0x00,              // 1009 mov cx, 5
    0xBE, 0x00, 0x30,              // 100C mov si, 0x3000
    0xBF, 0x00, 0x31,              // 100F mov di, 0x3100
    0xF3, 0xA4,                    // 1012 rep movsb
    0xA3, 0x00, 0x20,              // 1014 mov [0x2000], ax
    0x8B, 0x1E, 0x00, 0x20,        // 1017 mov bx, [0x2000]
    0xE6, 0x80,                    // 101B out 0x80, al
    0x87, 0x06, 0x04, 0x20,        // 101D xchg [0x2004], ax
    0xF0, 0xFF, 0x06, 0x06, 0x20,  // 1021 lock inc word [0x2006]
    0xBA, 0x50, 0x00,              // 1026 mov dx, 0x50
    0x8E, 0xDA,                    // 1029 mov ds, dx
    0x31, 0xD2,                    // 102B xor dx, dx
    0x8E, 0xDA,                    // 102D mov ds, dx
    0xB9, 0x04, 0x00,              // 102F mov cx, 4
    0x49,                          // 1032 again: dec cx
    0x75, 0xFD,                    // 1033 jnz again
    0xF4,                          // 1035 hlt
    0x50,                          // 1036 func: push ax
    0xB8, 0x02, 0x00,              // 1037 mov ax, 2
    0x58,                          // 103A pop ax
    0xC3,                          // 103B ret
    0xCF,                          // 103C handler: iret
};

// A machine without BIOS running `program` at 0000:1000 in real mode, SS:SP 0000:8000,
// IVT entry 40h -> 0000:103C.
struct Fixture {
  MachineConfig config;
  std::unique_ptr<Machine> machine;
  std::unique_ptr<Debugger> debugger;

  // `realtime`: MachineConfig::realtime (pacing to wall time).
  explicit Fixture(std::span<const u8> program = kProgram, bool realtime = false) {
    config.debug_console = nullptr;
    config.memory_mib = 1;
    config.realtime = realtime;
    machine = std::make_unique<Machine>(config);
    machine->bus.load(0x1000, program);
    const u8 vector40[] = {0x3C, 0x10, 0x00, 0x00};
    machine->bus.load(0x40 * 4, vector40);
    CpuState& s = machine->cpu.state;
    for (auto& segment : s.segments) {
      segment.selector = 0;
      segment.cache.set_real_mode(0);
    }
    s.eip = 0x1000;
    s.gpr[ESP] = 0x8000;
    debugger = std::make_unique<Debugger>(*machine);
  }
  CpuState& state() { return machine->cpu.state; }
  Breakpoints& breakpoints() { return debugger->breakpoints(); }
};

// Everything a capture holds (registers with descriptor caches, TLB, devices, clock,
// counters) and every RAM byte, as one comparable value.
inline std::vector<u8> everything(Machine& machine) {
  const MachineState s = capture_machine_state(machine);
  std::vector<u8> out;
  for (const std::vector<u8>* section : {&s.machine, &s.cpu, &s.mmu, &s.devices, &s.clock, &s.counters})
    out.insert(out.end(), section->begin(), section->end());
  const std::span<u8> ram = machine.bus.ram();
  out.insert(out.end(), ram.begin(), ram.end());
  return out;
}

}  // namespace x86lab::debugger_test
