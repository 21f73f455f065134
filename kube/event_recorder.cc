#include "kube/event_recorder.h"

#include <cstdio>

#include "kube/api_error.h"
#include "base/time_format.h"

namespace gangplank::kube {

EventRecorder::EventRecorder(std::shared_ptr<Client> client, std::string component, std::string host)
    : client_(std::move(client)), component_(std::move(component)), host_(std::move(host)) {}

EventRecorder::Key EventRecorder::KeyOf(const ObjectReference& o, const std::string& type, const std::string& reason,
                                         const std::string& message) {
  return {o.kind, o.namespace_, o.name, o.uid, type + "\n" + reason, message};
}

int EventRecorder::count(const ObjectReference& object, const std::string& type, const std::string& reason,
                         const std::string& message) const {
  std::lock_guard lock(mutex_);
  auto it = seen_.find(KeyOf(object, type, reason, message));
  return it == seen_.end() ? 0 : it->second.count;
}

bool EventRecorder::Create(const ObjectReference& o, const std::string& type, const std::string& reason,
                           const std::string& message, Seen& seen) {
  auto now = std::chrono::system_clock::now();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx%04llx",
                static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()),
                static_cast<unsigned long long>(sequence_++ & 0xffff));
  std::string ns = o.namespace_.empty() ? "default" : o.namespace_;
  std::string name = o.name + suffix;
  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"involvedObject",
                 {{"apiVersion", o.api_version},
                  {"kind", o.kind},
                  {"namespace", o.namespace_},
                  {"name", o.name},
                  {"uid", o.uid},
                  {"resourceVersion", o.resource_version}}},
                {"type", type},
                {"reason", reason},
                {"message", message},
                {"source", {{"component", component_}, {"host", host_}}},
                {"reportingComponent", component_},
                {"reportingInstance", host_},
                {"count", 1},
                {"firstTimestamp", base::FormatTime(now)},
                {"lastTimestamp", base::FormatTime(now)}};
  client_->Create(resources::Events(), ns, event);
  seen = Seen{name, ns, 1, base::FormatTime(now)};
  return true;
}

bool EventRecorder::Record(const ObjectReference& object, const std::string& type, const std::string& reason,
                           const std::string& message) {
  std::lock_guard lock(mutex_);
  Seen& seen = seen_[KeyOf(object, type, reason, message)];
  try {
    if (seen.count == 0) return Create(object, type, reason, message, seen);
    Json patch = {{"count", seen.count + 1}, {"lastTimestamp", base::FormatTime(std::chrono::system_clock::now())}};
    try {
      client_->Patch(resources::Events(), seen.event_namespace, seen.event_name, PatchType::kMerge, patch);
      ++seen.count;
      return true;
    } catch (const NotFoundError&) {
      return Create(object, type, reason, message, seen);  // the old Event was garbage-collected
    }
  } catch (...) {
    if (seen.count == 0) seen_.erase(KeyOf(object, type, reason, message));
    return false;
  }
}

}  // namespace gangplank::kube
