// Machine assembly and the top-level run loop.
#include "platform/machine.h"

#include <thread>

#include "platform/input_error.h"
#include "platform/loaders/boot_tables.h"
#include "platform/replay/input_journal.h"
#include "platform/rom_image.h"

namespace x86lab {

namespace {
u32 ram_bytes(u32 mib) {
  if (mib < 1 || mib > kMaxMemoryMib)
    throw InputError("--memory must be between 1 and " + std::to_string(kMaxMemoryMib) + " MiB, not " + std::to_string(mib));
  return mib * 1024u * 1024u;
}
}  // namespace

Machine::Machine(const MachineConfig& config)
    : bus(ram_bytes(config.memory_mib), counters),
      ports(counters),
      mmu(bus),
      cpu(mmu, ports, counters, *config.profile),
      clock(cpu.clock(), config.cpu_hz),
      config_(config),
      debug_ports_(config.debug_console, config.post, cpu, config.before_console_output),
      pc_bios_(is_pc_bios(config.bios)),
      port92_(bus, [this] { reset_cpu(); }) {
  cpu.set_cost_model(config.cost_model);
  cpu.set_cache_model(config.cache_model);
  if (!config.bios.empty()) map_bios(bus, config.bios);
  ports.attach(0x80, 0x80, &debug_ports_);
  ports.attach(0xE9, 0xE9, &debug_ports_);
  ports.attach(DebugPorts::kSeaBiosDebugPort, DebugPorts::kSeaBiosDebugPort, &debug_ports_);
  ports.attach(0xF4, 0xF4, &debug_ports_);
  ports.attach(0x92, 0x92, &port92_);
  AtaController::Drives drives{};
  for (unsigned i = 0; i < disks.size(); ++i) {
    const MachineConfig::Drive& drive = config.drives[i];
    if (drive.path.empty()) continue;
    const std::string option = drive.option.empty() ? std::string("--hd") + static_cast<char>('a' + i) : drive.option;
    disks[i] = DiskImage::open(option, drive.path, drive.cdrom ? DiskImage::Medium::Cdrom : DiskImage::Medium::HardDisk,
                               config.snapshot_disks);
    drives[i] = disks[i].get();
  }
  PcDevicesConfig device_config;
  device_config.rtc_start = config.rtc_start;
  device_config.com1_host = config.com1_host;
  device_config.serial_irq_gate = config.serial_irq_gate;
  device_config.reset_cpu = [this] { reset_cpu(); };
  device_config.drives = drives;
  // The VGA BIOS is an ISA option ROM at C0000h (set_up_legacy_memory) and, except under
  // the Bochs BIOS (is_bochs_bios says why), also the VGA function's expansion ROM.
  if (!is_bochs_bios(config.bios)) device_config.vga_bios = config.vga_bios;
  for (unsigned drive = 0; drive < 2; ++drive) {
    if (config.floppy_paths[drive].empty()) continue;
    floppies[drive] = DiskImage::open(drive == 0 ? "--fda" : "--fdb", config.floppy_paths[drive],
                                      DiskImage::Medium::Floppy, config.snapshot_disks);
    device_config.floppies[drive] = floppies[drive].get();
  }
  devices = std::make_unique<PcDevices>(clock, cpu, bus, ports, device_config);
  set_up_legacy_memory();
  local_apic = std::make_unique<LocalApic>(cpu, bus, devices->apic_bus, clock, devices->pic,
                                           LocalApicConfig{.apic_id = 0, .bsp = true, .bus_hz = config.profile->bus_hz,
                                                           .lint0_ext_int_at_reset = pc_bios_,
                                                           .xapic_version = pc_bios_ && !is_bochs_bios(config.bios)});
  cpu.set_interrupt_controller(local_apic.get());
  cpu.set_apic_base_register(local_apic.get());
  // A device arming an event earlier than the CPU's current slice end shortens the slice.
  clock.set_deadline_listener([this](u64 deadline) { cpu.set_cycle_limit(deadline); });
  if (config.inputs) config.inputs->set_clock({[this] { return clock.now(); }, [this] { return cpu.steps(); }});
  if (!config.kernel.kernel_path.empty()) {
    if (!config.bios.empty()) throw InputError("--kernel and --bios cannot be used together");
    boot_kernel(cpu, bus, config.kernel);
    // As a BIOS does: the I/O APIC's ID register holds the ID the MP and ACPI tables
    // give it (it resets to 0).
    devices->io_apic.write_register(IoApic::kIoApicId, u32{boot_tables::kIoApicId} << 24);
    // ... and DMA channel 4 in cascade mode, unmasked, so that channels 0-3 work.
    devices->dma.set_bios_state();
  }
}

void Machine::set_up_legacy_memory() {
  if (!pc_bios_) {
    const u32 alias = config_.bios.empty() ? 0 : static_cast<u32>(std::min<std::size_t>(config_.bios.size(), 0x20000));
    devices->host_bridge.open_shadow_below(0x100000 - alias);
    return;
  }
  if (!config_.vga_bios.empty()) {
    if (config_.vga_bios.size() > 0x20000) throw InputError("the VGA BIOS must be at most 128 KiB");
    std::vector<u8> image = config_.vga_bios;
    image.resize((image.size() + PhysicalBus::kPageBytes - 1) / PhysicalBus::kPageBytes * PhysicalBus::kPageBytes, 0xFF);
    bus.map_rom(0xC0000, image);
  }
  BiosCmosConfig cmos = config_.cmos;
  cmos.ram_bytes = bus.ram_bytes();
  cmos.fpu = config_.profile->features_edx & cpuid_edx::FPU;
  // The drives the options gave: the boot order (--boot, else QEMU's default "cad":
  // hard disk, floppy, CD-ROM), the primary channel's disk geometries as the ATA disks
  // report them in IDENTIFY, the floppy drive types.
  cmos.boot_order = config_.boot_order.empty() ? std::string("cad") : config_.boot_order;
  for (unsigned i = 0; i < 2; ++i) {
    if (disks[i] && disks[i]->medium() == DiskImage::Medium::HardDisk) {
      const AtaGeometry geometry = default_geometry(disks[i]->sectors());
      cmos.disks[i] = {geometry.cylinders, static_cast<u8>(geometry.heads), static_cast<u8>(geometry.sectors)};
    }
    cmos.floppies[i] = static_cast<FloppyType>(config_.floppy_types[i]);
  }
  write_bios_cmos(devices->rtc, cmos);
}

// SDM "Local APIC State After Power-Up or Reset": the reset that restarts the CPU
// restarts its local APIC. The I/O APIC and the other devices keep their state: the
// platform's RESET# (power-up) resets them, not the processor's reset line.
void Machine::reset_cpu() {
  cpu.reset();
  local_apic->reset();
}

void Machine::attach_tracer(std::unique_ptr<Tracer> tracer) {
  tracer_ = std::move(tracer);
  tracer_live_ = false;
  steer_tracer();
}

// A step retires at most one instruction (a REP instruction counts once, when its last
// batch ends), so a CPU given `first - done` steps stops at or before instruction
// `first`.
u64 Machine::steer_tracer() {
  // Another tracer at the CPU (the debugger's own, for its tap) is left alone.
  if (cpu.tracer() != (tracer_live_ ? tracer_.get() : nullptr)) return UINT64_MAX;
  const u64 done = counters.instructions;  // the index of the next instruction
  const u64 first = tracer_->window_begin(), end = tracer_->window_end();
  const bool inside = done >= first && (end == UINT64_MAX || done <= end);
  if (inside != tracer_live_) {
    tracer_live_ = inside;
    cpu.set_tracer(inside ? tracer_.get() : nullptr);
  }
  if (done < first) return first - done;
  if (inside && end != UINT64_MAX) return end + 1 - done;
  return UINT64_MAX;
}

void Machine::finish_tracing() {
  if (!tracer_) return;
  tracer_live_ = false;
  cpu.set_tracer(nullptr);
  const std::unique_ptr<Tracer> tracer = std::move(tracer_);
  tracer->finish();  // may throw OutputError, with the machine already detached
}

// The fence orders set_cycle_limit's clearing of the signal stop before the load of
// the flag, as pause_from_any_thread's fence orders the flag's store before the stop,
// so that one of the two sees the other's write.
bool Machine::pace_interrupted() const {
  if (!pace_interrupt_) return false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return pace_interrupt_->load(std::memory_order_relaxed);
}

bool Machine::pace(std::chrono::steady_clock::time_point start) const {
  const auto wake = start + std::chrono::nanoseconds(clock.ns_at(clock.now()));
  for (;;) {
    if ((pace_interrupt_ && pace_interrupt_->load(std::memory_order_relaxed)) || interrupted_by_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= wake) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(wake - now, kPaceSleepLimit));
  }
}

// The run loop: device events due now, then the CPU until the next event (its cycle
// limit), a halt, or a stop. HLT with IF = 1 moves the clock to the next event.
RunResult Machine::run() { return run_steps(0, UINT64_MAX); }

RunResult Machine::run_for(u64 max_steps) { return run_steps(0, max_steps); }

// `first_step`: the step count max_instructions counts from.
RunResult Machine::run_steps(u64 first_step, u64 max_steps) {
  const u64 slice_start = cpu.steps();
  // Wall time at virtual time 0, so that pacing survives runs in slices.
  const auto wall_start = std::chrono::steady_clock::now() - std::chrono::nanoseconds(clock.ns_at(clock.now()));
  const auto interrupted = [this] { return RunResult{RunResult::Reason::Interrupted, 128 + interrupted_by_}; };
  for (;;) {
    if (interrupted_by_) return interrupted();
    // (A machine restored from a snapshot saved after the exit port was written.)
    if (auto status = debug_ports_.exit_status()) return {RunResult::Reason::ExitPort, *status};
    clock.run_due();
    const u64 input_bound = config_.inputs ? deliver_inputs() : UINT64_MAX;
    if (config_.realtime && !pace(wall_start)) return interrupted_by_ ? interrupted() : RunResult{RunResult::Reason::Paused, 0};
    const u64 taken = cpu.steps() - first_step;
    if (taken >= config_.max_instructions) return {RunResult::Reason::InstructionLimit, 1};
    const u64 in_slice = cpu.steps() - slice_start;
    if (in_slice >= max_steps) return {RunResult::Reason::Paused, 0};
    cpu.set_cycle_limit(clock.next_deadline());
    if (interrupted_by_) return interrupted();  // (a signal just before the limit was set)
    if (pace_interrupted()) return {RunResult::Reason::Paused, 0};  // (asked for before the limit was set)
    const u64 trace_bound = tracer_ ? steer_tracer() : UINT64_MAX;
    if (tracer_ && tracer_->ends_run() && counters.instructions > tracer_->window_end())
      return {RunResult::Reason::TraceEnd, 0};
    const u64 count = std::min({config_.max_instructions - taken, max_steps - in_slice, trace_bound});
    const bool trace_bounded = trace_bound < std::min(config_.max_instructions - taken, max_steps - in_slice);
    const u64 steps_before = cpu.steps();
    // A recorded key due at this step at a later cycle: the halted CPU waits for it.
    const StopReason reason = input_bound == 0 ? StopReason::Halted : cpu.run(std::min(count, input_bound));
    if (interrupted_by_) return interrupted();
    if (auto status = debug_ports_.exit_status()) return {RunResult::Reason::ExitPort, *status};
    if (stop_requested_) return {RunResult::Reason::Stopped, 1};
    if (pause_requested_) {
      pause_requested_ = false;
      return {RunResult::Reason::Paused, 0};
    }
    switch (reason) {
      case StopReason::Shutdown:
        // A PC chipset answers the shutdown cycle by resetting the CPU; by option
        // x86lab does the same (RAM and devices keep their state).
        if (!config_.reset_on_triple_fault) return {RunResult::Reason::Shutdown, 1};
        ++triple_fault_resets_;
        reset_cpu();
        break;
      case StopReason::Halted: {
        // HLT with IF = 0 can only be left by NMI or reset, and no device raises NMI:
        // the run ends with status 0 (with or without --exit-on-halt, which forces it).
        if (!cpu.flag_set(flag::IF) && (config_.exit_on_halt || !has_nmi_source_)) return {RunResult::Reason::Halted, 0};
        // HLT with IF = 1 waits for the next device event; with none armed, or every
        // IRQ masked at the master PIC while the local APIC is not in use (with it,
        // the I/O APIC and its own timer can still interrupt), it would wait forever:
        // status 1.
        const u64 next = clock.next_deadline();
        if (next == VirtualClock::kNever || (devices->pic.master().imr() == 0xFF && !local_apic->may_interrupt()))
          return {RunResult::Reason::HaltedForever, 1};
        clock.advance_to(next);
        break;
      }
      case StopReason::InstructionLimit:
        if (cpu.steps() - first_step >= config_.max_instructions) return {RunResult::Reason::InstructionLimit, 1};
        if (input_bound < count && cpu.steps() - taken - first_step == input_bound) break;  // at a recorded key's step
        if (trace_bounded && cpu.steps() - steps_before == count) break;  // at the tracer's window edge
        return {RunResult::Reason::Paused, 0};  // max_steps
      case StopReason::StopRequested: break;
      case StopReason::CycleLimit:
        if (pace_interrupted()) return {RunResult::Reason::Paused, 0};  // Machine::pause_from_any_thread
        break;
    }
  }
}

u64 Machine::deliver_inputs() {
  InputJournal& inputs = *config_.inputs;
  inputs.deliver_keys([this](const InputLog::Key& key) { devices->keyboard_controller.key(key.set1, key.extended, key.released); });
  const InputLog::Key* next = inputs.next_key();
  if (!next) return UINT64_MAX;
  if (next->at.step > cpu.steps()) return next->at.step - cpu.steps();
  if (!cpu.state.halted)
    throw InputError("the replay diverged: key " + std::to_string(inputs.cursor().keys + 1) + " was typed at step " +
                     std::to_string(next->at.step) + " at a cycle this run does not reach (another guest or other options?)");
  return 0;
}

void Machine::transfer_state(StateArchive& a) {
  port92_.transfer_state(a);
  u8 a20_inputs = bus.a20_inputs();
  a.local(a20_inputs, "A20 inputs", 3);
  a.field(triple_fault_resets_, "triple-fault resets");
  debug_ports_.transfer_state(a);
  local_apic->transfer_state(a);
  bus.transfer_code_marks(a);
  if (!a.loading()) return;
  bus.set_a20(A20Source::KeyboardController, a20_inputs & 1);
  bus.set_a20(A20Source::Port92, a20_inputs & 2);
}

}  // namespace x86lab
