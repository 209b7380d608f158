// Parsing of the platform options and the serial console's host files.
#include "ui/platform_options.h"

#include "ui/gdb/screendump.h"

#include "ui/gdb/console_monitor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "platform/devices/fdc82077.h"
#include "platform/input_error.h"
#include "platform/rom_image.h"

namespace po = boost::program_options;

namespace x86lab {

u64 parse_whole(const std::string& option, const std::string& text, u64 low, u64 high, const std::string& unit) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("--" + option + " needs a whole number, not '" + text + "'");
  bool beyond_64_bits = false;
  u64 value = 0;
  try {
    value = std::stoull(text);
  } catch (const std::out_of_range&) {
    beyond_64_bits = true;
  }
  if (beyond_64_bits || value < low || value > high)
    throw InputError("--" + option + " must be between " + std::to_string(low) + " and " + std::to_string(high) + unit +
                     ", not " + text);
  return value;
}

bool uses_bios_boot(const po::variables_map& vm) {
  if (vm.count("bios")) return is_pc_bios(read_rom_image(vm["bios"].as<std::string>()));
  if (vm.count("kernel") || vm.count("load-snapshot")) return false;
  for (const char* option : kBootDeviceOptions)
    if (vm.count(option)) return true;
  return false;
}

void configure_bios(const po::variables_map& vm, MachineConfig& config) {
  if (vm.count("bios")) config.bios = read_rom_image(vm["bios"].as<std::string>());
  else if (uses_bios_boot(vm)) config.bios = read_rom_image(kDefaultPcBios);
  if (!is_pc_bios(config.bios)) return;
  const bool named = vm.count("vga-bios") && !vm["vga-bios"].defaulted();
  const std::string vga = named                          ? vm["vga-bios"].as<std::string>()
                          : is_bochs_bios(config.bios) ? kDefaultBochsVgaBios
                                                       : kDefaultVgaBios;
  if (vga == "none") return;
  if (!named && access(vga.c_str(), R_OK) != 0) return;  // package seabios or vgabios absent: no VGA BIOS
  std::vector<u8> image = read_input_bytes(vga, "VGA BIOS", {0x20000, "at most 128 KiB is supported"});
  if (image.size() < 3 || image[0] != 0x55 || image[1] != 0xAA)
    throw InputError("VGA BIOS '" + vga + "' has no option ROM signature (55h AAh)");
  config.vga_bios = std::move(image);
}

void add_platform_options(po::options_description& options) {
  options.add_options()
      ("vga-bios", po::value<std::string>()->default_value(kDefaultVgaBios)->value_name("FILE|none"),
       "with a PC BIOS (SeaBIOS, the Bochs BIOS): the VGA BIOS mapped as an ISA option ROM at C0000h (under the "
       "Bochs BIOS the default is /usr/share/vgabios/vgabios-stdvga.bin, Bochs's LGPL VGABIOS)")
      ("kernel", po::value<std::string>()->value_name("FILE"),
       "boot a Linux bzImage (32-bit boot protocol) or a Multiboot 1 ELF kernel directly, without a BIOS")
      ("initrd", po::value<std::string>()->value_name("FILE"), "initial ramdisk for --kernel (a module for Multiboot)")
      ("append", po::value<std::string>()->value_name("TEXT"), "kernel command line for --kernel")
      ("fda", po::value<std::string>()->value_name("FILE"),
       "floppy image for drive A: (raw, 720 KiB, 1.44 MB or 2.88 MB; the 82077AA at 3F0h, IRQ 6, DMA 2)")
      ("fdb", po::value<std::string>()->value_name("FILE"), "floppy image for drive B: (as --fda)")
      ("serial", po::value<std::string>()->default_value("stdio")->value_name("stdio|file:PATH|none"),
       "COM1: stdio also reads standard input (a terminal in raw mode: Ctrl-A x quits)")
      ("serial-input", po::value<std::string>()->value_name("FILE"),
       "bytes received on COM1, fed at the line's baud rate (instead of standard input)")
      ("serial-expect", po::value<std::string>()->value_name("TEXT"),
       "hold each line of COM1's input until the guest prints TEXT (its prompt, e.g. '# '): "
       "the first line after the first TEXT, each next line after the next")
      ("serial-irq", po::value<std::string>()->default_value("auto")->value_name("auto|out2|direct"),
       "how the UARTs' interrupt output reaches IRQ 4 (COM1) and 3 (COM2): out2, gated by MCR bit 3 as on "
       "a PC's serial port; direct, whatever OUT2, as QEMU's PC (xv6 needs it: it leaves OUT2 clear); "
       "auto: direct when booting through a PC BIOS (the images QEMU users bring), else out2")
      ("vga-dump", "print the 80x25 VGA text screen on stdout at exit")
      ("screendump", po::value<std::string>()->value_name("FILE.png"),
       "write the VGA's screen (whatever mode is set) to FILE.png at exit")
      ("display", po::value<std::string>()->default_value("none")->value_name("none|sdl"),
       "sdl: show the VGA's screen in a plain SDL window while the guest runs")
      ("cpu-mhz", po::value<std::string>()->value_name("N"),
       "modeled CPU frequency in MHz: device time is cycles / frequency (1 to 100000; default: the "
       "profile's cpu-mhz, 500 for p3)")
      ("realtime", "pace the virtual clock to wall time (interactive use; never changes the order of events)")
      ("rtc-start", po::value<std::string>()->default_value("fixed")->value_name("fixed|host|SECONDS"),
       "RTC time at power-on: 2024-01-01 00:00:00 UTC, the host clock, or seconds since 1970")
      ("record", po::value<std::string>()->value_name("LOG"),
       "write the run's host inputs (COM1's input bytes with the cycle each arrived at, the RTC start) "
       "to LOG for --replay (docs/snapshots.md)")
      ("hda", po::value<std::string>()->value_name("FILE"), "primary master IDE disk: a raw image file")
      ("hdb", po::value<std::string>()->value_name("FILE"), "primary slave IDE disk: a raw image file")
      ("hdc", po::value<std::string>()->value_name("FILE"), "secondary master IDE disk: a raw image file")
      ("hdd", po::value<std::string>()->value_name("FILE"), "secondary slave IDE disk: a raw image file")
      ("cdrom", po::value<std::string>()->value_name("FILE"),
       "ATAPI CD-ROM with an ISO 9660 image, the secondary master (as QEMU's -cdrom; not with --hdc)")
      ("snapshot-disks", "guest writes to the disks go to a discarded overlay; the image files stay unchanged")
      ("boot", po::value<std::string>()->value_name("ORDER"),
       "the BIOS's boot order: letters a (floppy), c (first disk), d (CD-ROM), e.g. 'dc'")
      ("replay", po::value<std::string>()->value_name("LOG"),
       "take the host inputs from a --record LOG instead of the host (COM1's input, --rtc-start): "
       "the recorded run again, exactly");
}

PlatformSession::~PlatformSession() {
  serial_.reset();  // restores the terminal (and flushes its output)
  if (input_owned_ && input_fd_ >= 0) close(input_fd_);
}

void PlatformSession::configure(const po::variables_map& vm, MachineConfig& config) {
  if (vm.count("kernel")) config.kernel.kernel_path = vm["kernel"].as<std::string>();
  if (vm.count("initrd") || vm.count("append")) {
    if (!vm.count("kernel")) throw InputError("--initrd and --append need --kernel");
    if (vm.count("initrd")) config.kernel.initrd_path = vm["initrd"].as<std::string>();
    if (vm.count("append")) config.kernel.command_line = vm["append"].as<std::string>();
  }
  for (unsigned drive = 0; drive < 2; ++drive) {
    const char* option = drive == 0 ? "fda" : "fdb";
    if (!vm.count(option)) continue;
    config.floppy_paths[drive] = vm[option].as<std::string>();
    // The drive type for CMOS byte 10h; the Machine's DiskImage::open checks the file.
    std::error_code error;
    const auto bytes = std::filesystem::file_size(config.floppy_paths[drive], error);
    config.floppy_types[drive] = error ? 0 : Fdc82077::cmos_drive_type(bytes);
  }
  if (vm.count("cpu-mhz")) {  // else the profile's clock (apply_profile_option)
    const u64 mhz = parse_whole("cpu-mhz", vm["cpu-mhz"].as<std::string>(), 1, 100000);
    config.cpu_hz = mhz * 1'000'000;
  }
  config.realtime = vm.count("realtime") > 0;
  const std::string rtc = vm["rtc-start"].as<std::string>();
  if (rtc == "host") config.rtc_start = static_cast<i64>(std::time(nullptr));
  else if (rtc != "fixed") config.rtc_start = static_cast<i64>(parse_whole("rtc-start", rtc, 0, 4'102'444'799));  // to 2099
  vga_dump_ = vm.count("vga-dump") > 0;
  configure_drives(vm, config);
  if (vm.count("screendump")) {
    const std::string path = vm["screendump"].as<std::string>();
    if (path.empty()) throw InputError("--screendump needs a file name");
    try {
      screendump_ = std::make_unique<OutputFile>(path, "screendump");  // an unwritable path fails before the run
    } catch (const OutputError& error) {
      throw InputError(error.what());
    }
  }
  if (const std::string display = vm["display"].as<std::string>(); display == "sdl")
    display_ = std::make_unique<SdlDisplay>();
  else if (display != "none")
    throw InputError("--display must be none or sdl, not '" + display + "'");
  if (vm.count("record") && vm.count("replay")) throw InputError("--record and --replay cannot be used together");
  if (vm.count("replay")) open_replay(vm, config);
  if (vm.count("record")) {
    record_file_ = std::make_unique<OutputFile>(vm["record"].as<std::string>(), "replay log");
    InputLog log;
    log.rtc_start = config.rtc_start;
    log.rtc_from_host = rtc == "host";
    journal_ = std::make_unique<InputJournal>(InputJournal::Mode::Record, std::move(log));
  }

  const std::string serial = vm["serial"].as<std::string>();
  bool from_stdin = false;
  if (serial == "stdio") {
    output_ = stdout;
    from_stdin = true;
  } else if (serial.rfind("file:", 0) == 0 && serial.size() > 5) {
    output_file_ = std::make_unique<OutputFile>(serial.substr(5), "serial output file");
    output_ = output_file_->stream();
  } else if (serial != "none") {
    throw InputError("--serial must be stdio, file:PATH or none, not '" + serial + "'");
  }
  if (const std::string gate = vm["serial-irq"].as<std::string>(); gate == "direct" || (gate == "auto" && uses_bios_boot(vm)))
    config.serial_irq_gate = Uart16550::IrqGate::Direct;
  else if (gate != "out2" && gate != "auto")
    throw InputError("--serial-irq must be auto, out2 or direct, not '" + gate + "'");
  if (vm.count("replay")) {
    // No host input: it comes from the log (InputJournal).
  } else if (vm.count("serial-input")) {
    const std::string path = vm["serial-input"].as<std::string>();
    // Any readable file but a directory: a FIFO or a device is a stream of input as on
    // QEMU's -serial (opening a FIFO waits for its writer).
    input_fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (input_fd_ < 0) throw InputError("cannot open serial input file '" + path + "': " + std::strerror(errno));
    input_owned_ = true;
    struct stat status;
    if (fstat(input_fd_, &status) == 0 && S_ISDIR(status.st_mode))
      throw InputError("serial input file '" + path + "' is a directory");
  } else if (from_stdin) {
    input_fd_ = STDIN_FILENO;
  }
  serial_ = std::make_unique<StreamSerialHost>(
      output_, input_fd_, [this] { if (machine_) machine_->request_stop(); },
      [this] {
        if (!machine_) return;
        machine_->request_pause();  // on the machine's thread: the UART's receive, or between slices
      });
  if (vm.count("serial-expect") && !vm.count("replay")) {
    const std::string prompt = vm["serial-expect"].as<std::string>();
    if (prompt.empty()) throw InputError("--serial-expect needs a non-empty TEXT (the guest's prompt)");
    if (input_fd_ < 0) throw InputError("--serial-expect needs an input: --serial-input FILE or --serial stdio");
    serial_->expect_prompt(prompt);
  }
  // A terminal is made raw only for kernels (their shells); BIOS runs keep Ctrl-C, and
  // so do runs under gdb, whose wait for gdb and stops do not read the Ctrl-A keys.
  if (input_fd_ == STDIN_FILENO && (vm.count("kernel") || vm.count("load-snapshot")) && !vm.count("gdb") &&
      !vm.count("wait-gdb"))
    serial_->make_terminal_raw();
  serial_->on_snapshot_key([this] {
    if (!machine_) return;
    snapshot_wanted_ = true;
    machine_->request_pause();  // saved at the next instruction boundary (serve_console_monitor)
  });
  config.com1_host = serial_.get();
  // Under gdb the inputs are journaled without --record too, so that reverse execution
  // re-executes with them.
  if (journal_ || vm.count("gdb") || vm.count("wait-gdb")) journal_inputs(config);
}

void configure_drives(const po::variables_map& vm, MachineConfig& config) {
  static constexpr const char* kNames[4] = {"hda", "hdb", "hdc", "hdd"};
  for (unsigned i = 0; i < 4; ++i) {
    if (!vm.count(kNames[i])) continue;
    const std::string path = vm[kNames[i]].as<std::string>();
    if (path.empty()) throw InputError(std::string("--") + kNames[i] + " needs an image FILE");
    config.drives[i] = {path, false, std::string("--") + kNames[i]};
  }
  if (vm.count("cdrom")) {
    if (vm.count("hdc")) throw InputError("--cdrom is the secondary master, which --hdc already is");
    const std::string path = vm["cdrom"].as<std::string>();
    if (path.empty()) throw InputError("--cdrom needs an ISO image FILE");
    config.drives[2] = {path, true, "--cdrom"};
  }
  config.snapshot_disks = vm.count("snapshot-disks") > 0;
  if (vm.count("boot")) {
    const std::string order = vm["boot"].as<std::string>();
    if (order.empty() || order.size() > 3 || order.find_first_not_of("acd") != std::string::npos)
      throw InputError("--boot needs up to three of the letters a, c, d (floppy, disk, CD-ROM), not '" + order + "'");
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order.find(order[i], i + 1) != std::string::npos)
        throw InputError("--boot names '" + std::string(1, order[i]) + "' twice in '" + order + "'");
    config.boot_order = order;
  }
}

void PlatformSession::journal_inputs(MachineConfig& config) {
  if (!journal_) {
    InputLog log;
    log.rtc_start = config.rtc_start;
    journal_ = std::make_unique<InputJournal>(InputJournal::Mode::Record, std::move(log));
  }
  config.inputs = journal_.get();
  if (!journal_host_) journal_host_ = std::make_unique<JournalSerialHost>(*serial_, *journal_);
  config.com1_host = journal_host_.get();
}

void PlatformSession::open_replay(const po::variables_map& vm, MachineConfig& config) {
  const std::string path = vm["replay"].as<std::string>();
  journal_ = std::make_unique<InputJournal>(InputJournal::Mode::Replay, InputLog::read(path));
  std::string ignored;
  if (vm.count("serial-input")) ignored += " --serial-input";
  if (vm.count("serial-expect")) ignored += " --serial-expect";
  if (!vm["rtc-start"].defaulted()) ignored += " --rtc-start";
  if (vm["serial"].as<std::string>() == "stdio" && !vm["serial"].defaulted()) ignored += " standard input";
  if (!ignored.empty())
    std::cerr << "x86lab: --replay " << path << " gives the host inputs; ignored:" << ignored << "\n";
  config.rtc_start = journal_->log().rtc_start;
}

void PlatformSession::connect(Machine& machine) {
  machine_ = &machine;
}

bool PlatformSession::serve_console_monitor() {
  if (snapshot_wanted_ && machine_) {
    snapshot_wanted_ = false;
    const std::string name = "x86lab-" + std::to_string(machine_->cpu.steps()) + ".snap";
    serial_->print_to_console("\r\nx86lab: " + *snapshot_command(*machine_, "snapshot save " + name));
    return true;
  }
  if (!serial_->monitor_wanted() || !machine_) return false;
  if (x86lab::serve_console_monitor(*machine_, *serial_) == ConsoleMonitorEnd::Quit) machine_->request_stop();
  serial_->monitor_done();
  return true;
}

void PlatformSession::start() {
  if (screendump_) screendump_->start();
  if (output_file_) output_file_->start();
  if (record_file_) record_file_->start();
}

void PlatformSession::finish(const Machine& machine) {
  if (output_file_) {
    serial_->detach_output();  // the file closes here
    output_ = nullptr;
    output_file_->finish();  // throws OutputError
  } else if (output_) {
    std::fflush(output_);
  }
  if (record_file_) {
    const std::vector<u8> bytes = journal_->log().encode();
    std::fwrite(bytes.data(), 1, bytes.size(), record_file_->stream());
    record_file_->finish();  // throws OutputError
  }
  if (display_) display_->update(machine.devices->vga, true);
  if (screendump_) {
    const std::string bytes = encode_screen(machine.devices->vga.render(), screendump_->path());
    std::fwrite(bytes.data(), 1, bytes.size(), screendump_->stream());
    screendump_->finish();  // throws OutputError
  }
  if (vga_dump_) {
    std::cout << "---- VGA text screen ----\n" << machine.devices->vga.text() << "-------------------------\n";
    std::cout.flush();
  }
}

}  // namespace x86lab
