// The Intel 82441FX PCI and Memory Controller (PMC) of the 440FX PCIset as PCI bus 0's
// host bridge, function 00:00.0 (Intel 440FX PCIset 82441FX PMC and 82442FX DBX data
// sheet, "PMC Configuration Registers"): identity 8086:1237, the programmable
// attribute map (PAM0-PAM6, shadow RAM for C0000h-FFFFFh), the SMRAM control register
// (SMRAM closed) and the DRAM registers the BIOSes read, at their reset values.
//
// Register map (offset, name, reset value, writable bits):
//   00h VID 8086h   02h DID 1237h   04h PCICMD 0006h   06h PCISTS 0280h   08h RID 02h
//   09h CLASSC 060000h (host bridge)   0Dh MLT 00h (F8h)   0Eh HEDT 00h
//   50h-51h PMCCFG 0000h   53h DBC 80h   54h AXC 00h   55h-56h DRAMR 0000h
//   57h DRAMC 01h   58h DRAMT 10h   59h-5Fh PAM0-PAM6 00h (PAM0 30h, PAM1-6 33h)
//   60h-67h DRB0-DRB7 01h   68h FDHC 00h   70h MTT 20h   71h CLT 10h
//   72h SMRAM 02h (78h; D_LCK makes D_OPEN and itself read-only)   90h ERRCMD 00h
//   91h ERRSTS 00h   93h TRC 00h
// Subsystem IDs: the 82441FX has none (2Ch-2Fh are reserved and read 0).
#pragma once
#include "platform/devices/pci/pci_function.h"

namespace x86lab {

class I440fx : public PciFunction {
 public:
  static constexpr u8 kPam0 = 0x59, kPam6 = 0x5F, kDrb0 = 0x60, kSmram = 0x72;
  // PAM attribute bits of each nibble: RE (reads go to DRAM), WE (writes go to DRAM);
  // both clear: the segment's accesses go to PCI (the ISA/ROM region beneath).
  static constexpr u8 kReadEnable = 0x1, kWriteEnable = 0x2;
  // SMRAM bits: D_OPEN, D_CLS, D_LCK, G_SMRAME; C_BASE_SEG (bits 2:0) is 010b (A0000h).
  static constexpr u8 kSmramOpen = 0x40, kSmramLock = 0x10;

  // `memory`: the bus whose C0000h-FFFFFh pages the PAM registers route.
  explicit I440fx(PhysicalBus& memory);
  std::string_view function_name() const override { return "i440fx"; }

  // The segment of PAM register `pam` (0-6), nibble `high` (0 low, 1 high): its base
  // and size in bytes; PAM0's low nibble is reserved (size 0). "PAM Register Attributes".
  struct Segment {
    u32 base, size;
  };
  static Segment pam_segment(unsigned pam, bool high);
  // Every configuration register back to its reset value (a hard reset through the
  // PIIX3's reset control register): the shadow RAM closes.
  void reset();
  // As firmware that opened the shadow RAM would leave it: every PAM segment that lies
  // completely outside [rom_base, 100000h) becomes read/write DRAM (33h); the others
  // keep reading and writing the ROM. For machines started without a PC BIOS (the
  // project's own ROMs, --kernel), whose memory below 1 MiB was RAM before the PAM.
  void open_shadow_below(u32 rom_base);

 protected:
  void config_written(u8 offset, unsigned size) override;

 private:
  void set_reset_values();
  void apply_pam();
  PhysicalBus& memory_;
  std::array<u8, 7> applied_pam_{};  // the PAM values the bus routing follows
  bool pam_applied_ = false;
};

}  // namespace x86lab
