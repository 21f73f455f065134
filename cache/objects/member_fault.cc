#include "cache/objects/member_fault.h"

#include <chrono>

#include "base/time_format.h"

namespace gangplank::cache {
namespace {

std::string FailedText(const PodInfo& pod) {
  std::string text = "Failed";
  if (!pod.reason.empty() || !pod.message.empty()) {
    const std::string sep = pod.reason.empty() || pod.message.empty() ? "" : ": ";
    text += " (" + pod.reason + sep + pod.message + ")";
  }
  if (const auto& c = pod.failed_container) {
    text += ": container " + c->name + " exited " + std::to_string(c->exit_code);
    if (!c->reason.empty()) text += " (" + c->reason + ")";
  }
  return text;
}

std::optional<double> FinishedAt(const PodInfo& pod) {
  if (!pod.failed_container) return std::nullopt;
  const auto t = base::ParseTime(pod.failed_container->finished_at);
  if (!t) return std::nullopt;
  return std::chrono::duration<double>(t->time_since_epoch()).count();
}

}  // namespace

std::string_view MemberFaultCauseName(MemberFaultCause cause) {
  return cause == MemberFaultCause::kMemberFailed ? "MemberFailed" : "MemberDeleted";
}

std::optional<MemberFaultSignal> ReadMemberFault(const PodInfo& pod) {
  MemberFaultSignal s;
  s.pod = pod.Key();
  s.node = pod.node_name;
  if (pod.phase == "Failed") {
    s.cause = MemberFaultCause::kMemberFailed;
    s.signal = FailedText(pod);
    s.since = FinishedAt(pod);
    return s;
  }
  // A pod being deleted after it finished is being cleaned up; before, it is a member lost.
  if (!pod.deleting || pod.Finished()) return std::nullopt;
  s.cause = MemberFaultCause::kMemberDeleted;
  s.signal = "deleted while " + (pod.phase.empty() ? std::string("Pending") : pod.phase);
  return s;
}

}  // namespace gangplank::cache
