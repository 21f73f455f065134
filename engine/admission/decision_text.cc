#include "engine/admission/decision_text.h"

#include <cmath>
#include <cstdio>

namespace gangplank::engine {

std::string Fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, v);
  return buffer;
}

std::string Amount(double v) {
  const double whole = std::round(v);
  return std::abs(v - whole) < 1e-9 ? Fixed(whole, 0) : Fixed(v, 1);
}

std::string GoDuration(double seconds) {
  const long long total = std::isfinite(seconds) && seconds > 0 ? std::llround(std::floor(seconds)) : 0;
  const long long h = total / 3600, m = total % 3600 / 60, s = total % 60;
  std::string out;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + std::to_string(s) + "s";
}

std::string RoughDuration(double seconds) {
  if (!std::isfinite(seconds)) return "an unknown time";
  const long long minutes = seconds > 0 ? std::llround(seconds / 60) : 0;
  if (minutes < 1) return "under a minute";
  const long long d = minutes / 1440, h = minutes % 1440 / 60, m = minutes % 60;
  // Appended piece by piece: GCC 12 at -O3 sees a false -Wrestrict in "~" + std::to_string(...).
  std::string text = "~";
  if (d > 0) {
    text.append(std::to_string(d)).append(" d ").append(std::to_string(h)).append(" h");
  } else if (h > 0) {
    text.append(std::to_string(h)).append(" h ").append(std::to_string(m)).append(" m");
  } else {
    text.append(std::to_string(m)).append(" m");
  }
  return text;
}

}  // namespace gangplank::engine
