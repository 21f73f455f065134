#include "extender/decisions/preemption_grant.h"

namespace gangplank::extender {

std::vector<std::string_view> PreemptionGrant::victims(size_t i) const {
  std::vector<std::string_view> out;
  out.reserve(nodes_[i].uid_count);
  for (std::uint32_t k = 0; k < nodes_[i].uid_count; ++k) out.push_back(View(uids_[nodes_[i].first_uid + k]));
  return out;
}

size_t PreemptionGrant::Find(std::string_view node) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (View(nodes_[i].name) == node) return i;
  }
  return nodes_.size();
}

}  // namespace gangplank::extender
