#include "cel/quantity.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "cel/value.h"

namespace gangplank::cel {
namespace {

constexpr std::string_view kFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";
constexpr std::string_view kMaxInt64 = "9223372036854775807";
constexpr int64_t kNanoScale = -9;
constexpr int64_t kMaxAlignDigits = 4096;  // how far Add/Sub widen a value to line up two scales

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string StripLeadingZeros(std::string digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// Magnitudes of equal length compare as text; otherwise the longer one is larger.
int CompareDigits(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : c > 0;
}

std::string AddDigits(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    const int x = i < a.size() ? a[a.size() - 1 - i] - '0' : 0;
    const int y = i < b.size() ? b[b.size() - 1 - i] - '0' : 0;
    const int sum = x + y + carry;
    out.push_back(static_cast<char>('0' + sum % 10));
    carry = sum / 10;
  }
  std::reverse(out.begin(), out.end());
  return StripLeadingZeros(std::move(out));
}

// a - b for a >= b.
std::string SubDigits(const std::string& a, const std::string& b) {
  std::string out;
  int borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    int x = a[a.size() - 1 - i] - '0' - borrow;
    const int y = i < b.size() ? b[b.size() - 1 - i] - '0' : 0;
    borrow = x < y;
    if (borrow) x += 10;
    out.push_back(static_cast<char>('0' + x - y));
  }
  std::reverse(out.begin(), out.end());
  return StripLeadingZeros(std::move(out));
}

std::string DoubleDigits(const std::string& digits) { return AddDigits(digits, digits); }

struct Suffix {
  int base = 10;
  int64_t exponent = 0;
};

std::optional<Suffix> InterpretSuffix(std::string_view suffix) {
  static const std::pair<std::string_view, int> decimal[] = {{"", 0},  {"n", -9}, {"u", -6}, {"m", -3}, {"k", 3},
                                                             {"M", 6}, {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<std::string_view, int> binary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                            {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [text, exponent] : decimal) {
    if (suffix == text) return Suffix{10, exponent};
  }
  for (const auto& [text, exponent] : binary) {
    if (suffix == text) return Suffix{2, exponent};
  }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  const std::string number(suffix.substr(1));
  const std::size_t sign = number[0] == '+' || number[0] == '-' ? 1 : 0;
  if (number.size() == sign || !std::all_of(number.begin() + static_cast<std::ptrdiff_t>(sign), number.end(), IsDigit)) {
    return std::nullopt;
  }
  if (number.size() - sign > 9) return std::nullopt;  // past what the int32 scale apimachinery keeps holds
  return Suffix{10, std::strtoll(number.c_str(), nullptr, 10)};
}

std::optional<Quantity> Fail(std::string_view message, std::string* error) {
  if (error != nullptr) *error = std::string(message);
  return std::nullopt;
}

}  // namespace

Quantity::Quantity(int64_t value)
    : negative_(value < 0),
      digits_(value < 0 ? std::to_string(value).substr(1) : std::to_string(value)) {
  Normalize();
}

Quantity::Quantity(bool negative, std::string digits, int64_t scale)
    : negative_(negative), digits_(std::move(digits)), scale_(scale) {
  Normalize();
}

void Quantity::Normalize() {
  digits_ = StripLeadingZeros(std::move(digits_));
  if (digits_ == "0") {
    negative_ = false;
    scale_ = 0;
    return;
  }
  const std::size_t last = digits_.find_last_not_of('0');
  scale_ += static_cast<int64_t>(digits_.size() - 1 - last);
  digits_.resize(last + 1);
}

Quantity Quantity::Parse(std::string_view text) {
  std::string error;
  std::optional<Quantity> q = TryParse(text, &error);
  if (!q) throw EvalError(error);
  return *q;
}

// The scan follows apimachinery's parseQuantityString: sign, number, optional fraction, then a suffix of
// suffix letters, an optional sign and digits.
std::optional<Quantity> Quantity::TryParse(std::string_view text, std::string* error) {
  if (text.empty()) return Fail(kFormatError, error);
  std::size_t pos = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') ++pos;
  if (pos == text.size()) return Quantity();
  const std::size_t num_start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  std::string num(text.substr(num_start, pos - num_start));
  std::string denom;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t denom_start = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    denom = std::string(text.substr(denom_start, pos - denom_start));
  }
  const std::size_t suffix_start = pos;
  while (pos < text.size() && std::string_view("eEinumkKMGTP").find(text[pos]) != std::string_view::npos) ++pos;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) ++pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  if (pos < text.size()) return Fail(kFormatError, error);
  const std::optional<Suffix> suffix = InterpretSuffix(text.substr(suffix_start));
  if (!suffix) return Fail(kSuffixError, error);

  std::string digits = StripLeadingZeros(num + denom);
  int64_t scale = -static_cast<int64_t>(denom.size());
  if (suffix->base == 10) {
    scale += suffix->exponent;
  } else {
    for (int64_t i = 0; i < suffix->exponent; ++i) digits = DoubleDigits(digits);
  }
  // Below one nano the magnitude is rounded up (away from zero) to the next nano.
  if (scale < kNanoScale && digits != "0") {
    const int64_t drop = kNanoScale - scale;
    if (drop >= static_cast<int64_t>(digits.size())) {
      digits = "1";
    } else {
      const auto keep = digits.size() - static_cast<std::size_t>(drop);
      const bool rest = digits.find_first_not_of('0', keep) != std::string::npos;
      digits = digits.substr(0, keep);
      if (rest) digits = AddDigits(digits, "1");
    }
    scale = kNanoScale;
  }
  if (suffix->base == 2 && scale >= 0 &&
      (static_cast<int64_t>(digits.size()) + scale > static_cast<int64_t>(kMaxInt64.size()) ||
       CompareDigits(digits + std::string(static_cast<std::size_t>(scale), '0'), std::string(kMaxInt64)) > 0)) {
    digits = std::string(kMaxInt64);  // apimachinery caps binary quantities at the largest int64
    scale = 0;
  }
  return Quantity(negative, std::move(digits), scale);
}

int Quantity::Compare(const Quantity& other) const {
  if (Sign() != other.Sign()) return Sign() < other.Sign() ? -1 : 1;
  if (Sign() == 0) return 0;
  // Same sign: compare magnitudes by the position of the leading digit, then digit by digit.
  int magnitude = 0;
  const int64_t order = static_cast<int64_t>(digits_.size()) + scale_;
  const int64_t other_order = static_cast<int64_t>(other.digits_.size()) + other.scale_;
  if (order != other_order) {
    magnitude = order < other_order ? -1 : 1;
  } else {
    const std::size_t n = std::max(digits_.size(), other.digits_.size());
    for (std::size_t i = 0; i < n && magnitude == 0; ++i) {
      const char x = i < digits_.size() ? digits_[i] : '0';
      const char y = i < other.digits_.size() ? other.digits_[i] : '0';
      magnitude = x < y ? -1 : x > y;
    }
  }
  return negative_ ? -magnitude : magnitude;
}

Quantity Quantity::Add(const Quantity& other) const {
  if (other.Sign() == 0) return *this;
  if (Sign() == 0) return other;
  const int64_t scale = std::min(scale_, other.scale_);
  if (scale_ - scale > kMaxAlignDigits || other.scale_ - scale > kMaxAlignDigits) throw EvalError("quantity out of range");
  const std::string a = digits_ + std::string(static_cast<std::size_t>(scale_ - scale), '0');
  const std::string b = other.digits_ + std::string(static_cast<std::size_t>(other.scale_ - scale), '0');
  if (negative_ == other.negative_) return Quantity(negative_, AddDigits(a, b), scale);
  const int c = CompareDigits(StripLeadingZeros(a), StripLeadingZeros(b));
  if (c == 0) return Quantity();
  return c > 0 ? Quantity(negative_, SubDigits(a, b), scale) : Quantity(other.negative_, SubDigits(b, a), scale);
}

Quantity Quantity::Sub(const Quantity& other) const {
  Quantity negated = other;
  if (negated.Sign() != 0) negated.negative_ = !negated.negative_;
  return Add(negated);
}

std::optional<int64_t> Quantity::AsInt64() const {
  if (Sign() == 0) return 0;
  const auto max_digits = static_cast<int64_t>(kMaxInt64.size());
  if (scale_ < 0 || static_cast<int64_t>(digits_.size()) + scale_ > max_digits) return std::nullopt;
  const std::string whole = digits_ + std::string(static_cast<std::size_t>(scale_), '0');
  const std::string limit = negative_ ? "9223372036854775808" : std::string(kMaxInt64);
  if (CompareDigits(whole, limit) > 0) return std::nullopt;
  if (negative_ && whole == limit) return INT64_MIN;
  const int64_t magnitude = std::strtoll(whole.c_str(), nullptr, 10);
  return negative_ ? -magnitude : magnitude;
}

double Quantity::AsApproximateDouble() const {
  const std::string text = (negative_ ? "-" : "") + digits_ + "e" + std::to_string(scale_);
  return std::strtod(text.c_str(), nullptr);
}

std::string Quantity::ToString() const {
  const std::string sign = negative_ ? "-" : "";
  const auto size = static_cast<int64_t>(digits_.size());
  if (scale_ >= 0 && size + scale_ <= 30) return sign + digits_ + std::string(static_cast<std::size_t>(scale_), '0');
  if (scale_ < 0 && -scale_ <= 30) {
    const auto point = static_cast<std::size_t>(size + scale_);
    if (-scale_ < size) return sign + digits_.substr(0, point) + "." + digits_.substr(point);
    return sign + "0." + std::string(static_cast<std::size_t>(-scale_ - size), '0') + digits_;
  }
  return sign + digits_ + "e" + std::to_string(scale_);
}

}  // namespace gangplank::cel
