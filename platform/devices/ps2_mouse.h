// A PS/2 mouse on the 8042's auxiliary port, with the IntelliMouse wheel extension
// (IBM PS/2 Hardware Interface Technical Reference, "Pointing Device": commands,
// status bytes and the 3-byte data report; the wheel's 4-byte report and device ID 3
// after the sample rates 200, 100, 80 follow Microsoft's IntelliMouse PS/2 protocol).
#pragma once
#include <vector>

#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

class Ps2Mouse {
 public:
  // Button bits of move() and of the report's byte 1.
  static constexpr u8 kLeft = 0x01, kRight = 0x02, kMiddle = 0x04;

  // A byte the host sent to the mouse (8042 command D4h): the bytes the mouse answers
  // (FAh acknowledge first; FEh for an unknown command; AAh 00h after a reset).
  std::vector<u8> command(u8 byte);
  // The user moved the mouse by (dx, dy) counts (dy > 0: away from the user, up),
  // turned the wheel by dz detents (dz > 0: toward the user, as the report counts it)
  // and holds `buttons` (kLeft | kRight | kMiddle). Returns the data report to send at
  // once (stream mode with reporting enabled), else nothing: in remote mode the
  // movement adds up until READ DATA (EBh). Counts beyond -256..255 set the overflow
  // bits; the wheel is clamped to -8..7.
  std::vector<u8> move(int dx, int dy, int dz, u8 buttons);

  u8 device_id() const { return device_id_; }
  bool reporting() const { return reporting_; }
  bool remote() const { return remote_; }
  u8 sample_rate() const { return sample_rate_; }
  u8 resolution() const { return resolution_; }
  bool scaling_2_to_1() const { return scaling_2_to_1_; }

  void transfer_state(StateArchive& archive);

 private:
  void set_defaults();
  std::vector<u8> report();

  u8 pending_ = 0;  // command waiting for its argument (E8h, F3h)
  bool reporting_ = false, remote_ = false, scaling_2_to_1_ = false, wrap_ = false;
  u8 sample_rate_ = 100, resolution_ = 2;  // 100 reports/s, 4 counts/mm
  u8 device_id_ = 0;                       // 0: standard mouse, 3: IntelliMouse
  u8 rates_[3] = {};                       // the last three sample rates set
  u8 buttons_ = 0;
  int dx_ = 0, dy_ = 0, dz_ = 0;           // movement not yet reported
  std::vector<u8> last_;                   // the last bytes sent (for resend, FEh)
};

}  // namespace x86lab
