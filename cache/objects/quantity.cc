#include "cache/objects/quantity.h"

#include <limits>
#include <string>

#include "cache/objects/decode_error.h"

namespace gangplank::cache {
namespace {

__extension__ typedef __int128 Wide;  // Headroom for mantissa x scale before saturating.
constexpr Wide kCap = static_cast<Wide>(std::numeric_limits<std::int64_t>::max());
// More significant digits than this cannot change a result that fits in int64 after scaling.
constexpr int kMaxDigits = 30;

[[noreturn]] void Fail(std::string_view text, const std::string& why) {
  throw DecodeError("", "invalid quantity \"" + std::string(text) + "\": " + why);
}

struct Parsed {
  bool negative = false;
  Wide mantissa = 0;
  bool dropped_nonzero_digits = false;  // Digits past kMaxDigits that were not all zero.
  int exp10 = 0;
  int exp2 = 0;
};

// Exponent of a decimal SI suffix, or false when `s` is not one.
bool DecimalSuffix(std::string_view s, int& exp10) {
  if (s.empty()) {
    exp10 = 0;
    return true;
  }
  if (s.size() != 1) return false;
  switch (s[0]) {
    case 'n': exp10 = -9; return true;
    case 'u': exp10 = -6; return true;
    case 'm': exp10 = -3; return true;
    case 'k': exp10 = 3; return true;
    case 'M': exp10 = 6; return true;
    case 'G': exp10 = 9; return true;
    case 'T': exp10 = 12; return true;
    case 'P': exp10 = 15; return true;
    case 'E': exp10 = 18; return true;
    default: return false;
  }
}

bool BinarySuffix(std::string_view s, int& exp2) {
  if (s.size() != 2 || s[1] != 'i') return false;
  static constexpr std::string_view kLetters = "KMGTPE";
  const auto at = kLetters.find(s[0]);
  if (at == std::string_view::npos) return false;
  exp2 = 10 * static_cast<int>(at + 1);
  return true;
}

Parsed Parse(std::string_view text) {
  if (text.empty()) Fail(text, "empty");
  Parsed p;
  size_t i = 0;
  if (text[i] == '+' || text[i] == '-') p.negative = text[i++] == '-';
  int digits = 0, significant = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (seen_point) Fail(text, "two decimal points");
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digits;
    if (significant == 0 && c == '0') {
      if (seen_point) --p.exp10;
      continue;
    }
    if (significant < kMaxDigits) {
      p.mantissa = p.mantissa * 10 + (c - '0');
      ++significant;
      if (seen_point) --p.exp10;
    } else {
      if (c != '0') p.dropped_nonzero_digits = true;
      if (!seen_point) ++p.exp10;
    }
  }
  if (digits == 0) Fail(text, "no digits");
  const std::string_view suffix = text.substr(i);
  int exp10 = 0;
  if (DecimalSuffix(suffix, exp10)) {
    p.exp10 += exp10;
  } else if (BinarySuffix(suffix, p.exp2)) {
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view e = suffix.substr(1);
    bool negative_exp = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      negative_exp = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty() || e.size() > 3) Fail(text, "bad exponent");
    int value = 0;
    for (char c : e) {
      if (c < '0' || c > '9') Fail(text, "bad exponent");
      value = value * 10 + (c - '0');
    }
    p.exp10 += negative_exp ? -value : value;
  } else {
    Fail(text, "unknown suffix \"" + std::string(suffix) + "\"");
  }
  return p;
}

// ceil(|mantissa| * 2^exp2 * 10^exp10), saturated at kCap.
Wide ScaleUp(const Parsed& p, int extra_exp10) {
  Wide v = p.mantissa;
  if (v == 0) return 0;
  for (int k = 0; k < p.exp2; ++k) {
    v *= 2;
    if (v > kCap) return kCap;
  }
  int e = p.exp10 + extra_exp10;
  for (; e > 0; --e) {
    v *= 10;
    if (v > kCap) return kCap;
  }
  bool remainder = p.dropped_nonzero_digits;
  for (; e < 0 && v > 0; ++e) {
    remainder = remainder || v % 10 != 0;
    v /= 10;
  }
  if (remainder) ++v;
  return v > kCap ? kCap : v;
}

std::int64_t Scaled(std::string_view text, int extra_exp10) {
  const Parsed p = Parse(text);
  const Wide magnitude = ScaleUp(p, extra_exp10);
  return static_cast<std::int64_t>(p.negative ? -magnitude : magnitude);
}

}  // namespace

std::int64_t ParseQuantityMilli(std::string_view text) { return Scaled(text, 3); }

std::int64_t ParseQuantityValue(std::string_view text) { return Scaled(text, 0); }

}  // namespace gangplank::cache
