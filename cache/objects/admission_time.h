// When an admission happened, as its id says (gangplank.io/admission-id is "<seconds since the epoch>-<random
// hex>", operator/gangs/admission_id.h): a new leader reads a running gang's age from it, and the plan seal
// how old a plan is.
#pragma once

#include <string_view>

namespace gangplank::cache {

// The admission time an id records, in seconds since the epoch (0 when it records none).
double AdmittedAt(std::string_view admission_id);

}  // namespace gangplank::cache
