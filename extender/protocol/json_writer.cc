#include "extender/protocol/json_writer.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace gangplank::extender {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendUnicodeEscape(std::string& out, unsigned code) {
  out += "\\u";
  out += kHex[(code >> 12) & 0xF];
  out += kHex[(code >> 8) & 0xF];
  out += kHex[(code >> 4) & 0xF];
  out += kHex[code & 0xF];
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid; `code` gets the rune.
size_t Utf8Sequence(std::string_view s, size_t i, unsigned& code) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  unsigned min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    code = b0 & 0x1F;
    min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    code = b0 & 0x0F;
    min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    code = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    code = (code << 6) | (b & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

// Bytes that end a plain run: control characters, the quote and backslash, the three HTML characters
// Go escapes, and every non-ASCII byte (checked as UTF-8). A table keeps the hot loop to one load.
constexpr std::array<bool, 256> kEndsRun = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&';
  return t;
}();

// Whether any of eight bytes ends a plain run (kEndsRun), tested on all eight at once: a byte is
// flagged when it is below 0x20 or at/above 0x80, or equals one of the five characters Go escapes.
// (The usual "has a zero byte" tests: a flag may land on the wrong byte, but some flag is set exactly
// when some byte matches, which is all this asks.)
bool AnyEndsRun(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const auto has_zero = [&](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const auto has_byte = [&](char c) { return has_zero(w ^ (kOnes * static_cast<unsigned char>(c))); };
  const std::uint64_t below_0x20 = (w - kOnes * 0x20) & ~w & kHigh;
  return ((below_0x20 | (w & kHigh)) | has_byte('"') | has_byte('\\') | has_byte('<') | has_byte('>') | has_byte('&')) != 0;
}

}  // namespace

bool IsPlainJsonString(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {  // Node names and reasons: a word at a time.
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (AnyEndsRun(w)) return false;
  }
  for (; i < s.size(); ++i) {
    if (kEndsRun[static_cast<unsigned char>(s[i])]) return false;
  }
  return true;
}

void AppendGoJsonString(std::string& out, std::string_view s) {
  // Fast path for what replies are made of (node names, UIDs): short strings that need no escaping,
  // written with one append instead of three.
  constexpr size_t kShort = 126;
  if (s.size() <= kShort && IsPlainJsonString(s)) {
    char quoted[kShort + 2];
    quoted[0] = '"';
    std::memcpy(quoted + 1, s.data(), s.size());
    quoted[s.size() + 1] = '"';
    out.append(quoted, s.size() + 2);
    return;
  }
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // Copy the run of characters that need no escaping in one go (node names are all such).
    size_t run = i;
    while (run < s.size() && !kEndsRun[static_cast<unsigned char>(s[run])]) ++run;
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '<': case '>': case '&': AppendUnicodeEscape(out, c); break;
        default:
          if (c < 0x20) AppendUnicodeEscape(out, c);
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    unsigned code = 0;
    const size_t len = Utf8Sequence(s, i, code);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
    } else if (code == 0x2028 || code == 0x2029) {
      AppendUnicodeEscape(out, code);
      i += len;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  out += '"';
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendGoJsonString(out_, key);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendGoJsonString(out_, value);
  return *this;
}

JsonWriter& JsonWriter::Int(std::int64_t value) {
  BeforeValue();
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  out_.append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
  return *this;
}

}  // namespace gangplank::extender
