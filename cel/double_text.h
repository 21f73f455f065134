// A double as cel-go's string(double) writes it, which is Go's %g (and %v) with the shortest digits:
// exponent form when the exponent is below -4 or from 6 up ("1e+06", "1.5", "1e-05"), NaN, +Inf, -Inf.
#pragma once

#include <string>

namespace gangplank::cel {

std::string DoubleText(double value);

}  // namespace gangplank::cel
