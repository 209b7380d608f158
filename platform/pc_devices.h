// The PC/AT devices of a Machine and their wiring (DESIGN.md section 1, "Target
// machine"): 8259A pair, 8254 with port 61h, MC146818 RTC/CMOS, COM1 and COM2
// 16550As, the 8042 keyboard controller and the VGA text buffer, on the PC's I/O
// ports and IRQ lines. Port 92h and the debug ports are attached by the Machine.
#pragma once
#include <functional>

#include "cpu/cpu.h"
#include "platform/clock.h"
#include "platform/devices/apic/apic_bus.h"
#include "platform/devices/fpu_error.h"
#include "platform/devices/i8042.h"
#include "platform/devices/pic.h"
#include "platform/devices/pit.h"
#include "platform/devices/port61.h"
#include "platform/devices/rtc.h"
#include "platform/devices/uart.h"
#include "platform/devices/vga_text.h"

namespace x86lab {

struct PcDevicesConfig {
  i64 rtc_start = Mc146818::kDefaultStart;  // calendar seconds at cycle 0
  SerialHost* com1_host = nullptr;          // host side of COM1 (null: output dropped)
  std::function<void()> reset_cpu;          // the 8042's CPU reset line
};

class PcDevices {
 public:
  PcDevices(VirtualClock& clock, Cpu& cpu, PhysicalBus& bus, PortBus& ports, const PcDevicesConfig& config);
  // Saves, checks or loads every device's state, in the order of the members.
  void transfer_state(StateArchive& archive);

  // The APIC bus: the machine attaches each CPU's local APIC, the I/O APIC attaches itself.
  ApicBus apic_bus;
  PicPair pic;
  Pit8254 pit;
  SystemControlPortB port61;
  Mc146818 rtc;
  Uart16550 com1, com2;
  I8042 keyboard_controller;
  VgaText vga;
  FpuErrorLatch fpu_error;  // FERR# -> IRQ 13, port F0h -> IGNNE#
};

}  // namespace x86lab
