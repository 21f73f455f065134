// The id one admission writes on every member (gangplank.io/admission-id): unique per admission, and it
// tells when the gang was admitted, so a new leader knows a running gang's age without a record of its own.
#pragma once

#include <string>

#include "cache/objects/admission_time.h"

namespace gangplank::op {

// "<seconds since the epoch>-<random hex>".
std::string NewAdmissionId(double now_seconds);
// The admission time an id records (0 when it records none); the cache reads it too (the plan seal).
using cache::AdmittedAt;

}  // namespace gangplank::op
