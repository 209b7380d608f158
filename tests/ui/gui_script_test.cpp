// Inspector scripts (`x86lab gui --script`): every command parses to its verb and
// arguments; a bad line is one InputError naming the file and the line.
#include <gtest/gtest.h>

#include <SDL.h>

#include "platform/input_error.h"
#include "ui/gui/script.h"
#include "ui/gui/widgets.h"

namespace x86lab::gui {
namespace {

// The one-line error of parsing `text` as script `name`, or "no error".
std::string parse_error(const std::string& text, const std::string& name) {
  try {
    parse_script(text, name);
  } catch (const InputError& error) {
    return std::string(error.what());
  }
  return "no error";
}

TEST(GuiScript, ParsesEveryCommand) {
  const auto commands = parse_script(
      "# a comment\n"
      "break 0x100010\n"
      "break vector 13   # #GP\n"
      "run\n"
      "run 5000\n"
      "step\n"
      "step 25\n"
      "over\n"
      "out\n"
      "run-to 10001Ch\n"
      "memory B8000 physical\n"
      "walk FFFFF000\n"
      "open Page walk\n"
      "close \"Trace\"\n"
      "click 35 237\n"
      "frames 3\n"
      "screenshot out dir/shot.png\n"
      "dump text.txt\n"
      "quit\n",
      "t.txt");
  ASSERT_EQ(commands.size(), 18u);
  EXPECT_EQ(commands[0].verb, ScriptVerb::Break);
  EXPECT_EQ(commands[0].number, 0x100010u);
  EXPECT_EQ(commands[0].line, 2u);
  EXPECT_EQ(commands[1].verb, ScriptVerb::BreakVector);
  EXPECT_EQ(commands[1].number, 13u);
  EXPECT_FALSE(commands[2].flag);
  EXPECT_TRUE(commands[3].flag);
  EXPECT_EQ(commands[3].number, 5000u);
  EXPECT_EQ(commands[4].number, 1u);
  EXPECT_EQ(commands[5].number, 25u);
  EXPECT_EQ(commands[8].verb, ScriptVerb::RunTo);
  EXPECT_EQ(commands[8].number, 0x10001Cu);
  EXPECT_TRUE(commands[9].flag);
  EXPECT_EQ(commands[9].number, 0xB8000u);
  EXPECT_EQ(commands[11].text, "Page walk");
  EXPECT_EQ(commands[12].text, "Trace");
  EXPECT_EQ(commands[13].number, 35u);
  EXPECT_EQ(commands[13].number2, 237u);
  EXPECT_EQ(commands[15].text, "out dir/shot.png");
  EXPECT_EQ(commands[17].verb, ScriptVerb::Quit);
}

TEST(GuiScript, BadLinesNameTheFileAndLine) {
  auto message = [](const std::string& text) { return parse_error(text, "lesson.txt"); };
  EXPECT_EQ(message("step\njump 10\n"), "script 'lesson.txt' line 2: unknown command 'jump'");
  EXPECT_EQ(message("break vector 256\n"), "script 'lesson.txt' line 1: the vector must be 0 to 255");
  EXPECT_EQ(message("step many\n"), "script 'lesson.txt' line 1: the step count must be a whole decimal number, not 'many'");
  EXPECT_EQ(message("run-to xyz\n"), "script 'lesson.txt' line 1: 'xyz' is not a hex address");
  EXPECT_EQ(message("screenshot\n"), "script 'lesson.txt' line 1: screenshot needs a file path");
  EXPECT_EQ(message("quit now\n"), "script 'lesson.txt' line 1: quit takes 0 argument(s)");
  EXPECT_EQ(message("break-on io 0x64 0x60\n"), "script 'lesson.txt' line 1: LAST port is below PORT");
  EXPECT_EQ(message("key F99\n"), "script 'lesson.txt' line 1: no key 'F99' (SDL key names: F11, Return, Space, A)");
  EXPECT_EQ(message("drag 1 2 3\n"), "script 'lesson.txt' line 1: drag takes 4 argument(s)");
}

TEST(GuiScript, ParsesTheWindowPlacementAndWindowScreenshot) {
  const auto commands = parse_script("place 0 20 760 600 VGA text screen\nscreenshot-window out/vga.png VGA text screen\n", "s");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].verb, ScriptVerb::Place);
  EXPECT_EQ(commands[0].number, 0u);
  EXPECT_EQ(commands[0].number2, 20u);
  EXPECT_EQ(commands[0].number3, 760u);
  EXPECT_EQ(commands[0].number4, 600u);
  EXPECT_EQ(commands[0].title, "VGA text screen");
  EXPECT_EQ(commands[1].verb, ScriptVerb::ScreenshotWindow);
  EXPECT_EQ(commands[1].text, "out/vga.png");
  EXPECT_EQ(commands[1].title, "VGA text screen");
  auto message = [](const std::string& text) { return parse_error(text, "s"); };
  EXPECT_EQ(message("place 0 20 760 VGA\n"), "script 's' line 1: the height must be a whole decimal number, not 'VGA'");
  EXPECT_EQ(message("place 0 20 760 600\n"), "script 's' line 1: place needs a window title after X Y WIDTH HEIGHT");
  EXPECT_EQ(message("place 0 20 99999 600 CPU\n"), "script 's' line 1: the width must be at most 16384 pixels");
  EXPECT_EQ(message("screenshot-window vga.png\n"), "script 's' line 1: screenshot-window needs a file path and a window title");
}

TEST(GuiScript, ParsesTheTimeCommands) {
  const auto commands =
      parse_script("back\nback 3\nrun-back\ngoto 25000\nsnapshot save out/a b.snap\nsnapshot load a.snap\n", "t.txt");
  ASSERT_EQ(commands.size(), 6u);
  EXPECT_EQ(commands[0].verb, ScriptVerb::Back);
  EXPECT_EQ(commands[0].number, 1u);
  EXPECT_EQ(commands[1].number, 3u);
  EXPECT_EQ(commands[2].verb, ScriptVerb::RunBack);
  EXPECT_EQ(commands[3].verb, ScriptVerb::GoTo);
  EXPECT_EQ(commands[3].number, 25000u);
  EXPECT_EQ(commands[4].verb, ScriptVerb::SnapshotSave);
  EXPECT_EQ(commands[4].text, "out/a b.snap");
  EXPECT_EQ(commands[5].verb, ScriptVerb::SnapshotLoad);
  EXPECT_EQ(commands[5].text, "a.snap");
  auto message = [](const std::string& text) { return parse_error(text, "t.txt"); };
  EXPECT_EQ(message("goto\n"), "script 't.txt' line 1: goto takes 1 argument(s)");
  EXPECT_EQ(message("goto 0x10\n"), "script 't.txt' line 1: the step must be a whole decimal number, not '0x10'");
  EXPECT_EQ(message("snapshot take x\n"), "script 't.txt' line 1: snapshot takes 'save FILE' or 'load FILE'");
  EXPECT_EQ(message("snapshot load\n"), "script 't.txt' line 1: snapshot load needs a file path");
  EXPECT_EQ(message("run-back 2\n"), "script 't.txt' line 1: run-back takes 0 argument(s)");
}

TEST(GuiScript, ParsesTheInputAndBreakpointCommands) {
  const auto commands = parse_script("key Shift+F11 3\ndrag 10 20 30 40\nbreak-on lock accessed-bit\n", "t.txt");
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].verb, ScriptVerb::Key);
  EXPECT_EQ(commands[0].text, "F11");
  EXPECT_EQ(commands[0].number, 3u);
  EXPECT_EQ(commands[0].number2, u64{KMOD_SHIFT});
  EXPECT_EQ(commands[1].verb, ScriptVerb::Drag);
  EXPECT_EQ(commands[1].number4, 40u);
  EXPECT_EQ(commands[2].verb, ScriptVerb::BreakOn);
  EXPECT_EQ(commands[2].text, "lock accessed-bit");
}

TEST(GuiScript, HexAddressesAcceptThePrefixAndSuffixForms) {
  EXPECT_EQ(parse_hex("1000"), std::optional<u32>(0x1000));
  EXPECT_EQ(parse_hex("0x1000"), std::optional<u32>(0x1000));
  EXPECT_EQ(parse_hex("1000h"), std::optional<u32>(0x1000));
  EXPECT_EQ(parse_hex("FFFFFFFF"), std::optional<u32>(0xFFFFFFFFu));
  EXPECT_FALSE(parse_hex("100000000"));
  EXPECT_FALSE(parse_hex(""));
  EXPECT_FALSE(parse_hex("12g"));
}

}  // namespace
}  // namespace x86lab::gui
