// ELF32 symbol-table reading with the structures of <elf.h>.
#include "ui/gui/elf_symbols.h"

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "platform/input_error.h"

namespace x86lab::gui {

namespace {
template <class T>
bool read_at(const std::string& file, std::size_t offset, T& out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, file.data() + offset, sizeof(T));
  return true;
}
}  // namespace

ElfSymbols ElfSymbols::load(const std::filesystem::path& path) {
  const std::string file = read_input_text(path.string(), "symbol file", kAnyInputSize);
  Elf32_Ehdr header;
  if (!read_at(file, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS32 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    throw InputError("symbol file '" + path.string() + "' is not a little-endian ELF32 file");
  ElfSymbols symbols;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf32_Shdr section;
    if (!read_at(file, header.e_shoff + std::size_t{i} * header.e_shentsize, section)) break;
    if (section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM) continue;
    Elf32_Shdr strings;
    if (!read_at(file, header.e_shoff + std::size_t{section.sh_link} * header.e_shentsize, strings)) continue;
    for (std::size_t at = section.sh_offset; at + sizeof(Elf32_Sym) <= std::size_t{section.sh_offset} + section.sh_size;
         at += sizeof(Elf32_Sym)) {
      Elf32_Sym symbol;
      if (!read_at(file, at, symbol)) break;
      const unsigned type = ELF32_ST_TYPE(symbol.st_info);
      if (symbol.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)) continue;
      const std::size_t name_at = std::size_t{strings.sh_offset} + symbol.st_name;
      if (symbol.st_name == 0 || name_at >= file.size()) continue;
      const char* name = file.data() + name_at;
      const std::size_t length = strnlen(name, file.size() - name_at);
      if (length == 0 || name[0] == '.' || name[0] == '$') continue;
      symbols.add(symbol.st_value, symbol.st_size, std::string(name, length));
    }
  }
  return symbols;
}

void ElfSymbols::add(u32 address, u32 size, std::string name) {
  auto [it, inserted] = by_address_.try_emplace(address, Symbol{size, std::move(name)});
  // Prefer a sized symbol (a function) over a label at the same address.
  if (!inserted && it->second.size == 0 && size != 0) it->second = Symbol{size, it->second.name};
}

const std::string* ElfSymbols::at(u32 address) const {
  const auto it = by_address_.find(address);
  return it == by_address_.end() ? nullptr : &it->second.name;
}

std::optional<u32> ElfSymbols::start_of(u32 address) const {
  auto it = by_address_.upper_bound(address);
  if (it == by_address_.begin()) return std::nullopt;
  --it;
  const u32 reach = it->second.size ? it->second.size : 0x10000;
  if (address - it->first >= reach) return std::nullopt;
  return it->first;
}

std::string ElfSymbols::describe(u32 address) const {
  const auto start = start_of(address);
  if (!start) return {};
  const std::string& name = by_address_.at(*start).name;
  if (*start == address) return name;
  char offset[16];
  std::snprintf(offset, sizeof offset, "+0x%X", address - *start);
  return name + offset;
}

}  // namespace x86lab::gui
