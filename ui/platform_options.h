// The PC platform options of `x86lab run`: --kernel/--initrd/--append, --fda/--fdb, --serial,
// --serial-input, --vga-dump, --screendump, --display, --cpu-mhz, --realtime and --rtc-start, and the host
// resources they hold (files, the serial console) for the length of a run.
#pragma once
#include <boost/program_options.hpp>
#include <memory>

#include "platform/machine.h"
#include "platform/replay/input_journal.h"
#include "platform/serial_host.h"
#include "ui/sdl_display.h"
#include "trace/output_file.h"

namespace x86lab {

class PlatformSession {
 public:
  PlatformSession() = default;
  ~PlatformSession();
  PlatformSession(const PlatformSession&) = delete;
  PlatformSession& operator=(const PlatformSession&) = delete;

  // Reads the options into `config` and opens the serial files. Throws InputError.
  void configure(const boost::program_options::variables_map& vm, MachineConfig& config);
  // Connects the console's Ctrl-A x and Ctrl-A c to `machine` (call once the machine exists).
  void connect(Machine& machine);
  // After Machine::run() returned Reason::Paused: when the pause was the console's
  // Ctrl-A s, saves the machine to x86lab-STEPS.snap in the current folder and says so
  // on the console (true); when it was Ctrl-A c, serves the console monitor
  // (ui/gdb/console_monitor.h) and returns true
  // (`quit` there has requested the machine's stop); false for any other pause.
  bool serve_console_monitor();
  // The serial console (after configure()).
  StreamSerialHost& serial() { return *serial_; }
  // The --record/--replay journal (also MachineConfig::inputs), or null.
  InputJournal* journal() { return journal_.get(); }
  // Journals the run's inputs (in memory) also without --record: sets config.inputs and
  // puts COM1's input through the journal. configure() does it under --gdb/--wait-gdb,
  // the inspector always (going back re-executes with the inputs typed). Once configured.
  void journal_inputs(MachineConfig& config);
  // Empties the --serial and --record files (trace/output_file.h) just before the run.
  void start();
  // The --display sdl window, or null (--display none, the default).
  SdlDisplay* display() { return display_.get(); }
  // After the run: writes the --screendump PNG, the --record log, closes it and the --serial file (throws
  // OutputError when one could not be written), flushes a stdout console and prints --vga-dump on stdout.
  void finish(const Machine& machine);

 private:
  std::unique_ptr<StreamSerialHost> serial_;
  std::FILE* output_ = nullptr;                // COM1 output: stdout, the file's stream or null
  std::unique_ptr<OutputFile> output_file_;     // --serial file:PATH
  int input_fd_ = -1;
  bool input_owned_ = false;
  bool vga_dump_ = false;
  std::unique_ptr<OutputFile> screendump_;  // --screendump FILE.png, or null
  std::unique_ptr<SdlDisplay> display_;    // --display sdl
  Machine* machine_ = nullptr;
  bool snapshot_wanted_ = false;  // Ctrl-A s: save at the next pause
  // --record LOG / --replay LOG (platform/replay/input_journal.h; docs/snapshots.md).
  std::unique_ptr<InputJournal> journal_;
  std::unique_ptr<OutputFile> record_file_;
  std::unique_ptr<JournalSerialHost> journal_host_;
  // Reads --replay's log, says on stderr which host inputs it replaces (`vm`) and sets
  // config.rtc_start from it.
  void open_replay(const boost::program_options::variables_map& vm, MachineConfig& config);
};

// The value of option --`option`, a decimal whole number from `low` to `high` (`unit`,
// such as " MiB", follows `high` in the message). Throws InputError "--OPTION needs a
// whole number, not 'TEXT'" or "--OPTION must be between LOW and HIGH UNIT, not TEXT"
// (also for a number beyond 64 bits).
u64 parse_whole(const std::string& option, const std::string& text, u64 low, u64 high, const std::string& unit = "");

// Debian's SeaBIOS and its VGA BIOS (package seabios): the BIOS a run with a boot
// device and no --bios or --kernel uses, and the default of --vga-bios.
inline constexpr const char* kDefaultPcBios = "/usr/share/seabios/bios-256k.bin";
inline constexpr const char* kDefaultVgaBios = "/usr/share/seabios/vgabios-stdvga.bin";
// The default of --vga-bios under the Bochs BIOS (is_bochs_bios): the LGPL VGABIOS of
// package vgabios, the VGA BIOS of Bochs's own machine (Debian's bochs links its
// VGABIOS-lgpl-latest to it; tests/images/emulator_command.sh's Bochs peer loads this
// file). SeaVGABIOS under the Bochs BIOS initialises the DISPI interface and returns
// without setting a video mode (docs/booting.md, "VGA BIOS").
inline constexpr const char* kDefaultBochsVgaBios = "/usr/share/vgabios/vgabios-stdvga.bin";
// The boot device options (--hda..--hdd, --cdrom, --fda, --fdb, added by the disk and
// floppy options) that make a run without --bios or --kernel boot a PC BIOS.
inline constexpr const char* kBootDeviceOptions[] = {"hda", "hdb", "hdc", "hdd", "cdrom", "fda", "fdb"};
// Whether the run boots through a PC BIOS: --bios names one (is_pc_bios), or no
// --bios, --kernel or --load-snapshot is given and a boot device option is (then
// kDefaultPcBios is the BIOS). Reads --bios's file when given (throws InputError).
bool uses_bios_boot(const boost::program_options::variables_map& vm);
// Reads --bios, or kDefaultPcBios when uses_bios_boot() and no --bios, into
// config.bios, and for a PC BIOS --vga-bios into config.vga_bios (the default file,
// kDefaultVgaBios or under the Bochs BIOS kDefaultBochsVgaBios, is skipped when absent; a named file that cannot be read, is empty, above 128 KiB or
// has no 55AAh option ROM signature is an InputError).
void configure_bios(const boost::program_options::variables_map& vm, MachineConfig& config);
// Reads --hda/--hdb/--hdc/--hdd, --cdrom (the secondary master, refused with --hdc),
// --snapshot-disks and --boot into `config`. Throws InputError naming the option.
// The images are opened by the Machine (DiskImage::open gives their errors).
void configure_drives(const boost::program_options::variables_map& vm, MachineConfig& config);

// Adds the options above to `options`.
void add_platform_options(boost::program_options::options_description& options);

}  // namespace x86lab
