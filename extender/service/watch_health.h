// Whether the informers feeding the extender's cache are keeping it current. A cache that has synced
// once stays "synced" while its watches fail (API server down, RBAC revoked, network cut), yet every
// verdict then rests on a stale cluster; /readyz reports it, so the pod shows not ready and alerts and
// rollouts see it. One failed watch is normal (the informer re-watches at once), so only a run of
// `failures_before_unready` list/watch failures with no success in between counts.
#pragma once

#include <string>

#include "cache/feed/shared_informers.h"

namespace gangplank::extender {

class WatchHealth {
 public:
  WatchHealth(cache::SharedInformers& informers, long failures_before_unready)
      : informers_(informers), failures_before_unready_(failures_before_unready) {}

  // "" while every core informer (nodes, pods, namespaces) works, else which one is failing.
  std::string Problem() const;

 private:
  cache::SharedInformers& informers_;
  const long failures_before_unready_;
};

}  // namespace gangplank::extender
