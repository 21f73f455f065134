#include "operator/gangs/admission_id.h"

#include <cstdio>
#include <random>

namespace gangplank::op {

std::string NewAdmissionId(double now_seconds) {
  std::random_device random;  // Admissions are rare: no generator to keep between calls.
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%lld-%08x", static_cast<long long>(now_seconds), static_cast<unsigned>(random()));
  return buffer;
}

}  // namespace gangplank::op
