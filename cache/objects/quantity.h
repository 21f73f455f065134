// Kubernetes resource quantities ("2", "95690m", "128Gi", "1e3", "1.5k") as in
// k8s.io/apimachinery/pkg/api/resource: a signed decimal number, then at most one suffix — a binary
// one (Ki Mi Gi Ti Pi Ei), a decimal SI one (n u m k M G T P E) or a decimal exponent (e3, E-2).
#pragma once

#include <cstdint>
#include <string_view>

namespace gangplank::cache {

// The quantity in thousandths of its unit, rounded up as Quantity.MilliValue() does ("95690m" -> 95690,
// "2" -> 2000). Saturates at INT64_MAX / INT64_MIN. Throws DecodeError naming the text when malformed.
std::int64_t ParseQuantityMilli(std::string_view text);

// The quantity in whole units, rounded up as Quantity.Value() does ("128Gi" -> 137438953472,
// "100m" -> 1). Saturates like ParseQuantityMilli.
std::int64_t ParseQuantityValue(std::string_view text);

}  // namespace gangplank::cache
