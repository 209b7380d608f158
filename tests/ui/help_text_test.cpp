// --help's layout (ui/help_text.h): descriptions wrap at word boundaries, and a word
// longer than the description column breaks after a ',', '|', '/' or '-' (issue 39:
// Boost.Program_options cut "tlb-miss" into "t" / "lb-miss" in `x86lab run --help`).
#include "ui/help_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "run_x86lab.h"

namespace x86lab {
namespace {

TEST(HelpText, WordsWrapAtSpaces) {
  EXPECT_EQ(wrap_words("one two three four", 2, 2, 12), "one two\n  three four");
}

TEST(HelpText, AWordLongerThanALineBreaksAfterACommaOrDash) {
  EXPECT_EQ(wrap_words("(insn,reg,mem,seg,tlb-miss,halt)", 0, 0, 16), "(insn,reg,mem,\nseg,tlb-miss,\nhalt)");
  EXPECT_EQ(wrap_words("X86LAB-WORKLOAD-BEGIN..X86LAB-WORKLOAD-END", 0, 0, 20),
            "X86LAB-WORKLOAD-\nBEGIN..X86LAB-\nWORKLOAD-END");
}

TEST(HelpText, AWordWithoutABreakCharacterIsCutAtTheWidth) {
  EXPECT_EQ(wrap_words("abcdefghijkl", 0, 0, 5), "abcde\nfghij\nkl");
}

// Every subcommand's --help: no line over 80 characters; and in `run --help`, the
// descriptions joined again (a line that ends after ',', '|', '/' or '-' continues a
// word, any other a space) hold the long words whole: Boost's own wrapping gave
// "walk,t" / "lb-miss" and "X86LAB-WORKLOAD-" / "END)" at 80 columns.
TEST(HelpText, EverySubcommandsHelpFitsAndBreaksLongWordsAfterPunctuation) {
  for (const char* command : {"run", "gui", "compare", "compare sweep"}) {
    const testing::Outcome outcome = testing::run_x86lab(std::string(command) + " --help");
    ASSERT_EQ(outcome.status, 0) << command;
    std::istringstream lines(outcome.output);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << command << ": " << line;
  }
  const testing::Outcome run = testing::run_x86lab("run --help");
  std::istringstream lines(run.output);
  std::string joined;
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const char last = joined.empty() ? ' ' : joined.back();
    if (last != ',' && last != '-' && last != '|' && last != '/') joined += ' ';
    joined += line.substr(first);
  }
  EXPECT_NE(joined.find("(insn,reg,mem,seg,exc,task,io,cr,walk,tlb-miss,halt,wake,"), std::string::npos) << joined;
  EXPECT_NE(joined.find("X86LAB-WORKLOAD-BEGIN..X86LAB-WORKLOAD-END)"), std::string::npos) << joined;
}

}  // namespace
}  // namespace x86lab
