// Controller::QueueRefusal: the webhook refuses, at creation, a pod whose queue does not admit its
// namespace or priority, from the same Queue tree and namespace labels the reconcile uses.
#include "cache/crd/queue_access.h"
#include "cache/objects/queue_resolver.h"
#include "operator/service/controller.h"

namespace gangplank::op {

std::string Controller::QueueRefusal(const std::string& namespace_, const std::optional<std::string>& queue_label,
                                     std::int32_t priority) const {
  std::lock_guard lock(mu_);
  const auto labelled = namespace_queues_.find(namespace_);
  const std::string namespace_queue = labelled == namespace_queues_.end() ? std::string() : labelled->second;
  const std::string queue = cache::QueueResolver(options_.default_queue).Resolve(queue_label, namespace_queue);
  const auto config = tree_->queues.find(queue);
  if (config == tree_->queues.end()) return {};
  return cache::QueueAccessRefusal(config->second, namespace_, namespace_queue, priority, queue_label.has_value());
}

}  // namespace gangplank::op
