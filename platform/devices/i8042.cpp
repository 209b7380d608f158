// 8042 controller commands, keyboard commands and the output buffer queue. Bytes are
// answered at once (IBF never stays set).
#include "platform/devices/i8042.h"

#include "platform/devices/scan_codes.h"

namespace x86lab {

namespace {
// Status register bits.
constexpr u8 kOutputFull = 0x01, kSystemFlag = 0x04, kCommandLast = 0x08, kNotInhibited = 0x10,
             kAuxOutput = 0x20, kTimeout = 0x40;
// Command byte bits.
constexpr u8 kKeyboardIrq = 0x01, kAuxIrq = 0x02, kSystem = 0x04, kKeyboardDisabled = 0x10, kAuxDisabled = 0x20,
             kTranslate = 0x40;
}  // namespace

I8042::I8042(Wiring wiring) : wiring_(std::move(wiring)) {}

u8 I8042::status() const {
  return static_cast<u8>((output_full_ ? kOutputFull : 0) | ((command_byte_ & kSystem) ? kSystemFlag : 0) |
                         (last_was_command_ ? kCommandLast : 0) | kNotInhibited |
                         (output_full_ && output_aux_ ? kAuxOutput : 0) | (timeout_ ? kTimeout : 0));
}

void I8042::enqueue(u8 byte, bool aux) {
  queue_.emplace_back(byte, aux);
  refill();
}

void I8042::refill() {
  if (!output_full_ && !queue_.empty()) {
    output_buffer_ = queue_.front().first;
    output_aux_ = queue_.front().second;
    output_full_ = true;
    queue_.pop_front();
  }
  update_irqs();
}

void I8042::update_irqs() {
  if (!wiring_.irq) return;
  wiring_.irq(1, output_full_ && !output_aux_ && (command_byte_ & kKeyboardIrq));
  wiring_.irq(12, output_full_ && output_aux_ && (command_byte_ & kAuxIrq));
}

u32 I8042::read(u32 port, unsigned) {
  if (port == 0x64) return status();
  if (port != 0x60) return 0xFF;
  const u8 value = output_buffer_;  // an empty buffer reads its last byte again
  output_full_ = false;
  timeout_ = false;
  // The IRQ line drops with the read and rises again for the next byte: on an
  // edge-triggered PIC each byte of a multi-byte answer (FA AB 41 for identify) is its
  // own interrupt. Linux's i8042 handler reads one byte per interrupt; without the
  // drop the second byte never interrupted and atkbd found no keyboard.
  update_irqs();
  refill();
  return value;
}

void I8042::write(u32 port, unsigned, u32 value) {
  const u8 byte = static_cast<u8>(value);
  if (port == 0x64) {
    last_was_command_ = true;
    controller_command(byte);
  } else if (port == 0x60) {
    last_was_command_ = false;
    if (pending_command_) controller_data(byte);
    else keyboard_command(byte);
  }
}

void I8042::key(u8 set1_code, bool extended, bool released) {
  if (!keyboard_scanning_) return;
  if (scancode_set_ == 1) {
    if (set1_code == 0 || set1_code > 0x7F) return;
    if (extended) keyboard_sends(0xE0);
    keyboard_sends(static_cast<u8>(set1_code | (released ? 0x80 : 0)));
    return;
  }
  const std::optional<u8> code = set2_make_code(set1_code);
  if (!code) return;
  if (extended) keyboard_sends(0xE0);
  if (released) keyboard_sends(0xF0);
  keyboard_sends(*code);
}

// One byte on the keyboard's line: held while the interface is disabled, else through
// the controller (translated when the command byte says so).
void I8042::keyboard_sends(u8 byte) {
  if (command_byte_ & kKeyboardDisabled) {
    held_.push_back(byte);
    return;
  }
  if (!(command_byte_ & kTranslate)) {
    enqueue(byte, false);
    return;
  }
  if (byte == 0xF0) {  // the release prefix: folded into bit 7 of the next code
    break_prefix_ = true;
    return;
  }
  const u8 translated = byte == 0xE0 ? byte : translate_set2_to_set1(byte);
  enqueue(static_cast<u8>(translated | (break_prefix_ && byte != 0xE0 ? 0x80 : 0)), false);
  if (byte != 0xE0) break_prefix_ = false;
}

void I8042::release_held_keys() {
  while (!held_.empty() && !(command_byte_ & kKeyboardDisabled)) {
    const u8 byte = held_.front();
    held_.pop_front();
    keyboard_sends(byte);
  }
}

void I8042::mouse_sends(const std::vector<u8>& bytes) {
  for (u8 byte : bytes) {
    if (command_byte_ & kAuxDisabled) mouse_held_.push_back(byte);
    else enqueue(byte, true);
  }
  while (mouse_held_.size() > 4096) mouse_held_.pop_front();
}

void I8042::release_held_mouse_bytes() {
  while (!mouse_held_.empty() && !(command_byte_ & kAuxDisabled)) {
    enqueue(mouse_held_.front(), true);
    mouse_held_.pop_front();
  }
}

void I8042::write_output_port(u8 value) {
  output_port_ = value;
  if (wiring_.a20) wiring_.a20(value & 0x02);
  if (!(value & 0x01) && wiring_.reset) wiring_.reset();
}

void I8042::controller_command(u8 command) {
  pending_command_ = 0;
  if (command >= 0x20 && command <= 0x3F) {  // read controller RAM (20h: command byte)
    enqueue(command == 0x20 ? command_byte_ : ram_[command & 0x1F], false);
    return;
  }
  if (command >= 0x60 && command <= 0x7F) {  // write controller RAM: data follows
    pending_command_ = command;
    return;
  }
  if (command >= 0xF0) {
    // Pulse output port bits 0-3 that are 0 in the command; bit 0 is the CPU reset.
    if (!(command & 0x01) && wiring_.reset) wiring_.reset();
    return;
  }
  switch (command) {
    case 0xA7: command_byte_ |= kAuxDisabled; break;
    case 0xA8:
      command_byte_ &= static_cast<u8>(~kAuxDisabled);
      release_held_mouse_bytes();
      break;
    case 0xA9: enqueue(0x00, false); break;  // auxiliary interface test: no error
    case 0xAA:                               // controller self test
      command_byte_ |= kSystem;
      enqueue(0x55, false);
      break;
    case 0xAB: enqueue(0x00, false); break;  // keyboard interface test: no error
    case 0xAD: command_byte_ |= kKeyboardDisabled; break;
    case 0xAE:
      command_byte_ &= static_cast<u8>(~kKeyboardDisabled);
      release_held_keys();
      break;
    case 0xC0: enqueue(0xBF, false); break;  // input port: keyboard not locked
    case 0xD0: enqueue(output_port_, false); break;
    case 0xD1: case 0xD2: case 0xD3: case 0xD4: pending_command_ = command; break;
    case 0xDD: write_output_port(output_port_ & static_cast<u8>(~0x02)); break;  // A20 off
    case 0xDF: write_output_port(output_port_ | 0x02); break;                     // A20 on
    case 0xE0: enqueue(0x00, false); break;  // test inputs
    default: break;
  }
  update_irqs();
}

void I8042::controller_data(u8 value) {
  const u8 command = pending_command_;
  pending_command_ = 0;
  switch (command) {
    case 0xD1: write_output_port(value); break;
    case 0xD2: enqueue(value, false); break;  // as if the keyboard sent it
    case 0xD3: enqueue(value, true); break;   // as if the auxiliary device sent it
    case 0xD4:
      // To the mouse; as with the keyboard, sending to it enables its interface.
      command_byte_ &= static_cast<u8>(~kAuxDisabled);
      release_held_mouse_bytes();
      mouse_sends(mouse_.command(value));
      break;
    default:
      if (command == 0x60) command_byte_ = value;
      else ram_[command & 0x1F] = value;
      release_held_keys();
      release_held_mouse_bytes();
      update_irqs();
      break;
  }
}

void I8042::keyboard_command(u8 value) {
  auto answer = [&](std::initializer_list<u8> bytes) {
    for (u8 b : bytes) {
      // QUIRK: with translation on, the controller turns the keyboard's ID byte 83h
      // into its scan code set 1 equivalent 41h.
      const u8 sent = (b == 0x83 && (command_byte_ & kTranslate)) ? 0x41 : b;
      keyboard_last_ = sent;
      enqueue(sent, false);
    }
  };
  command_byte_ &= static_cast<u8>(~kKeyboardDisabled);  // sending to the keyboard enables its interface
  held_.clear();  // the keyboard clears its buffer when it receives a command
  if (keyboard_pending_) {
    const u8 command = keyboard_pending_;
    keyboard_pending_ = 0;
    if (command == 0xF0 && value == 0) answer({0xFA, scancode_set_});
    else {
      if (command == 0xF0 && value <= 3) scancode_set_ = value;
      answer({0xFA});
    }
    return;
  }
  switch (value) {
    case 0xFF:  // reset: acknowledge, then the basic assurance test passes
      keyboard_scanning_ = true;
      scancode_set_ = 2;
      answer({0xFA, 0xAA});
      break;
    case 0xFE: enqueue(keyboard_last_, false); break;
    case 0xF2: answer({0xFA, 0xAB, 0x83}); break;  // identify: an MF2 keyboard
    case 0xF4: keyboard_scanning_ = true; answer({0xFA}); break;
    case 0xF5: keyboard_scanning_ = false; answer({0xFA}); break;
    case 0xF6: scancode_set_ = 2; answer({0xFA}); break;
    case 0xEE: answer({0xEE}); break;  // echo
    case 0xED: case 0xF3: case 0xF0: keyboard_pending_ = value; answer({0xFA}); break;
    default:
      if (value >= 0xF7 && value <= 0xFD) answer({0xFA});  // set 3 key-type commands
      else answer({0xFE});                                  // unknown: resend
      break;
  }
}

void I8042::transfer_state(StateArchive& a) {
  std::vector<u8> bytes, aux;
  for (const auto& [byte, from_aux] : queue_) {
    bytes.push_back(byte);
    aux.push_back(from_aux);
  }
  a.local_sequence(bytes, "i8042 queue", 4096);
  a.local_sequence(aux, "i8042 queue", 4096);
  if (bytes.size() != aux.size()) throw StateArchiveError("i8042 queue: lengths differ");
  for (u8 from_aux : aux)
    if (from_aux > 1) throw StateArchiveError("i8042 queue: value out of range");
  a.field(output_buffer_, "i8042 output buffer");
  a.field(output_full_, "i8042 OBF");
  a.field(output_aux_, "i8042 AUXB");
  a.field(timeout_, "i8042 timeout");
  a.field(last_was_command_, "i8042 A2");
  a.field(command_byte_, "i8042 command byte");
  a.field(output_port_, "i8042 output port");
  a.field(pending_command_, "i8042 pending command");
  a.field(keyboard_pending_, "i8042 keyboard command");
  a.field(keyboard_last_, "i8042 keyboard last byte");
  a.field(keyboard_scanning_, "i8042 scanning");
  a.field(scancode_set_, "i8042 scan code set", 3);
  a.array(ram_, "i8042 RAM");
  a.sequence(held_, "i8042 held keys", 4096);
  a.field(break_prefix_, "i8042 break prefix");
  mouse_.transfer_state(a);
  a.sequence(mouse_held_, "i8042 held mouse bytes", 4096);
  if (!a.loading()) return;
  queue_.clear();
  for (std::size_t i = 0; i < bytes.size(); ++i) queue_.emplace_back(bytes[i], aux[i] != 0);
}

}  // namespace x86lab
