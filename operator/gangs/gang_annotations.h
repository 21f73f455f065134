// Reading one annotation across a gang's members: the checkpoint protocol's request and acknowledgement
// may sit on any member (spot reclaim and fault recovery both ask every member and take any answer).
#pragma once

#include <optional>
#include <string_view>

#include "operator/gangs/gang_tracker.h"

namespace gangplank::op {

// The annotation's RFC 3339 time, the latest on any member (the newest request or acknowledgement), or
// nullopt; seconds since the epoch.
std::optional<double> LatestAnnotatedTime(const Gang& gang, std::string_view key);
bool AnyMemberAnnotated(const Gang& gang, std::string_view key);
// Whether any member carries the annotation with exactly this value.
bool AnyMemberAnnotatedWith(const Gang& gang, std::string_view key, std::string_view value);

}  // namespace gangplank::op
