#include "base/base64.h"

#include <array>
#include <cstdint>
#include <stdexcept>

namespace gangplank::base {
namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Six bits at a time, most significant first; the last group padded with '=' when `pad`.
std::string Encode(std::string_view bytes, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(buffer >> bits) & 0x3f]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 0x3f]);
  if (pad) {
    while (out.size() % 4 != 0) out.push_back('=');
  }
  return out;
}

constexpr std::array<std::int8_t, 256> MakeDecodeTable() {
  std::array<std::int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kStandard[i])] = static_cast<std::int8_t>(i);
  return table;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) { return Encode(bytes, kStandard, true); }

std::string Base64UrlEncode(std::string_view bytes) { return Encode(bytes, kUrl, false); }

std::string Base64Decode(std::string_view text) {
  static constexpr auto kTable = MakeDecodeTable();
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  std::size_t padding = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) throw std::invalid_argument("base64: data after padding");
    const std::int8_t v = kTable[static_cast<unsigned char>(c)];
    if (v < 0) throw std::invalid_argument("base64: invalid character");
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  if (padding > 2 || bits >= 6) throw std::invalid_argument("base64: truncated input");
  return out;
}

}  // namespace gangplank::base
