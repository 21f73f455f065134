// Kubernetes resource quantities as CEL values (`quantity('40Gi')`, DRA capacities): exact decimals parsed
// as apimachinery's ParseQuantity does (decimal SI, binary SI and exponent suffixes; values below 1n
// rounded up to 1n, binary values capped at 2^63-1), compared and added exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gangplank::cel {

class Quantity {
 public:
  Quantity() = default;  // zero
  explicit Quantity(int64_t value);

  // Throws EvalError with apimachinery's message when `text` is not a quantity.
  static Quantity Parse(std::string_view text);
  // Null (and `error` set) when `text` is not a quantity.
  static std::optional<Quantity> TryParse(std::string_view text, std::string* error = nullptr);

  int Compare(const Quantity& other) const;  // -1, 0, 1
  int Sign() const { return digits_ == "0" ? 0 : negative_ ? -1 : 1; }
  Quantity Add(const Quantity& other) const;  // throws EvalError("quantity out of range") past 4096 digits
  Quantity Sub(const Quantity& other) const;
  // The value when it is a whole number within int64; nullopt otherwise.
  std::optional<int64_t> AsInt64() const;
  double AsApproximateDouble() const;
  // Plain decimal text ("1610612736", "0.5", "-3"), exponent form past 30 digits; not apimachinery's
  // canonical form (which would say "1536Mi").
  std::string ToString() const;

  bool operator==(const Quantity& other) const { return Compare(other) == 0; }

 private:
  Quantity(bool negative, std::string digits, int64_t scale);
  void Normalize();

  bool negative_ = false;
  std::string digits_ = "0";  // magnitude, decimal digits without leading zeros
  int64_t scale_ = 0;         // value = digits_ x 10^scale_
};

}  // namespace gangplank::cel
