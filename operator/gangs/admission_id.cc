#include "operator/gangs/admission_id.h"

#include <charconv>
#include <cstdio>
#include <random>

namespace gangplank::op {

std::string NewAdmissionId(double now_seconds) {
  std::random_device random;  // Admissions are rare: no generator to keep between calls.
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%lld-%08x", static_cast<long long>(now_seconds), static_cast<unsigned>(random()));
  return buffer;
}

double AdmittedAt(const std::string& admission_id) {
  long long seconds = 0;
  auto [end, ec] = std::from_chars(admission_id.data(), admission_id.data() + admission_id.size(), seconds);
  if (ec != std::errc() || end == admission_id.data() || seconds <= 0) return 0;
  return static_cast<double>(seconds);
}

}  // namespace gangplank::op
