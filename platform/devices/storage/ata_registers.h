// The ATA register file as the host sees it, the status and error bits, the command
// codes x86lab implements and the device signatures (ATA/ATAPI-6, T13/1410D: clause 7
// "Interface register definitions and descriptions", clause 8 "Command descriptions",
// 9.12 "Signature and persistence").
#pragma once
#include "trace/types.h"

namespace x86lab::ata {

// Command block registers, offsets from the channel's command base (1F0h, 170h), and
// the control block register at the control base (3F6h, 376h) (ATA-6 7.1, Table 9):
//   offset  read                 write
//   0       Data (16 bits)       Data (16 bits)
//   1       Error                Features
//   2       Sector Count         Sector Count      (ATAPI: Interrupt Reason on read)
//   3       LBA Low              LBA Low           (Sector Number)
//   4       LBA Mid              LBA Mid           (Cylinder Low;  ATAPI: Byte Count low)
//   5       LBA High             LBA High          (Cylinder High; ATAPI: Byte Count high)
//   6       Device               Device            (Device/Head)
//   7       Status               Command
//   control Alternate Status     Device Control
enum Register : u8 { kData = 0, kError = 1, kFeatures = 1, kSectorCount = 2, kLbaLow = 3, kLbaMid = 4, kLbaHigh = 5,
                     kDevice = 6, kStatus = 7, kCommand = 7 };

// Status register (ATA-6 7.15): BSY 7, DRDY 6, DF 5, DSC/SERV 4 (DSC: "device seek
// complete" of ATA-3, command dependent in ATA-6; a disk reports it set), DRQ 3, ERR 0.
inline constexpr u8 kBsy = 0x80, kDrdy = 0x40, kDf = 0x20, kDsc = 0x10, kDrq = 0x08, kErr = 0x01;

// Error register (ATA-6 7.8 and the command descriptions of clause 8): ICRC 7, UNC 6
// (WP on a write to a write-protected medium, ATA-6 8.1 "Removable Media Status
// Notification"), MC 5, IDNF 4, MCR 3, ABRT 2, NM 1.
inline constexpr u8 kUnc = 0x40, kWp = 0x40, kIdnf = 0x10, kAbrt = 0x04;

// Device register (ATA-6 7.9): bits 7 and 5 obsolete (set by old hosts), 6 LBA, 4 DEV,
// 3:0 head number (CHS) or LBA bits 27:24.
inline constexpr u8 kLba = 0x40, kDev = 0x10;

// Device Control register (ATA-6 7.10): HOB 7, SRST 2, nIEN 1.
inline constexpr u8 kHob = 0x80, kSrst = 0x04, kNien = 0x02;

// ATAPI Interrupt Reason in the Sector Count register (ATA-6 8.21 PACKET): I/O 1
// (1 = to the host), C/D 0 (1 = command packet or completion status).
inline constexpr u8 kCoD = 0x01, kIo = 0x02;

// Command codes (ATA-6 clause 8 and Annex B).
enum Command : u8 {
  kNop = 0x00,
  kDeviceReset = 0x08,
  kRecalibrate = 0x10,  // 10h-1Fh, obsolete since ATA-4, still issued by BIOSes
  kReadSectors = 0x20, kReadSectorsNoRetry = 0x21,
  kReadSectorsExt = 0x24, kReadDmaExt = 0x25, kReadNativeMaxAddressExt = 0x27, kReadMultipleExt = 0x29,
  kWriteSectors = 0x30, kWriteSectorsNoRetry = 0x31,
  kWriteSectorsExt = 0x34, kWriteDmaExt = 0x35, kWriteMultipleExt = 0x39,
  kReadVerifySectors = 0x40, kReadVerifySectorsNoRetry = 0x41, kReadVerifySectorsExt = 0x42,
  kSeek = 0x70,  // 70h-7Fh
  kExecuteDeviceDiagnostic = 0x90, kInitializeDeviceParameters = 0x91,
  kPacket = 0xA0, kIdentifyPacketDevice = 0xA1,
  kReadMultiple = 0xC4, kWriteMultiple = 0xC5, kSetMultipleMode = 0xC6,
  kReadDma = 0xC8, kReadDmaNoRetry = 0xC9, kWriteDma = 0xCA, kWriteDmaNoRetry = 0xCB,
  kStandbyImmediate = 0xE0, kIdleImmediate = 0xE1, kStandby = 0xE2, kIdle = 0xE3, kCheckPowerMode = 0xE5,
  kSleep = 0xE6, kFlushCache = 0xE7, kFlushCacheExt = 0xEA, kIdentifyDevice = 0xEC, kSetFeatures = 0xEF,
  kReadNativeMaxAddress = 0xF8,
};

// SET FEATURES subcommands in the Features register (ATA-6 8.46, Table 44).
inline constexpr u8 kFeatureEnableWriteCache = 0x02, kFeatureSetTransferMode = 0x03,
                    kFeatureDisableWriteCache = 0x82, kFeatureDisableRevertingToPowerOn = 0x66,
                    kFeatureEnableRevertingToPowerOn = 0xCC;

// Signatures after power-on, hardware or software reset, DEVICE RESET and EXECUTE
// DEVICE DIAGNOSTIC (ATA-6 9.12, Table 27): Sector Count, LBA Low, LBA Mid, LBA High.
struct Signature {
  u8 sector_count, lba_low, lba_mid, lba_high;
};
inline constexpr Signature kAtaSignature{0x01, 0x01, 0x00, 0x00};
inline constexpr Signature kPacketSignature{0x01, 0x01, 0x14, 0xEB};

// The diagnostic code in the Error register after a reset or EXECUTE DEVICE
// DIAGNOSTIC (ATA-6 8.11, Table 14): 01h device 0 passed, device 1 passed or not present.
inline constexpr u8 kDiagnosticPassed = 0x01;

}  // namespace x86lab::ata
