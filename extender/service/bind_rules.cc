#include "extender/service/bind_rules.h"

#include <algorithm>

namespace gangplank::extender {
namespace {

bool UsesAny(const KnownPod& pod, const std::vector<std::string>& resources) {
  return std::any_of(pod.resources.begin(), pod.resources.end(), [&](const std::string& name) {
    return std::find(resources.begin(), resources.end(), name) != resources.end();
  });
}

}  // namespace

std::string BindRefusal(const ExtenderBindingArgs& args, const std::optional<KnownPod>& known, const BindRules& rules) {
  const std::string who = "pod " + args.pod_namespace + "/" + args.pod_name;
  const std::string refused = "gangplank-extender refuses to bind " + who + ": ";
  if (args.pod_uid.empty()) return refused + "the request names no PodUID";
  if (!known) return refused + "its pod informer does not know the pod (not created yet, or gone); kube-scheduler retries";
  if (known->uid != args.pod_uid) {
    return refused + "PodUID " + args.pod_uid + " is not the UID of the pod of that name (" + known->uid + ")";
  }
  if (!rules.scheduler_name.empty() && known->scheduler_name != rules.scheduler_name) {
    return refused + "it names schedulerName \"" + known->scheduler_name + "\", not gangplank's \"" +
           rules.scheduler_name + "\"";
  }
  if (!rules.managed_resources.empty() && !UsesAny(*known, rules.managed_resources)) {
    return refused + "it uses none of the managed resources, so kube-scheduler binds it itself";
  }
  return "";
}

}  // namespace gangplank::extender
