// The nodes under a termination notice, as the node informer reports them: which signal, when the
// operator first saw it, and when the node goes (the notice's own time, else first seen + the signal's
// lead time). The first sighting is what a notice without a time is measured from, so it is kept
// for as long as the notice stays on the node. Thread-safe: the informer's thread observes, reconcile
// workers take snapshots.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cache/objects/kube_objects.h"
#include "cache/objects/termination_notice.h"

namespace gangplank::op {

struct NoticedNode {
  cache::TerminationNotice notice;
  double noticed_at = 0;    // Seconds since the epoch.
  double terminate_at = 0;  // Seconds since the epoch.
};

using NoticeSnapshot = std::map<std::string, NoticedNode>;  // By node name.

class NodeNotices {
 public:
  struct Observation {
    bool changed = false;                // A notice appeared, went, or changed its time.
    std::optional<NoticedNode> started;  // A notice seen for the first time.
    std::string warning;                 // A malformed annotation value not reported before.
  };

  // `known_spot`: a GPU pool says the node is spot (see cache::ReadTerminationNotice).
  Observation Observe(const cache::NodeInfo& node, double now, bool known_spot = false);
  bool Remove(const std::string& node);  // The Node is gone; true if it was under notice.
  std::shared_ptr<const NoticeSnapshot> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const NoticeSnapshot> notices_ = std::make_shared<const NoticeSnapshot>();
  std::map<std::string, std::string> warned_;  // Node -> the malformed value already reported.
};

}  // namespace gangplank::op
