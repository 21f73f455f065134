// A gang: pods that must start together or not at all (a lone pod is a gang of one).
#pragma once

#include <string>
#include <vector>

#include "engine/request.h"
#include "engine/topology.h"

namespace gangplank::engine {

struct GangRequest {
  std::string name;
  std::string queue;
  int priority = 0;
  std::vector<PodRequest> members;
  // Members that must be placed for the gang to start; 0 means all of them.
  int min_members = 0;
  // Topology level keys (see Topology). Required: the whole gang inside one domain of this level or a
  // narrower one, or not at all. Preferred: the same when possible, otherwise a wider domain.
  std::string required_level;
  std::string preferred_level;
  // Gangs of one class never share a domain of their required level (a LeaderWorkerSet's exclusive
  // topology: each group alone in its domain). The round keeps a gang of a class out of the domains that
  // running gangs of the class (RunningGang::exclusive_class) and gangs admitted before it in the round
  // hold. Empty: no class.
  std::string exclusive_class;

  int MinMembers() const {
    return min_members <= 0 || min_members > static_cast<int>(members.size()) ? static_cast<int>(members.size())
                                                                               : min_members;
  }
};

// Why a gang request is malformed (empty when it is fine): no members, bad member, unknown level.
std::string ValidateGang(const GangRequest& gang, const Topology& topology);

}  // namespace gangplank::engine
