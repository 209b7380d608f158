// A PC: owns the counters, the physical and I/O buses, the MMU, the CPU and the
// devices, and runs them (DESIGN.md section 2, platform/).
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu/cpu.h"
#include "platform/bios_cmos.h"
#include "platform/clock.h"
#include "platform/debug_ports.h"
#include "platform/devices/apic/local_apic.h"
#include "platform/loaders/kernel_loader.h"
#include "platform/pc_devices.h"
#include "platform/devices/port92.h"
#include "trace/cost_model.h"
#include "trace/tracer.h"

namespace x86lab {

// The largest guest RAM in MiB: 3.5 GiB below the ROM, MMIO and APIC space.
inline constexpr u32 kMaxMemoryMib = 3584;

class InputJournal;

struct MachineConfig {
  u32 memory_mib = 64;                       // RAM size in MiB (1 to kMaxMemoryMib)
  std::vector<u8> bios;                      // ROM image, mapped at the top of 4 GiB; empty for none
  // When `bios` is a PC BIOS (is_pc_bios(), platform/rom_image.h: SeaBIOS, the Bochs
  // BIOS; docs/booting.md "BIOS and chipset"):
  // its top 128 KiB appears at E0000h-FFFFFh behind the i440FX's PAM registers (reads
  // and writes go to the ROM until the BIOS opens its shadow RAM), the CMOS holds
  // `cmos` (ram_bytes and fpu filled in by the machine), and `vga_bios`, if not empty
  // (at most 128 KiB), is an ISA option ROM at C0000h behind the PAM registers.
  // Otherwise (the project's ROMs, --kernel) the memory below 1 MiB outside the ROM's
  // alias is read/write RAM, as firmware that opened its shadow RAM leaves it.
  std::vector<u8> vga_bios;
  BiosCmosConfig cmos;
  std::FILE* debug_console = nullptr;        // port E9h output, or null
  bool post = false;                         // print port 80h writes
  // Called before each byte of port E9h (with the byte) and each POST line (with
  // '\n', its last byte) is written: the progress line of `x86lab run` erases itself.
  // May be empty.
  std::function<void(u8)> before_console_output;
  u64 max_instructions = UINT64_MAX;         // stop after this many steps (instructions and deliveries)
  // HLT with IF = 0 ends the run with status 0 even with an NMI source (has_nmi_source_);
  // without one, and none exists yet, it ends the run anyway (--exit-on-halt, README).
  bool exit_on_halt = false;
  bool reset_on_triple_fault = false;        // a triple fault resets the CPU instead of ending the run
  const CpuProfile* profile = &default_profile();
  CostModel cost_model = builtin_cost_model("p3");  // cycle costs (trace/profiles/*.cost or --profile FILE)
  // The L1 cache model of cost_model (Cpu::set_cache_model; --cache-model, off for
  // run/gui/gdb and on for compare; docs/cost-model.md "Cache model").
  bool cache_model = false;
  u64 cpu_hz = 500'000'000;                  // modeled CPU frequency: device time = cycles / cpu_hz, Perfetto timestamps too
  bool realtime = false;                     // pace the virtual clock to wall time (never reorders events)
  i64 rtc_start = Mc146818::kDefaultStart;   // RTC calendar time at cycle 0, seconds since 1970 UTC
  SerialHost* com1_host = nullptr;           // host side of COM1, or null
  // --serial-irq: how the UARTs' INTR reaches IRQ 4 and 3 (Uart16550::IrqGate; Out2 as on
  // a PC's serial adapter, Direct as QEMU's PC, which xv6 needs).
  Uart16550::IrqGate serial_irq_gate = Uart16550::IrqGate::Out2;
  // --record/--replay (platform/replay/input_journal.h), or null: the machine gives it its
  // clock, delivers its recorded keys to the 8042 at their steps, and snapshots save its
  // cursor. COM1's input goes through it when com1_host is a JournalSerialHost.
  InputJournal* inputs = nullptr;
  KernelBootRequest kernel;                  // --kernel/--initrd/--append; empty kernel_path: none
  // The IDE drives (docs/booting.md "Disks and CD-ROMs"): hda (primary master), hdb
  // (primary slave), hdc (secondary master), hdd (secondary slave). An empty path is
  // no drive; `cdrom` makes the drive an ATAPI CD-ROM (the image is ISO 9660).
  struct Drive {
    std::string path;
    bool cdrom = false;
    std::string option;  // the option that named it ("--hda", "--cdrom"), for messages
  };
  std::array<Drive, 4> drives{};
  bool snapshot_disks = false;  // --snapshot-disks: guest writes go to a discarded overlay
  // --boot: the BIOS's boot order as QEMU spells it (a floppy, c first disk, d CD-ROM),
  // e.g. "cd"; empty for the BIOS's default. For the CMOS boot-order bytes.
  std::string boot_order;
  // --fda/--fdb: raw floppy images for drives A: and B: of the 82077AA (empty: no
  // drive), opened by the Machine with DiskImage::open, and the drives' CMOS types for
  // byte 10h (Fdc82077::cmos_drive_type: 0 none, 3 720 KiB, 4 1.44 MB, 5 2.88 MB), set
  // with the paths by the options (ui/platform_options.cpp).
  std::string floppy_paths[2];
  u8 floppy_types[2] = {};
};

// How a run ended, and the process exit status it maps to (README "Exit status").
struct RunResult {
  // Paused: run_for() used its steps or request_pause() was called (exit status 0; the
  // machine can run on).
  // Interrupted: SIGINT or SIGTERM (Machine::interrupt_from_signal); status 128 + signal.
  // TraceEnd: the tracer's instruction window is over and it ends the run (--trace-stop
  // window; exit status 0).
  enum class Reason { ExitPort, Halted, HaltedForever, InstructionLimit, Shutdown, Stopped, Paused, Interrupted, TraceEnd } reason;
  int exit_status;
};

// A few words for how a run ended ("instruction limit reached"), for messages.
inline const char* describe_run_end(RunResult::Reason reason) {
  switch (reason) {
    case RunResult::Reason::ExitPort: return "exit port";
    case RunResult::Reason::Halted: return "halted";
    case RunResult::Reason::HaltedForever: return "halted with no interrupt that could wake the CPU";
    case RunResult::Reason::InstructionLimit: return "instruction limit reached";
    case RunResult::Reason::Shutdown: return "shutdown (triple fault)";
    case RunResult::Reason::Stopped: return "stopped on request (Ctrl-A x on the serial console, or gdb's kill)";
    case RunResult::Reason::Paused: return "paused";
    case RunResult::Reason::Interrupted: return "interrupted by a signal (Ctrl-C or SIGTERM)";
    case RunResult::Reason::TraceEnd: return "end of the trace window (--trace-stop window)";
  }
  return "?";
}

class Machine {
 public:
  explicit Machine(const MachineConfig& config);

  // Runs from the current state until one of RunResult's reasons. Like run_for,
  // MachineConfig::max_instructions counts the steps since the machine was built or
  // reset, those before a loaded snapshot included (Cpu::steps; docs/snapshots.md).
  RunResult run();
  // Runs as run() does but at most `max_steps` steps (instructions and deliveries),
  // then returns Reason::Paused. The debugger (platform/debugger) runs in such slices.
  RunResult run_for(u64 max_steps);
  // Ends run()/run_for() at the next instruction boundary with Reason::Paused. Only
  // from the thread that runs the machine (the debugger's hooks); see Debugger::pause.
  void request_pause() {
    pause_requested_ = true;
    cpu.stop();
  }
  // Ends run() at the next instruction boundary with RunResult::Reason::Stopped
  // (the serial console's Ctrl-A x).
  void request_stop() {
    stop_requested_ = true;
    cpu.stop();
  }
  // From a signal handler (async-signal-safe): ends run()/run_for() at the next
  // instruction boundary with Reason::Interrupted and exit status 128 + `signal`, so
  // the caller can close its outputs whole (trace/output_file.h).
  void interrupt_from_signal(int signal) {
    interrupted_by_ = signal;
    cpu.stop_from_signal();
  }
  // The signal interrupt_from_signal received, or 0: for a caller that waits outside
  // run() (the gdb stub paused for gdb) and must end the same way.
  int interrupted_by() const { return interrupted_by_; }
  // With MachineConfig::realtime, the wait for wall time to catch up with the virtual
  // clock (a halted guest can be seconds ahead) is made of sleeps of at most
  // kPaceSleepLimit, and ends as soon as `*flag` is true: run()/run_for() then return
  // Reason::Paused before the next instruction. The debugger sets its pause request
  // here, so gdb's Ctrl-C stops a paced, halted guest within about that time; null
  // (the default) for none. `flag` is only read, from the thread that runs the machine.
  void set_pace_interrupt(const std::atomic<bool>* flag) { pace_interrupt_ = flag; }
  // Sets `*flag` (the pace interrupt set_pace_interrupt gave) and ends the CPU's run at
  // the next instruction boundary (or REP batch): run()/run_for() return Reason::Paused
  // there. From any thread or a signal handler (atomic stores and a fence).
  static void pause_from_any_thread(std::atomic<bool>& flag, Cpu& cpu) {
    flag.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    cpu.stop_from_signal();
  }
  static constexpr std::chrono::milliseconds kPaceSleepLimit{5};

  // Attaches a tracer for the rest of the run (events go to its sinks); the machine
  // owns it, start_tracing() empties the sinks' files (call it once the inputs are
  // checked) and finish_tracing() flushes and closes them (throws OutputError for a
  // file that could not be written; the tracer is gone either way).
  // The CPU sees the tracer only while the run is inside its instruction window
  // (Tracer::window_begin/window_end, from --trace-filter window=FROM-TO): before
  // instruction FROM it runs untraced, at full speed, and it lets the tracer go once
  // instruction TO has begun (TO's own events are outside the window; those of the
  // deliveries between TO - 1 and TO are inside). The events are those of a run traced
  // throughout with the same filter (tests/trace/trace_window.cmake).
  void attach_tracer(std::unique_ptr<Tracer> tracer);
  void start_tracing() {
    if (tracer_) tracer_->start();
  }
  void finish_tracing();

  // Resets the processor: the CPU (Cpu::reset) and its local APIC (LocalApic::reset:
  // IA32_APIC_BASE FEE00900h, the register page back at FEE00000h, every register at
  // its reset value), RAM and the other devices (8259A pair, I/O APIC, ...) keeping
  // their state. The one path for port 92h's fast reset, the 8042's reset line,
  // reset_on_triple_fault and the debugger's reset.
  // DEVIATION: a PC chipset (PIIX4 data sheet, "INIT") signals these resets on the
  // processor's INIT# pin, whose APIC reset keeps the APIC ID (SDM "Local APIC State
  // After an INIT Reset"); x86lab's CPU reset is a RESET, so the ID register goes back
  // to its power-up value too, as QEMU's system reset does.
  void reset_cpu();

  const MachineConfig& config() const { return config_; }
  // Whether the machine runs a PC BIOS (MachineConfig::bios, is_pc_bios()).
  bool pc_bios() const { return pc_bios_; }
  // Saves, checks or loads what the Machine itself holds (a snapshot,
  // platform/snapshot/machine_state.h): port 92h, the A20 gate's inputs, the count of
  // triple-fault resets, the local APIC.
  void transfer_state(StateArchive& archive);
  // How many times a triple fault reset the CPU (with reset_on_triple_fault).
  u64 triple_fault_resets() const { return triple_fault_resets_; }
  Counters counters;
  PhysicalBus bus;
  PortBus ports;
  Mmu mmu;
  Cpu cpu;
  VirtualClock clock;
  // The drives' images (MachineConfig::drives; null where none), opened before the
  // devices and closed after them.
  std::array<std::unique_ptr<DiskImage>, 4> disks;
  // The --fda/--fdb images (null: no drive); declared before the devices that use them.
  std::unique_ptr<DiskImage> floppies[2];
  std::unique_ptr<PcDevices> devices;
  // The CPU's local APIC (one per CPU: with several, a vector beside theirs): on the
  // APIC bus, its page at IA32_APIC_BASE, the CPU's interrupt controller with the
  // 8259A pair on its LINT0.
  std::unique_ptr<LocalApic> local_apic;

 private:
  MachineConfig config_;
  DebugPorts debug_ports_;
  bool pc_bios_ = false;
  u64 triple_fault_resets_ = 0;  // CPU resets after a shutdown (reset_on_triple_fault)
  Port92 port92_;  // A20 gate and fast reset
  std::unique_ptr<Tracer> tracer_;
  bool tracer_live_ = false;  // the CPU has tracer_ (attach_tracer: inside its window)
  // Attaches or detaches tracer_ at the CPU for instruction count counters.instructions;
  // returns how many steps the CPU may take before that must be decided again.
  u64 steer_tracer();
  bool has_nmi_source_ = false;  // no device of this machine raises NMI yet
  bool stop_requested_ = false;
  bool pause_requested_ = false;
  const std::atomic<bool>* pace_interrupt_ = nullptr;  // set_pace_interrupt
  volatile std::sig_atomic_t interrupted_by_ = 0;      // the signal of interrupt_from_signal, or 0
  RunResult run_steps(u64 first_step, u64 max_steps);
  // The memory below 1 MiB: PAM registers, the VGA option ROM and the CMOS for a PC
  // BIOS, or open shadow RAM otherwise (MachineConfig::pc_bios).
  void set_up_legacy_memory();
  // Sleeps until wall time since `start` catches up with the virtual clock (--realtime);
  // false, at once, when the pace interrupt is set (then or during the wait).
  bool pace(std::chrono::steady_clock::time_point start) const;
  // Whether the pace interrupt is set (pause_from_any_thread).
  bool pace_interrupted() const;
  // Gives the 8042 the recorded keys due now (config_.inputs). Returns the steps the CPU
  // may run before the next recorded key (UINT64_MAX: no bound; 0: the key is due at this
  // step at a later cycle, which only a halted CPU reaches). Throws InputError when the
  // replay diverged.
  u64 deliver_inputs();
};

}  // namespace x86lab
