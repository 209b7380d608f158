// The ACPI PM1 event and control registers of the Intel 82371AB PIIX4's power-management
// function, as far as x86lab's FADT declares them (82371AB PCI-TO-ISA / IDE XCELERATOR
// (PIIX4) data sheet, "Power Management Registers": PMSTS, PMEN, PMCNTRL).
#pragma once
#include "mmu/bus_device.h"
#include "trace/state_archive.h"

namespace x86lab {

// Register layout (offsets from kPm1aEventBlock; the FADT's PM1a_EVT_BLK, 4 bytes, is
// PMSTS + PMEN, its PM1a_CNT_BLK, 2 bytes, is PMCNTRL):
//   00h PMSTS   15 WAK_STS  11 PWRBTNOR_STS  10 RTC_STS  8 PWRBTN_STS  5 GBL_STS
//               4 BM_STS  0 TMROF_STS            (write 1 to clear)
//   02h PMEN    10 RTC_EN  8 PWRBTN_EN  5 GBL_EN  0 TMROF_EN  (read/write)
//   04h PMCNTRL 13 SUS_EN (write-only)  12:10 SUS_TYP  2 GBL_RLS (write-only)
//               1 BRLD_EN_BM  0 SCI_EN
class Piix4PowerManagement : public BusDevice {
 public:
  // The I/O ports of the block: the one place the FADT (AcpiMachine) and the port
  // wiring (PcDevices) take them from.
  static constexpr u16 kPm1aEventBlock = 0x600;    // PMSTS, PMEN (PM1_EVT_LEN 4)
  static constexpr u16 kPm1aControlBlock = 0x604;  // PMCNTRL (PM1_CNT_LEN 2)
  static constexpr u16 kLastPort = 0x605;
  static constexpr u16 kPmsts = 0x0, kPmen = 0x2, kPmcntrl = 0x4;  // offsets from kPm1aEventBlock

  static constexpr u16 kTmrofSts = 1u << 0, kBmSts = 1u << 4, kGblSts = 1u << 5, kPwrbtnSts = 1u << 8,
                       kRtcSts = 1u << 10, kPwrbtnorSts = 1u << 11, kWakSts = 1u << 15;
  static constexpr u16 kStatusBits = kTmrofSts | kBmSts | kGblSts | kPwrbtnSts | kRtcSts | kPwrbtnorSts | kWakSts;
  static constexpr u16 kTmrofEn = 1u << 0, kGblEn = 1u << 5, kPwrbtnEn = 1u << 8, kRtcEn = 1u << 10;
  static constexpr u16 kEnableBits = kTmrofEn | kGblEn | kPwrbtnEn | kRtcEn;
  static constexpr u16 kSciEn = 1u << 0, kBrldEnBm = 1u << 1, kGblRls = 1u << 2, kSusTyp = 7u << 10,
                       kSusEn = 1u << 13;

  // BusDevice on ports kPm1aEventBlock..kLastPort. Any width at any of these ports:
  // each byte of the access is the byte of the register at its port (the registers are
  // little-endian 16-bit), and bytes beyond kLastPort read FFh and drop writes, as
  // unclaimed ports do. Reserved bits read 0 and ignore writes.
  // PMSTS: writing 1 clears a bit. PMEN: read/write. PMCNTRL: SCI_EN reads 1 and
  // ignores writes (the FADT's SMI_CMD is 0: the machine is always in ACPI mode);
  // GBL_RLS and SUS_EN read 0; BRLD_EN_BM and SUS_TYP are read/write.
  // DEVIATION: the machine has no sleep states (the DSDT defines no \_Sx objects, so
  // an OS has no SUS_TYP to use either). A write with SUS_EN = 1, whatever SUS_TYP,
  // wakes at once: it sets WAK_STS and nothing else happens, so a guest that waits for
  // WAK_STS after its sleep request goes on as after a resume. x86lab has no
  // power-management event source (no PM timer, power button or RTC alarm routing), so
  // no other status bit is ever set and the SCI (IRQ 9) is never asserted.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "piix4-pm"; }

  // The registers as software reads them (no side effects).
  u16 pmsts() const { return pmsts_; }
  u16 pmen() const { return pmen_; }
  u16 pmcntrl() const { return static_cast<u16>(pmcntrl_ | kSciEn); }
  // Sleep requests (SUS_EN writes) since power-up.
  u32 sleep_requests() const { return sleep_requests_; }

  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  // The register byte at `offset` (0-5) from kPm1aEventBlock.
  u8 read_byte(unsigned offset) const;

  u16 pmsts_ = 0;    // power-up: every status bit clear
  u16 pmen_ = 0;     // power-up: every event disabled
  u16 pmcntrl_ = 0;  // BRLD_EN_BM and SUS_TYP as written (SCI_EN is added on read)
  u32 sleep_requests_ = 0;
};

}  // namespace x86lab
