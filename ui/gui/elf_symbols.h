// Symbols of an ELF32 file (a Multiboot kernel or a scenario's guest) for the
// Disassembly window: function and object names by address (System V ABI, "Symbol
// Table"; the layout of <elf.h>).
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "trace/types.h"

namespace x86lab::gui {

class ElfSymbols {
 public:
  ElfSymbols() = default;
  // Reads .symtab (or .dynsym) of an ELF32 little-endian file. Throws InputError
  // naming the file when it cannot be read or is not ELF32; a file without symbols
  // gives an empty table.
  static ElfSymbols load(const std::filesystem::path& path);
  // Adds one symbol (tests, and symbols from other sources).
  void add(u32 address, u32 size, std::string name);

  bool empty() const { return by_address_.empty(); }
  std::size_t size() const { return by_address_.size(); }
  // The symbol that starts exactly at `address`, if any.
  const std::string* at(u32 address) const;
  // "name" or "name+0x12" for the nearest symbol at or below `address` that covers
  // it (within its size, or within 64 KiB when the size is 0); empty if none.
  std::string describe(u32 address) const;
  // The start address of the symbol covering `address` (as describe finds it).
  std::optional<u32> start_of(u32 address) const;

 private:
  struct Symbol {
    u32 size;
    std::string name;
  };
  std::map<u32, Symbol> by_address_;
};

}  // namespace x86lab::gui
