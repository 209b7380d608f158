// Framing of the GDB Remote Serial Protocol (GDB manual, "Overview" of "GDB Remote
// Serial Protocol"): packets "$payload#cc" with a modulo-256 checksum in two hex
// digits, '+'/'-' acknowledgements, the interrupt byte 03h outside packets, and the
// '}' escape (next byte XOR 20h) of binary data.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/types.h"

namespace x86lab::gdb {

// The largest payload the stub accepts (advertised as PacketSize in qSupported).
inline constexpr std::size_t kMaxPayload = 16384;

// What the byte stream from gdb carries, in order.
struct Incoming {
  enum class Kind : u8 {
    Packet,       // a packet with a good checksum: `payload` (escapes left in place)
    BadChecksum,  // a packet whose checksum did not match: answer '-'
    Oversized,    // a packet longer than kMaxPayload (discarded): answer '+' and an error
    Interrupt,    // 03h outside a packet (Ctrl-C)
  } kind;
  std::string payload;
};

// Splits the byte stream into Incoming items; any byte sequence is accepted (bytes
// outside packets other than 03h are ignored, acknowledgements included; a '$' inside
// a packet starts it over).
class PacketDecoder {
 public:
  void feed(std::span<const char> bytes, std::vector<Incoming>& out);

 private:
  enum class State : u8 { Idle, Payload, Checksum1, Checksum2 };
  State state_ = State::Idle;
  std::string payload_;
  u8 sum_ = 0;
  int first_digit_ = 0;
  bool oversized_ = false;
};

// "$payload#cc" with '$', '#', '}' and '*' in the payload escaped.
std::string frame(std::string_view payload);
// A payload of one kind letter and a body ("T05", "O" + hex text).
inline std::string packet(char kind, std::string_view body) {
  std::string text(1, kind);
  text += body;
  return text;
}
// Undoes the '}' escape of binary packet data (X packets).
std::string unescape(std::string_view data);

// Hex text of bytes (two lower-case digits a byte) and back; from_hex returns false on
// a non-hex digit or an odd length.
std::string to_hex(std::span<const u8> bytes);
std::string to_hex(std::string_view text);
bool from_hex(std::string_view text, std::vector<u8>& out);
// A little-endian register image of `bytes` bytes of `value`.
std::string hex_le(u64 value, unsigned bytes);
// Parses a hex number (no prefix, at most 16 digits); false on anything else.
bool parse_hex(std::string_view text, u64& value);

}  // namespace x86lab::gdb
