// The binding step: POST pods/<name>/binding to the API server (DefaultBinder), or the extender's bind
// verb when configured. The POST is never blindly repeated: after an ambiguous failure (5xx, timeout,
// an error reply from the extender) the pod is read back to learn whether the binding happened. A 409
// "already assigned" is reported apart from a binding this call made, so it can be counted.
#pragma once

#include <memory>
#include <string>

#include "kube/client.h"
#include "kube/objects.h"
#include "tools/scheduler-driver/extender_client.h"

namespace gangplank::scheduler_driver {

enum class BindStatus {
  kBound,             // this call bound the pod
  kAlreadyBoundHere,  // 409: the pod was already assigned to this node
  kBoundElsewhere,    // 409: the pod is assigned to another node
  kPodGone,           // deleted, being deleted, or replaced by a new pod of the same name
  kFailed,            // not bound; try again later
};

struct BindReport {
  BindStatus status = BindStatus::kFailed;
  std::string message;        // what went wrong, for logs and the pod's condition
  bool via_extender = false;  // the extender's bind verb made (or was asked for) the binding
};

class PodBinder {
 public:
  // `extender` set: bind through its bind verb; with `ignorable`, an extender failure falls back to the
  // API server's binding (kube-scheduler >= 1.30).
  PodBinder(std::shared_ptr<kube::Client> client, ExtenderClient* extender, bool ignorable)
      : client_(std::move(client)), extender_(extender), ignorable_(ignorable) {}

  BindReport Bind(const kube::Pod& pod, const std::string& node);

 private:
  BindReport BindThroughApi(const kube::Pod& pod, const std::string& node);

  std::shared_ptr<kube::Client> client_;
  ExtenderClient* extender_;
  bool ignorable_;
};

}  // namespace gangplank::scheduler_driver
