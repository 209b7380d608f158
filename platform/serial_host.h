// The host side of COM1 for `--serial stdio|file:PATH|none` and `--serial-input FILE`:
// transmitted bytes go to a stream, received bytes come from a file descriptor read
// without blocking. A terminal on standard input is put in raw mode (restored at
// exit); there Ctrl-A x stops the machine, Ctrl-A c opens the console monitor, Ctrl-A h
// prints the keys and Ctrl-A Ctrl-A sends a Ctrl-A (QEMU's -serial mon:stdio keys). With a
// prompt (`--serial-expect TEXT`), input is held back line by line until the guest has
// printed the prompt, so a scripted session cannot lose bytes to a program that reads
// and discards them before its prompt (a shell's terminal query).
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "platform/devices/uart.h"

namespace x86lab {

class StreamSerialHost : public SerialHost {
 public:
  // `output` may be null (output dropped); `input_fd` may be -1 (no input). On a raw
  // terminal, `quit` is called for Ctrl-A x and `monitor` for Ctrl-A c (both on the
  // machine's thread, from receive()).
  StreamSerialHost(std::FILE* output, int input_fd, std::function<void()> quit = {},
                   std::function<void()> monitor = {});
  ~StreamSerialHost() override;
  StreamSerialHost(const StreamSerialHost&) = delete;
  StreamSerialHost& operator=(const StreamSerialHost&) = delete;

  // Raw mode for a terminal input (no echo, no line editing, no signals), with the
  // Ctrl-A keys.
  void make_terminal_raw();
  // The Ctrl-A keys without a terminal (tests).
  void enable_escapes() { raw_ = true; }
  // Called for Ctrl-A s (on the machine's thread, from receive()): save a snapshot.
  void on_snapshot_key(std::function<void()> snapshot) { snapshot_ = std::move(snapshot); }
  // The next input byte for the console monitor, waiting for it (the bytes typed after
  // Ctrl-A c may already be buffered); nothing at the end of the input or when a
  // signal interrupts the wait.
  std::optional<u8> read_console_byte();
  // Text for the person at the console (help, the monitor's answers): on the terminal
  // the keys come from. That is the serial output stream when it is a terminal too
  // (`--serial stdio`: in order with the guest's output, as QEMU's monitor shares the
  // terminal); otherwise the input terminal itself, so that a `--serial file:PATH`
  // gets the guest's bytes alone. Without a terminal (enable_escapes), the output stream.
  void print_to_console(const std::string& text);
  // Calls `hook` with each byte the guest transmits, before it is written (the progress
  // line erases itself).
  void on_output(std::function<void(u8)> hook) { on_output_ = std::move(hook); }
  // What Ctrl-A h prints.
  static const char* const kKeysHelp;
  // Flushes the output stream and stops using it (its owner is about to close it);
  // later transmitted bytes are dropped.
  void detach_output() {
    if (output_) std::fflush(output_);
    output_ = nullptr;
  }

  // Holds back each line of input (up to and including its '\n') until `prompt` has
  // appeared in the transmitted bytes since the previous line was released: the first
  // line waits for the first prompt. Empty: no holding (the default).
  void expect_prompt(std::string prompt) {
    prompt_ = std::move(prompt);
    prompt_seen_ = prompt_.empty();
  }

  // On a raw terminal: reads what was typed and acts on the Ctrl-A keys now, whether
  // or not the guest reads COM1 (x86lab run calls it between slices). No-op otherwise.
  void service_keys();
  bool raw() const { return raw_; }
  // The console monitor has ended: what was typed after Ctrl-A c and not read by it
  // goes to the guest (and its keys are acted on).
  void monitor_done();
  // Ctrl-A c was typed and monitor_done() has not been called since.
  bool monitor_wanted() const { return monitor_wanted_; }

  void transmit(u8 byte) override;
  std::optional<u8> receive() override;
  bool input_open() const override { return input_fd_ >= 0 || next_ < buffer_.size(); }
  InputPosition input_position() const override;
  void resume_input(const InputPosition& position) override;

  // How often a terminal, pipe or FIFO with nothing to read is polled, in wall time.
  static constexpr std::chrono::milliseconds kPollInterval{1};

 private:
  void fill();  // reads what the input has now (without waiting) into take_input
  void take_input(const u8* bytes, std::size_t count);  // the Ctrl-A keys, then buffer_

  std::FILE* output_;
  int input_fd_;
  int terminal_fd_ = -1;  // the terminal in raw mode, restored at exit
  int console_fd_ = -1;   // where print_to_console writes when the output is not that terminal
  std::function<void()> quit_;
  std::function<void()> monitor_;
  std::function<void()> snapshot_;
  std::function<void(u8)> on_output_;
  std::vector<u8> buffer_;
  std::size_t next_ = 0;
  u64 read_bytes_ = 0;  // read from input_fd_ (for the guest or the console monitor)
  bool raw_ = false;
  bool escape_ = false;  // Ctrl-A seen
  bool monitor_wanted_ = false;  // Ctrl-A c seen, the monitor not yet done
  std::vector<u8> monitor_input_;  // typed after Ctrl-A c, for the monitor
  bool regular_file_ = false;      // the input is a regular file (always readable)
  std::chrono::steady_clock::time_point last_empty_poll_{};
  bool flush_each_byte_ = false;
  std::string prompt_;        // expect_prompt()
  std::string output_tail_;   // the last prompt_.size() transmitted bytes
  bool prompt_seen_ = true;   // the current line of input may be delivered
  struct SavedTerminal;
  SavedTerminal* saved_ = nullptr;
};

}  // namespace x86lab
