#include "cache/objects/queue_resolver.h"

#include <algorithm>

namespace gangplank::cache {

std::string QueueResolver::Resolve(const std::optional<std::string>& own_label, std::string_view namespace_queue) const {
  std::string queue = own_label ? *own_label : std::string(namespace_queue);
  return queue.empty() ? default_queue_ : queue;
}

bool QueueResolver::Governs(std::string_view scheduler_name, bool admission_gated) const {
  if (admission_gated || governing_schedulers_.empty()) return true;
  return std::find(governing_schedulers_.begin(), governing_schedulers_.end(), scheduler_name) !=
         governing_schedulers_.end();
}

}  // namespace gangplank::cache
