// Records core/v1 Events about objects. Repeats of the same (object, type, reason, message) are folded
// into one Event whose count and lastTimestamp are patched, as kubectl describe expects; an Event that
// expired meanwhile (404 on the patch) is created afresh. Failures never reach the caller: events are
// best-effort diagnostics and must not fail a reconcile.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "kube/client.h"

namespace gangplank::kube {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string namespace_;  // empty for cluster-scoped objects (the Event then goes to "default")
  std::string name;
  std::string uid;
  std::string resource_version;
};

class EventRecorder {
 public:
  EventRecorder(std::shared_ptr<Client> client, std::string component, std::string host = "");

  // type is "Normal" or "Warning". Returns false if the API call failed (already logged-free).
  bool Record(const ObjectReference& object, const std::string& type, const std::string& reason,
              const std::string& message);
  // Count recorded for this combination so far (0 if never).
  int count(const ObjectReference& object, const std::string& type, const std::string& reason,
            const std::string& message) const;

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  struct Seen {
    std::string event_name;
    std::string event_namespace;
    int count = 0;
    std::string first_timestamp;
  };
  static Key KeyOf(const ObjectReference& o, const std::string& type, const std::string& reason,
                    const std::string& message);
  bool Create(const ObjectReference& object, const std::string& type, const std::string& reason,
              const std::string& message, Seen& seen);

  std::shared_ptr<Client> client_;
  std::string component_;
  std::string host_;
  mutable std::mutex mutex_;
  std::map<Key, Seen> seen_;
  uint64_t sequence_ = 0;
};

}  // namespace gangplank::kube
