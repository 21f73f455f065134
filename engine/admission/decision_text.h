// Number formats of the sentences an admission decision carries (Kubernetes events and conditions).
#pragma once

#include <string>

namespace gangplank::engine {

// `v` with `digits` decimals: Fixed(2.04) == "2.0".
std::string Fixed(double v, int digits = 1);

// A count that is usually whole: "64" for 64, "7.5" for 7.5.
std::string Amount(double v);

// Seconds as Go (and kubectl) print durations, to the second: "45s", "30m0s", "2h5m0s".
std::string GoDuration(double seconds);

}  // namespace gangplank::engine
