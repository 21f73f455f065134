#include "operator/gangs/gang_annotations.h"

#include <algorithm>
#include <chrono>

#include "base/time_format.h"

namespace gangplank::op {

std::optional<double> LatestAnnotatedTime(const Gang& gang, std::string_view key) {
  std::optional<double> out;
  for (const Member& m : gang.members) {
    auto it = m.pod.annotations.find(std::string(key));
    if (it == m.pod.annotations.end()) continue;
    if (const std::optional<double> seconds = base::ParseEpochSeconds(it->second)) {
      out = std::max(out.value_or(*seconds), *seconds);
    }
  }
  return out;
}

bool AnyMemberAnnotated(const Gang& gang, std::string_view key) {
  return std::any_of(gang.members.begin(), gang.members.end(), [&](const Member& m) { return m.pod.HasAnnotation(key); });
}

bool AnyMemberAnnotatedWith(const Gang& gang, std::string_view key, std::string_view value) {
  return std::any_of(gang.members.begin(), gang.members.end(),
                     [&](const Member& m) { return m.pod.HasAnnotation(key) && m.pod.Annotation(key) == value; });
}

}  // namespace gangplank::op
