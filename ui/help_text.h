// The options of a subcommand as `--help` prints them: Boost.Program_options' layout
// (the option column, then the description), with the descriptions wrapped at word
// boundaries. Boost breaks a word longer than the description column anywhere
// ("X86LAB-WORKLOAD-" / "END)"); here such a word breaks after a ',', '|', '/' or
// '-', and only a word without one is cut at the column.
#pragma once
#include <boost/program_options/options_description.hpp>
#include <ostream>
#include <string>

namespace x86lab {

// Lines at most `width` characters (80), descriptions from column 40 (names longer
// than 37 characters get a line of their own), captions and blank lines as Boost
// prints them.
std::string format_options(const boost::program_options::options_description& options, unsigned width = 80);

// Wraps `text` into lines of at most `width - indent` characters, each after `indent`
// spaces except the first, which starts at column `first_column` (the caller has
// written that much of it). Breaks at spaces, else after ',', '|', '/' or '-' in a
// word too long for a line, else at the width.
std::string wrap_words(const std::string& text, unsigned indent, unsigned first_column, unsigned width);

}  // namespace x86lab
