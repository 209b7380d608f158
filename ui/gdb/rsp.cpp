// GDB remote protocol framing (rsp.h).
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {

namespace {
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr char kDigits[] = "0123456789abcdef";
}  // namespace

void PacketDecoder::feed(std::span<const char> bytes, std::vector<Incoming>& out) {
  for (const char c : bytes) {
    switch (state_) {
      case State::Idle:
        if (c == '$') {
          state_ = State::Payload;
          payload_.clear();
          sum_ = 0;
          oversized_ = false;
        } else if (c == '\x03') {
          out.push_back({Incoming::Kind::Interrupt, {}});
        }
        break;  // '+', '-' and anything else between packets: nothing to do
      case State::Payload:
        if (c == '#') {
          state_ = State::Checksum1;
          break;
        }
        if (c == '$') {  // a new packet start abandons a broken one (binary data escapes '$')
          payload_.clear();
          sum_ = 0;
          oversized_ = false;
          break;
        }
        sum_ = static_cast<u8>(sum_ + static_cast<u8>(c));
        if (payload_.size() >= kMaxPayload) oversized_ = true;
        else payload_ += c;
        break;
      case State::Checksum1:
        first_digit_ = hex_digit(c);
        state_ = State::Checksum2;
        break;
      case State::Checksum2: {
        const int second = hex_digit(c);
        state_ = State::Idle;
        if (oversized_) {
          out.push_back({Incoming::Kind::Oversized, {}});
        } else if (first_digit_ < 0 || second < 0 || ((first_digit_ << 4) | second) != sum_) {
          out.push_back({Incoming::Kind::BadChecksum, {}});
        } else {
          out.push_back({Incoming::Kind::Packet, std::move(payload_)});
        }
        payload_.clear();
        break;
      }
    }
  }
}

std::string frame(std::string_view payload) {
  std::string text = "$";
  u8 sum = 0;
  for (const char c : payload) {
    if (c == '$' || c == '#' || c == '}' || c == '*') {
      text += '}';
      sum = static_cast<u8>(sum + '}');
      const char escaped = static_cast<char>(c ^ 0x20);
      text += escaped;
      sum = static_cast<u8>(sum + static_cast<u8>(escaped));
    } else {
      text += c;
      sum = static_cast<u8>(sum + static_cast<u8>(c));
    }
  }
  text += '#';
  text += kDigits[sum >> 4];
  text += kDigits[sum & 15];
  return text;
}

std::string unescape(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '}' && i + 1 < data.size()) out += static_cast<char>(data[++i] ^ 0x20);
    else out += data[i];
  }
  return out;
}

std::string to_hex(std::span<const u8> bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const u8 b : bytes) {
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

std::string to_hex(std::string_view text) {
  return to_hex(std::span(reinterpret_cast<const u8*>(text.data()), text.size()));
}

bool from_hex(std::string_view text, std::vector<u8>& out) {
  if (text.size() % 2) return false;
  out.clear();
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<u8>(hi << 4 | lo));
  }
  return true;
}

std::string hex_le(u64 value, unsigned bytes) {
  std::string text;
  for (unsigned i = 0; i < bytes; ++i) {
    const u8 b = static_cast<u8>(value >> (8 * i));
    text += kDigits[b >> 4];
    text += kDigits[b & 15];
  }
  return text;
}

bool parse_hex(std::string_view text, u64& value) {
  if (text.empty() || text.size() > 16) return false;
  value = 0;
  for (const char c : text) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    value = value << 4 | static_cast<u64>(d);
  }
  return true;
}

}  // namespace x86lab::gdb
