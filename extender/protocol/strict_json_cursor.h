// A cursor over JSON text for the hand-written fast paths of the decoder (victims_scanner.h,
// node_names_scanner.h): it accepts only the plain shapes Go writes and reports anything else as a
// failure, so the caller can hand the text to the general simdjson decoder, which decodes it or names
// the error. The text must be followed by a NUL byte (std::string keeps one after its contents): no
// token accepts NUL, so the cursor never needs to compare against the end.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gangplank::extender {

class StrictJsonCursor {
 public:
  explicit StrictJsonCursor(const char* text) : p_(text) {}

  const char* position() const { return p_; }
  // Back to a position() taken earlier, after a failed attempt at a stricter shape.
  void Rewind(const char* position) { p_ = position; }
  // Consumes `text` exactly as written (no whitespace skipped): matching the bytes Go writes in one go
  // is cheaper than taking them token by token. Stops at the first difference, so never passes the NUL.
  bool TakeLiteral(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (p_[i] != text[i]) return false;
    }
    p_ += text.size();
    return true;
  }

  void SkipSpace() {
    while (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t') ++p_;
  }
  // Consumes `c` after optional whitespace.
  bool Take(char c) {
    SkipSpace();
    if (*p_ != c) return false;
    ++p_;
    return true;
  }
  // Consumes the literal null after optional whitespace.
  bool TakeNull() {
    SkipSpace();
    if (std::string_view(p_, 4) != "null") return false;  // NUL-terminated: never reads past it.
    p_ += 4;
    return true;
  }
  // A string with nothing to unescape (no backslash, no control character), viewed in place; clears
  // `plain` when it holds a byte Go's encoder escapes or checks (see IsPlainJsonString).
  bool String(std::string_view& out, bool& plain) {
    if (!Take('"')) return false;
    const char* start = p_;
    unsigned char c = static_cast<unsigned char>(*p_);
    while (kClass[c] == kPlain) c = static_cast<unsigned char>(*++p_);
    while (kClass[c] != kStop) {
      plain = false;
      c = static_cast<unsigned char>(*++p_);
    }
    if (c != '"') return false;  // Escape, control character or the end of the text.
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }
  // An object key and its colon.
  bool Key(std::string_view& key) {
    bool ignored = true;
    return String(key, ignored) && Take(':');
  }
  // Calls item() for each element of an array or member of an object whose opening bracket was just
  // taken, up to and including `close`; false as soon as item() or the punctuation fails.
  template <typename Item>
  bool Elements(char close, Item&& item) {
    if (Take(close)) return true;
    do {
      if (!item()) return false;
    } while (Take(','));
    return Take(close);
  }
  // A non-negative integer of at most 18 digits, so it cannot overflow; anything rarer (a sign, a
  // fraction, an exponent) is left to the general decoder.
  bool SmallNonNegativeInt(std::int64_t& out) {
    SkipSpace();
    const char* start = p_;
    std::int64_t value = 0;
    while (*p_ >= '0' && *p_ <= '9') value = value * 10 + (*p_++ - '0');
    const auto digits = p_ - start;
    if (digits == 0 || digits > 18 || (digits > 1 && *start == '0')) return false;
    if (*p_ == '.' || *p_ == 'e' || *p_ == 'E') return false;
    out = value;
    return true;
  }

 private:
  enum : std::uint8_t { kPlain, kEscapedByGo, kStop };
  // Per byte: ordinary; valid in place but escaped or UTF-8-checked by Go's encoder (<, >, &, and every
  // non-ASCII byte, which simdjson has already validated as UTF-8); or ending the fast path (the
  // closing quote, a backslash, a control character, NUL).
  static constexpr std::array<std::uint8_t, 256> kClass = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
      if (c < 0x20 || c == '"' || c == '\\') t[c] = kStop;
      else if (c >= 0x80 || c == '<' || c == '>' || c == '&') t[c] = kEscapedByGo;
    }
    return t;
  }();

  const char* p_;
};

// Whether a JSON key names a Go field (`field`: ASCII letters only) ignoring ASCII case, as Go's
// decoder matches extender-level keys. Letters differ from their other case in bit 0x20 only.
inline bool KeyIs(std::string_view key, std::string_view field) {
  if (key.size() != field.size()) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c != field[i] && (c | 0x20) != (field[i] | 0x20)) return false;
  }
  return true;
}

}  // namespace gangplank::extender
