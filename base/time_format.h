// Kubernetes timestamps: metav1.Time is RFC 3339 in UTC with second precision ("2026-01-01T00:00:00Z");
// metav1.MicroTime (Lease times) has microseconds ("2026-01-01T00:00:00.000000Z").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace gangplank::base {

using SystemTime = std::chrono::system_clock::time_point;

std::string FormatTime(SystemTime t);
std::string FormatMicroTime(SystemTime t);
// FormatTime of a time given as seconds since the epoch (the engine's and the operator's clocks).
std::string FormatEpochSeconds(double seconds);
// Accepts both forms (and fractional seconds of any length, 'Z' or a numeric offset). nullopt if malformed.
std::optional<SystemTime> ParseTime(std::string_view text);
// ParseTime as seconds since the epoch (the inverse of FormatEpochSeconds). nullopt if malformed.
std::optional<double> ParseEpochSeconds(std::string_view text);

}  // namespace gangplank::base
