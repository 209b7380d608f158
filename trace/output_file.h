// An output file of a run: a trace, a console log, the statistics (README "Exit
// status"). A failed run leaves no half-written output and does not empty a file it
// was asked to write before it started: the file is opened without truncation, so bad
// input found after the outputs are open leaves an existing file as it was (and
// removes one the run created); start() empties it just before the run writes, and
// finish() flushes and closes it and reports a write error (a full disk, /dev/full),
// removing the partial file (the file itself: a symbolic link to it stays). Character
// devices, FIFOs and paths under /dev/ and /proc/ (/dev/stdout, /dev/fd/N: often a file
// the shell opened) are written as they are: never truncated or removed.
#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace x86lab {

// An output file that cannot be opened or written: one line naming the file and the
// reason; the CLI exits with status 2.
class OutputError : public std::runtime_error {
 public:
  explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

class OutputFile {
 public:
  // Opens `path` for writing, creating it if needed, without touching its contents.
  // `role` names it in messages ("trace file", "--stats-json file"). Throws
  // OutputError "cannot open <role> '<path>': <reason>".
  OutputFile(std::string path, std::string role);
  // Without finish(): a file that was never started is left as it was (removed if
  // this object created it); a started one is closed as it is.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The stream to write to. Writes before start() are buffered and dropped if the run
  // never starts (at most one stdio buffer, for headers written at construction).
  std::FILE* stream() const { return file_; }
  // Empties a regular file; call once, after every input has been checked.
  void start();
  // Flushes and closes the stream (without start(), what was written replaces the
  // old contents). On a write or close error it removes a regular file and throws
  // OutputError "cannot write <role> '<path>': <reason>".
  void finish();
  const std::string& path() const { return path_; }

 private:
  std::string path_, role_;
  std::FILE* file_ = nullptr;  // over fd_, keeping a write error's errno in write_error_
  int fd_ = -1;
  int write_error_ = 0;
  // A regular file's own path (symbolic links resolved): what start() empties and a
  // failure removes; empty for a device, FIFO or stream.
  std::string removal_path_;
  bool regular() const { return !removal_path_.empty(); }
  bool created_ = false;   // this object created it
  bool started_ = false;
};

// Writes `bytes` as the whole file at `path` through an OutputFile: on any error the
// file is removed and OutputError names it (`role`) and the reason.
void write_whole_file(const std::string& path, std::string_view bytes, const std::string& role);

}  // namespace x86lab
