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

// A wait told to a person, to the minute below a day and to the hour above: "~2 h 10 m", "~3 d 4 h",
// "~45 m", "under a minute"; "an unknown time" for infinity.
std::string RoughDuration(double seconds);

}  // namespace gangplank::engine
