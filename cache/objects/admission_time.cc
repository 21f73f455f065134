#include "cache/objects/admission_time.h"

#include <charconv>

namespace gangplank::cache {

double AdmittedAt(std::string_view admission_id) {
  long long seconds = 0;
  auto [end, ec] = std::from_chars(admission_id.data(), admission_id.data() + admission_id.size(), seconds);
  if (ec != std::errc() || end == admission_id.data() || seconds <= 0) return 0;
  return static_cast<double>(seconds);
}

}  // namespace gangplank::cache
