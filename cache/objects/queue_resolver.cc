#include "cache/objects/queue_resolver.h"

namespace gangplank::cache {

std::string QueueResolver::Resolve(const std::optional<std::string>& own_label, std::string_view namespace_queue) const {
  std::string queue = own_label ? *own_label : std::string(namespace_queue);
  return queue.empty() ? default_queue_ : queue;
}

}  // namespace gangplank::cache
