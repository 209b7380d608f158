// The input journal: the log's cursor, the recorded past and the live present.
#include "platform/replay/input_journal.h"

#include "platform/input_error.h"

namespace x86lab {

namespace {
std::string describe(const InputMoment& at) {
  return "step " + std::to_string(at.step) + " (cycle " + std::to_string(at.cycle / 256) + ")";
}

[[noreturn]] void diverged(const std::string& what, const InputMoment& recorded, const InputMoment& now) {
  throw InputError("the replay diverged: " + what + " was taken at " + describe(recorded) +
                   " in the recorded run, and that moment has passed here at " + describe(now) +
                   " (another guest or other options?)");
}
}  // namespace

InputJournal::InputJournal(Mode mode, InputLog log) : mode_(mode), log_(std::move(log)) {
  if (mode_ == Mode::Record) start_over();
}

InputMoment InputJournal::now() const {
  return {clock_.step ? clock_.step() : 0, clock_.cycle ? clock_.cycle() : 0};
}

InputCursor InputJournal::cursor() const { return {log_.first.serial + serial_next_, log_.first.keys + keys_next_}; }

void InputJournal::seek(const InputCursor& cursor) {
  if (mode_ == Mode::Record && log_.serial.empty() && log_.keys.empty() && !log_.serial_end && !has_frontier_) {
    log_.first = cursor;  // the recording starts at a loaded snapshot
    serial_next_ = keys_next_ = 0;
    return;
  }
  if (cursor.serial < log_.first.serial || cursor.serial - log_.first.serial > log_.serial.size() ||
      cursor.keys < log_.first.keys || cursor.keys - log_.first.keys > log_.keys.size())
    throw InputError("its input position (serial byte " + std::to_string(cursor.serial) + ", key " +
                     std::to_string(cursor.keys) + ") lies outside the replay log (another run's snapshot?)");
  serial_next_ = cursor.serial - log_.first.serial;
  keys_next_ = cursor.keys - log_.first.keys;
  behind_ = mode_ == Mode::Record && has_frontier_;
}

void InputJournal::start_over() {
  serial_next_ = keys_next_ = 0;
  if (mode_ == Mode::Replay) return;
  log_.serial.clear();
  log_.keys.clear();
  log_.serial_end.reset();
  log_.first = {};
  has_frontier_ = false;
  behind_ = false;
}

bool InputJournal::in_recorded_past(const InputMoment& at) {
  if (mode_ == Mode::Replay) return true;
  if (behind_ && at <= frontier_) return true;
  behind_ = false;
  return false;
}

void InputJournal::reach(const InputMoment& at) {
  if (!has_frontier_ || frontier_ < at) frontier_ = at;
  has_frontier_ = true;
}

std::optional<u8> InputJournal::receive(SerialHost& live) {
  const InputMoment at = now();
  if (serial_next_ < log_.serial.size()) {
    const InputLog::SerialByte& event = log_.serial[serial_next_];
    if (event.at == at) {
      ++serial_next_;
      return event.byte;
    }
    if (event.at < at) diverged("serial input byte " + std::to_string(log_.first.serial + serial_next_ + 1), event.at, at);
    return std::nullopt;
  }
  if (in_recorded_past(at) || log_.serial_end) return std::nullopt;
  reach(at);
  const std::optional<u8> byte = live.receive();
  if (byte) {
    log_.serial.push_back({at, *byte});
    ++serial_next_;
  }
  return byte;
}

bool InputJournal::input_open(const SerialHost& live) {
  const InputMoment at = now();
  if (log_.serial_end) return at < *log_.serial_end;
  if (serial_next_ < log_.serial.size() || in_recorded_past(at)) return true;
  reach(at);
  if (live.input_open()) return true;
  log_.serial_end = at;
  return false;
}

const InputLog::Key* InputJournal::next_key() const {
  return keys_next_ < log_.keys.size() ? &log_.keys[keys_next_] : nullptr;
}

void InputJournal::deliver_keys(const std::function<void(const InputLog::Key&)>& press) {
  const InputMoment at = now();
  while (keys_next_ < log_.keys.size() && log_.keys[keys_next_].at <= at) {
    const InputLog::Key& key = log_.keys[keys_next_];
    if (key.at < at) diverged("key " + std::to_string(log_.first.keys + keys_next_ + 1), key.at, at);
    ++keys_next_;
    press(key);
  }
}

void InputJournal::record_key(u8 set1, bool extended, bool released) {
  if (mode_ == Mode::Replay) throw InputError("the run is replayed from its log: keys typed now are not given to it");
  drop_future();
  log_.keys.push_back({now(), set1, extended, released});
  ++keys_next_;
}

void InputJournal::drop_future() {
  if (mode_ == Mode::Replay) return;
  const InputMoment at = now();
  log_.serial.resize(serial_next_);
  log_.keys.resize(keys_next_);
  if (log_.serial_end && at < *log_.serial_end) log_.serial_end.reset();
  frontier_ = at;
  has_frontier_ = true;
  behind_ = false;
}

SerialHost::InputPosition JournalSerialHost::input_position() const {
  return journal_.replaying() ? InputPosition{} : live_.input_position();
}

void JournalSerialHost::resume_input(const InputPosition& position) {
  const InputLog& log = journal_.log();
  if (!journal_.replaying() && log.serial.empty() && log.keys.empty() && !log.serial_end) live_.resume_input(position);
}

}  // namespace x86lab
