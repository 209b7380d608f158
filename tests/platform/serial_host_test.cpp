// The host side of the serial console (platform/serial_host.h): scripted input held
// back until the guest's prompt (--serial-expect).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "platform/serial_host.h"

namespace x86lab {
namespace {

// A StreamSerialHost reading `input` from a pipe, its output dropped.
struct ScriptedHost {
  explicit ScriptedHost(const std::string& input) {
    EXPECT_EQ(pipe(fds), 0);
    EXPECT_EQ(write(fds[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
    close(fds[1]);
  }
  ~ScriptedHost() { close(fds[0]); }
  std::string print_and_read(StreamSerialHost& host, const std::string& output) {
    for (char c : output) host.transmit(static_cast<u8>(c));
    std::string received;
    while (const auto byte = host.receive()) received.push_back(static_cast<char>(*byte));
    return received;
  }
  int fds[2];
};

TEST(SerialHost, InputWithoutAPromptIsDeliveredAtOnce) {
  ScriptedHost script("ls\nhalt -f\n");
  StreamSerialHost host(nullptr, script.fds[0]);
  EXPECT_EQ(script.print_and_read(host, ""), "ls\nhalt -f\n");
}

// Issue 39: a snapshot saved while COM1 read a terminal (here a pipe, which can no more
// be read again) went on in a new --serial-input file at the count the terminal had
// given, skipping the file's first bytes. The bytes not yet taken by the guest stay first.
TEST(SerialHost, AFileAfterATerminalOrPipeIsReadFromItsStart) {
  ScriptedHost script("typed at the shell\n");
  StreamSerialHost saving(nullptr, script.fds[0]);
  EXPECT_EQ(saving.receive(), u8{'t'});  // the host has read the whole line, the guest one byte
  const SerialHost::InputPosition position = saving.input_position();
  EXPECT_EQ(position.read, 0u);
  EXPECT_FALSE(position.ended);
  char path[] = "/tmp/x86lab-serial-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, "new\n", 4), 4);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  StreamSerialHost loading(nullptr, fd);
  loading.resume_input(position);
  EXPECT_EQ(script.print_and_read(loading, ""), "yped at the shell\nnew\n");
  close(fd);
}

// A regular file goes on where the saving run left it (the same file given again).
TEST(SerialHost, TheSameFileGoesOnWhereTheSnapshotLeftIt) {
  char path[] = "/tmp/x86lab-serial-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  unlink(path);
  ASSERT_EQ(write(fd, "abcdef", 6), 6);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  StreamSerialHost saving(nullptr, fd);
  EXPECT_EQ(saving.receive(), u8{'a'});
  const SerialHost::InputPosition position = saving.input_position();
  EXPECT_EQ(position.read, 6u);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  StreamSerialHost loading(nullptr, fd);
  loading.resume_input(position);
  ScriptedHost none("");
  EXPECT_EQ(none.print_and_read(loading, ""), "bcdef");
  close(fd);
}

TEST(SerialHost, EachLineWaitsForTheNextPrompt) {
  ScriptedHost script("ls\nhalt -f\n");
  StreamSerialHost host(nullptr, script.fds[0]);
  host.expect_prompt("# ");
  // The shell's terminal query comes before its first prompt: nothing may be taken then.
  EXPECT_EQ(script.print_and_read(host, "\x1b[6n"), "");
  EXPECT_EQ(script.print_and_read(host, "~ #"), "");
  EXPECT_EQ(script.print_and_read(host, " "), "ls\n");
  // The echo of the command and its output are no prompt; the next one is.
  EXPECT_EQ(script.print_and_read(host, "ls\r\nbin  etc\r\n"), "");
  EXPECT_EQ(script.print_and_read(host, "~ # "), "halt -f\n");
  EXPECT_EQ(script.print_and_read(host, "~ # "), "");  // the input has ended
}

TEST(SerialHost, APromptSplitAcrossWritesIsSeen) {
  ScriptedHost script("a\n");
  StreamSerialHost host(nullptr, script.fds[0]);
  host.expect_prompt("login: ");
  EXPECT_EQ(script.print_and_read(host, "log"), "");
  EXPECT_EQ(script.print_and_read(host, "in"), "");
  EXPECT_EQ(script.print_and_read(host, ": "), "a\n");
}

TEST(SerialHost, CtrlAKeysStopOpenTheMonitorPrintHelpAndSendCtrlA) {
  ScriptedHost script("a\x01" "c" "b\x01\x01" "c\x01h\x01x");
  std::FILE* console = std::tmpfile();
  int stops = 0, monitors = 0;
  StreamSerialHost host(console, script.fds[0], [&] { ++stops; }, [&] { ++monitors; });
  host.enable_escapes();
  std::string received;
  while (const auto byte = host.receive()) received.push_back(static_cast<char>(*byte));
  EXPECT_EQ(received, "a");  // what follows Ctrl-A c is the monitor's
  EXPECT_EQ(monitors, 1);
  EXPECT_EQ(stops, 0);
  host.monitor_done();  // the monitor read none of it: it goes to the guest, keys acted on
  while (const auto byte = host.receive()) received.push_back(static_cast<char>(*byte));
  EXPECT_EQ(received, "ab\x01" "c");
  EXPECT_EQ(monitors, 1);
  EXPECT_EQ(stops, 1);
  std::rewind(console);
  char text[512] = {};
  EXPECT_GT(std::fread(text, 1, sizeof text - 1, console), 0u);
  EXPECT_EQ(std::string(text), StreamSerialHost::kKeysHelp);
  std::fclose(console);
}

TEST(SerialHost, CtrlAKeysActWhileTheGuestReadsNothing) {
  ScriptedHost script("typed ahead\x01x");
  int stops = 0;
  StreamSerialHost host(nullptr, script.fds[0], [&] { ++stops; });
  host.enable_escapes();
  host.service_keys();  // x86lab run, between slices
  EXPECT_EQ(stops, 1);
}

TEST(SerialHost, CtrlAKeysActWhileALineWaitsForThePrompt) {
  ScriptedHost script("ls\n\x01x");
  int stops = 0;
  StreamSerialHost host(nullptr, script.fds[0], [&] { ++stops; });
  host.enable_escapes();
  host.expect_prompt("# ");
  EXPECT_EQ(host.receive(), std::nullopt);
  host.service_keys();
  EXPECT_EQ(stops, 1);
}

TEST(SerialHost, TheMonitorReadsTheBytesTypedAfterCtrlAC) {
  ScriptedHost script("\x01" "cinfo tss\r");
  StreamSerialHost host(nullptr, script.fds[0], {}, [] {});
  host.enable_escapes();
  EXPECT_EQ(host.receive(), std::nullopt);  // Ctrl-A c
  std::string line;
  while (const auto byte = host.read_console_byte()) line.push_back(static_cast<char>(*byte));
  EXPECT_EQ(line, "info tss\r");  // then the end of the input
}

// A prompt without a newline ("# ") is in the output file while the guest waits at it,
// not only at exit: the image boot tests and bench/bios_boot.sh watch COM1's file for
// it (found when the shell's prompt never appeared to bios_boot.sh).
TEST(SerialHost, APromptWithoutANewlineReachesTheFileAtOnce) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  StreamSerialHost host(file, -1);
  for (char c : std::string("login\n# ")) host.transmit(static_cast<u8>(c));
  char seen[16] = {};
  EXPECT_EQ(pread(fileno(file), seen, sizeof seen - 1, 0), 8);
  EXPECT_STREQ(seen, "login\n# ");
  std::fclose(file);
}

}  // namespace
}  // namespace x86lab
