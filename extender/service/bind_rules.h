// Which bindings the bind verb carries out. kube-scheduler sends every binding of a pod it scheduled
// with gangplank's profile, naming the pod by namespace, name and UID; anyone else who reaches the verb
// could bind any pod of the cluster anywhere (issue 23). So a binding is refused unless it names a pod
// UID, that UID is the one of the pod gangplank's informer knows under that namespace/name (not a
// deleted-and-recreated pod, not a made-up one), the pod names gangplank's scheduler, and, with managed
// resources configured, it uses one of them: kube-scheduler itself binds such pods (an extender is only
// asked about pods it is interested in), so a request for one is not from kube-scheduler.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "extender/protocol/extender_types.h"
#include "extender/service/pod_lookup.h"

namespace gangplank::extender {

struct BindRules {
  // The schedulerName of the pods gangplank schedules (the kube-scheduler profile); empty: any.
  std::string scheduler_name = "gangplank";
  // kube-scheduler's managedResources (--managed-resource); empty: every pod is of interest.
  std::vector<std::string> managed_resources;
};

// "" when `args` may be bound, else why not (the ExtenderBindingResult Error kube-scheduler reports).
// `known` is what the pod informer holds under args' namespace/name.
std::string BindRefusal(const ExtenderBindingArgs& args, const std::optional<KnownPod>& known, const BindRules& rules);

}  // namespace gangplank::extender
