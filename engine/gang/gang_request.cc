#include "engine/gang/gang_request.h"

namespace gangplank::engine {

std::string ValidateGang(const GangRequest& gang, const Topology& topology) {
  if (gang.members.empty()) return "gang " + gang.name + " has no members";
  if (gang.min_members < 0) return "gang " + gang.name + " has a negative minimum member count";
  for (size_t i = 0; i < gang.members.size(); ++i) {
    if (std::string why = ValidateRequest(gang.members[i]); !why.empty()) {
      return "gang " + gang.name + " member " + std::to_string(i) + ": " + why;
    }
  }
  for (const std::string* level : {&gang.required_level, &gang.preferred_level}) {
    if (!level->empty() && topology.LevelIndex(*level) < 0) {
      return "gang " + gang.name + " names topology level '" + *level + "', which the pool does not have";
    }
  }
  return {};
}

}  // namespace gangplank::engine
