// Record and replay at machine level (docs/snapshots.md "Record and replay"): the run's
// inputs are kept in a log (input_log.h) by step and modeled cycle, and a cursor says
// how far the machine has consumed it. A snapshot saves the cursor and a restore sets
// it back (platform/snapshot/machine_state.h), so reverse execution's re-execution and
// --load-snapshot take the recorded inputs again at the same moments.
//
// Recording: the furthest moment at which the live host was asked (the frontier)
// divides the run in a recorded past and the live present. Up to the frontier the
// machine takes its inputs from the log (a machine gone back re-executes the recorded
// future); past it the live host is asked and what it gives is appended. An input typed
// while the machine is behind the frontier starts another future there (drop_future).
// Replaying: every input comes from the log; the host is never asked.
#pragma once
#include <functional>

#include "platform/devices/uart.h"
#include "platform/replay/input_log.h"

namespace x86lab {

// Where the moment of an input comes from: the machine's modeled clock and step count.
struct InputClock {
  std::function<u64()> cycle;
  std::function<u64()> step;
};

class InputJournal {
 public:
  enum class Mode { Record, Replay };
  // Replay: `log` is the recorded run's. Record: `log` carries the RTC start; its
  // events, if any, are dropped.
  InputJournal(Mode mode, InputLog log);

  Mode mode() const { return mode_; }
  bool replaying() const { return mode_ == Mode::Replay; }
  // The log as recorded so far (Record) or as read (Replay).
  const InputLog& log() const { return log_; }
  void set_clock(InputClock clock) { clock_ = std::move(clock); }
  InputMoment now() const;

  // How far the machine has consumed the log (a snapshot saves it).
  InputCursor cursor() const;
  // Continues at `cursor` (a restored snapshot's). Recording a log that has no event and
  // no frontier yet (a run that starts from a loaded snapshot) starts the log there.
  // Throws InputError when `cursor` lies outside the log (a snapshot of another run).
  void seek(const InputCursor& cursor);
  // The machine was built anew (the inspector's Restart): Replay goes back to the log's
  // start; Record starts an empty log.
  void start_over();

  // COM1's input (JournalSerialHost). `live` is the host's input (Record).
  // Throws InputError "the replay diverged: ..." when a recorded byte's moment has passed.
  std::optional<u8> receive(SerialHost& live);
  bool input_open(const SerialHost& live);

  // The next recorded key the machine has not been given yet, or null.
  const InputLog::Key* next_key() const;
  // Gives `press` the recorded keys due now (Machine::run, between instructions).
  // Throws InputError "the replay diverged: ..." when one's moment has passed.
  void deliver_keys(const std::function<void(const InputLog::Key&)>& press);
  // A key typed now (the inspector's VGA text screen), to be given to the 8042 by the
  // caller: recorded at the current moment. Throws InputError while replaying.
  void record_key(u8 set1, bool extended, bool released);
  // The user changes the run at the current moment (typed input, Record): the recorded
  // events after it are dropped, and the live host is asked from here on.
  void drop_future();

 private:
  // Whether the inputs at `at` come from the log: always while replaying; while recording
  // after a seek (the machine went back) up to the frontier.
  bool in_recorded_past(const InputMoment& at);
  void reach(const InputMoment& at);

  Mode mode_;
  InputLog log_;
  InputClock clock_;
  std::size_t serial_next_ = 0, keys_next_ = 0;  // indexes into log_.serial and log_.keys
  InputMoment frontier_;  // the latest moment the live host was asked at (Record)
  bool has_frontier_ = false;
  bool behind_ = false;  // Record: sought back, the frontier not passed yet
};

// COM1's host while recording or replaying: output goes to `live`; input is the
// journal's (recorded from `live` while recording).
class JournalSerialHost : public SerialHost {
 public:
  JournalSerialHost(SerialHost& live, InputJournal& journal) : live_(live), journal_(journal) {}
  void transmit(u8 byte) override { live_.transmit(byte); }
  std::optional<u8> receive() override { return journal_.receive(live_); }
  bool input_open() const override { return journal_.input_open(live_); }
  // The live input's position (a regular --serial-input file's offset) while recording;
  // a restore within the run leaves the live input where it is (its bytes are in the log).
  InputPosition input_position() const override;
  void resume_input(const InputPosition& position) override;

 private:
  SerialHost& live_;
  InputJournal& journal_;
};

}  // namespace x86lab
