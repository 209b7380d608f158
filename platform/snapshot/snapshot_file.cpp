// Snapshot file encoding and decoding (snapshot_file.h; the byte layout is in
// docs/snapshots.md, "File format").
#include "platform/snapshot/snapshot_file.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "platform/input_error.h"
#include "trace/input_file.h"
#include "trace/output_file.h"

namespace x86lab {

namespace {

constexpr std::size_t kFileHeaderBytes = 20, kSectionHeaderBytes = 32;
constexpr u32 kStored = 0, kZlib = 1;
// A section inflates to at most the largest RAM plus its page index: a corrupt length
// never asks for more memory than a real snapshot could.
constexpr u64 kMaxSectionBytes = u64{kMaxMemoryMib} * 1024 * 1024 + u64{kMaxMemoryMib} * 256 * 4 + 4;

u32 crc_of(const u8* data, std::size_t size) {
  uLong crc = crc32(0, nullptr, 0);
  while (size) {
    const uInt chunk = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    crc = crc32(crc, data, chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<u32>(crc);
}

void put_u32(std::vector<u8>& out, u32 value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<u8>(value >> (8 * i)));
}
void put_u64(std::vector<u8>& out, u64 value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<u8>(value >> (8 * i)));
}
u32 get_u32(const u8* p) {
  u32 value = 0;
  for (int i = 0; i < 4; ++i) value |= u32{p[i]} << (8 * i);
  return value;
}
u64 get_u64(const u8* p) {
  u64 value = 0;
  for (int i = 0; i < 8; ++i) value |= u64{p[i]} << (8 * i);
  return value;
}

std::vector<u8> deflate_bytes(const std::vector<u8>& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<u8> out(size);
  if (compress2(out.data(), &size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw std::runtime_error("zlib could not compress a snapshot section");
  out.resize(size);
  return out;
}

void add_section(std::vector<u8>& file, const char (&tag)[5], const std::vector<u8>& raw) {
  const std::vector<u8> stored = deflate_bytes(raw);
  const std::size_t start = file.size();
  file.insert(file.end(), tag, tag + 4);
  put_u32(file, kZlib);
  put_u64(file, stored.size());
  put_u64(file, raw.size());
  put_u32(file, crc_of(stored.data(), stored.size()));
  put_u32(file, crc_of(file.data() + start, 28));
  file.insert(file.end(), stored.begin(), stored.end());
}

std::string tag_text(const u8* tag) {
  std::string text;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>(tag[i]);
    text += (c >= 0x20 && c < 0x7F) ? c : '?';
  }
  return text;
}

std::vector<u8> identity_bytes(const MachineState& s) {
  StateArchive a;
  MachineState copy;  // the archive takes references; the state is const
  copy.identity = s.identity;
  std::vector<u8> profile(copy.identity.profile.begin(), copy.identity.profile.end());
  a.field(copy.identity.memory_mib, "memory");
  a.field(copy.identity.cpu_hz, "CPU clock");
  a.field(copy.identity.cost_model_crc, "cost model");
  a.sequence(profile, "profile", 64);
  u64 instructions = s.instructions, steps = s.steps;
  a.field(instructions, "instructions");
  a.field(steps, "steps");
  a.field(copy.identity.cache_model, "cache model");
  return a.take_bytes();
}

std::vector<u8> serial_bytes(const MachineState& s) {
  StateArchive a;
  SerialHost::InputPosition position = s.serial;
  a.field(position.read, "serial input read");
  a.field(position.ended, "serial input ended");
  a.sequence(position.pending, "serial input pending", 1u << 24);
  InputCursor inputs = s.inputs;
  a.field(inputs.serial, "replay log serial bytes taken");
  a.field(inputs.keys, "replay log keys taken");
  return a.take_bytes();
}

std::vector<u8> ram_bytes(const MachineState& s) {
  std::vector<u8> out;
  out.reserve(4 + s.ram.size() * (4 + kPageBytes));
  put_u32(out, static_cast<u32>(s.ram.size()));
  for (const RamPage& page : s.ram) put_u32(out, page.index);
  for (const RamPage& page : s.ram) out.insert(out.end(), page.bytes->begin(), page.bytes->end());
  return out;
}

// Decodes a section with a StateArchive in load mode (into the temporary state).
template <class Transfer>
void decode_archive(const std::vector<u8>& bytes, const char* section, Transfer transfer) {
  try {
    StateArchive a(StateArchive::Mode::Load, bytes);
    transfer(a);
    a.expect_end(section);
  } catch (const StateArchiveError& error) {
    throw InputError(std::string("section ") + section + ": " + error.what());
  }
}

void decode_ram(const std::vector<u8>& bytes, MachineState& s) {
  if (bytes.size() < 4) throw InputError("section RAM: the data ends early");
  const u64 count = get_u32(bytes.data());
  if (bytes.size() != 4 + count * (4 + kPageBytes))
    throw InputError("section RAM: " + std::to_string(count) + " pages do not fit its length");
  const u8* data = bytes.data() + 4 + count * 4;
  s.ram.reserve(count);
  for (u64 i = 0; i < count; ++i) {
    auto page = std::make_shared<PageBytes>();
    std::memcpy(page->data(), data + i * kPageBytes, kPageBytes);
    s.ram.push_back({get_u32(bytes.data() + 4 + i * 4), std::move(page)});
  }
}

}  // namespace

void write_snapshot_bytes(const std::string& path, const std::vector<u8>& bytes);

std::vector<u8> encode_snapshot(const MachineState& s) {
  const std::vector<std::pair<const char(&)[5], std::vector<u8>>> sections = {
      {"IDEN", identity_bytes(s)}, {"BIOS", s.bios},       {"MACH", s.machine}, {"CPU ", s.cpu},
      {"MMU ", s.mmu},             {"DEVS", s.devices},    {"CLCK", s.clock},   {"CNTR", s.counters},
      {"SERI", serial_bytes(s)},   {"RAM ", ram_bytes(s)}};
  std::vector<u8> file(kSnapshotMagic, kSnapshotMagic + 8);
  put_u32(file, kSnapshotVersion);
  put_u32(file, static_cast<u32>(sections.size()));
  put_u32(file, crc_of(file.data(), 16));
  for (const auto& [tag, raw] : sections) add_section(file, tag, raw);
  return file;
}

MachineState decode_snapshot(const std::vector<u8>& file) {
  if (file.size() < kFileHeaderBytes || std::memcmp(file.data(), kSnapshotMagic, 8) != 0)
    throw InputError("not an x86lab snapshot (no X86LSNAP magic at its start)");
  if (crc_of(file.data(), 16) != get_u32(file.data() + 16)) throw InputError("the file header's CRC-32 does not match");
  const u32 version = get_u32(file.data() + 8);
  if (version != kSnapshotVersion)
    throw InputError("snapshot format version " + std::to_string(version) + "; this x86lab reads version " +
                     std::to_string(kSnapshotVersion));
  const u32 count = get_u32(file.data() + 12);
  std::map<std::string, std::vector<u8>> sections;
  std::size_t at = kFileHeaderBytes;
  for (u32 n = 0; n < count; ++n) {
    if (file.size() - at < kSectionHeaderBytes)
      throw InputError("truncated: section " + std::to_string(n + 1) + " of " + std::to_string(count) + " is missing");
    const u8* header = file.data() + at;
    const std::string tag = tag_text(header);
    if (crc_of(header, 28) != get_u32(header + 28)) throw InputError("section " + tag + ": its header's CRC-32 does not match");
    const u32 encoding = get_u32(header + 4);
    const u64 stored = get_u64(header + 8), length = get_u64(header + 16);
    if (encoding != kStored && encoding != kZlib) throw InputError("section " + tag + ": unknown encoding " + std::to_string(encoding));
    if (length > kMaxSectionBytes || (encoding == kStored && stored != length))
      throw InputError("section " + tag + ": impossible length " + std::to_string(length));
    if (stored > file.size() - at - kSectionHeaderBytes) throw InputError("truncated in section " + tag);
    const u8* data = header + kSectionHeaderBytes;
    if (crc_of(data, stored) != get_u32(header + 24)) throw InputError("section " + tag + ": CRC-32 does not match (corrupt)");
    std::vector<u8> raw(length);
    if (encoding == kStored) {
      std::memcpy(raw.data(), data, stored);
    } else {
      uLongf size = static_cast<uLongf>(length);
      if (uncompress(raw.data(), &size, data, static_cast<uLong>(stored)) != Z_OK || size != length)
        throw InputError("section " + tag + ": does not inflate to its length");
    }
    if (!sections.emplace(tag, std::move(raw)).second) throw InputError("section " + tag + " appears twice");
    at += kSectionHeaderBytes + stored;
  }
  if (at != file.size()) throw InputError(std::to_string(file.size() - at) + " bytes after the last section");
  static constexpr const char* kRequired[] = {"IDEN", "BIOS", "MACH", "CPU ", "MMU ", "DEVS", "CLCK", "CNTR", "SERI", "RAM "};
  for (const char* tag : kRequired)
    if (!sections.count(tag)) throw InputError(std::string("section ") + tag + " is missing");
  if (sections.size() != std::size(kRequired)) throw InputError("an unknown section (another x86lab wrote it?)");

  MachineState s;
  decode_archive(sections["IDEN"], "IDEN", [&](StateArchive& a) {
    std::vector<u8> profile;
    a.field(s.identity.memory_mib, "memory", kMaxMemoryMib);
    a.field(s.identity.cpu_hz, "CPU clock");
    a.field(s.identity.cost_model_crc, "cost model");
    a.sequence(profile, "profile", 64);
    s.identity.profile.assign(profile.begin(), profile.end());
    a.field(s.instructions, "instructions");
    a.field(s.steps, "steps");
    a.field(s.identity.cache_model, "cache model");
  });
  s.bios = std::move(sections["BIOS"]);
  s.machine = std::move(sections["MACH"]);
  s.cpu = std::move(sections["CPU "]);
  s.mmu = std::move(sections["MMU "]);
  s.devices = std::move(sections["DEVS"]);
  s.clock = std::move(sections["CLCK"]);
  s.counters = std::move(sections["CNTR"]);
  decode_archive(sections["SERI"], "SERI", [&](StateArchive& a) {
    a.field(s.serial.read, "serial input read");
    a.field(s.serial.ended, "serial input ended");
    a.sequence(s.serial.pending, "serial input pending", 1u << 24);
    a.field(s.inputs.serial, "replay log serial bytes taken");
    a.field(s.inputs.keys, "replay log keys taken");
  });
  decode_ram(sections["RAM "], s);
  return s;
}

void write_snapshot_file(const std::string& path, const MachineState& state) {
  write_snapshot_bytes(path, encode_snapshot(state));
}

void write_snapshot_bytes(const std::string& path, const std::vector<u8>& bytes) {
  const std::string temporary = path + ".partial";
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) throw OutputError("cannot write snapshot '" + path + "': " + std::strerror(errno));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::remove(temporary.c_str());
    throw OutputError("cannot write snapshot '" + path + "'");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    throw OutputError("cannot write snapshot '" + path + "': " + error.message());
  }
}

MachineState read_snapshot_file(const std::string& path) {
  std::vector<u8> bytes;
  if (std::string problem = read_input_file(path, "snapshot", kAnyInputSize, bytes); !problem.empty())
    throw InputError(problem);
  try {
    return decode_snapshot(bytes);
  } catch (const InputError& error) {
    throw InputError("snapshot '" + path + "': " + error.what());
  } catch (const std::bad_alloc&) {
    throw InputError("snapshot '" + path + "': too large for this host's memory");
  }
}

SavedSnapshot save_machine_snapshot(Machine& machine, const std::string& path) {
  const MachineState state = capture_machine_state(machine);
  const std::vector<u8> bytes = encode_snapshot(state);
  write_snapshot_bytes(path, bytes);
  return {path, state.steps, bytes.size()};
}

}  // namespace x86lab
