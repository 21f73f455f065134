// Nodes and pods from their JSON as kube-apiserver returns them, through the informers' own path: the
// Kubernetes client's codec (kube/objects.cc) and the cache's conversion (cache/feed/object_conversion.cc).
#pragma once

#include <string>

#include "cache/feed/object_conversion.h"
#include "kube/list_watch.h"

namespace gangplank::cache::testing {

inline NodeInfo NodeFromJson(const std::string& text) {
  kube::ObjectDecoder<kube::Node> decoder;
  return ToNodeInfo(decoder.DecodeObject(text));
}

inline PodInfo PodFromJson(const std::string& text) {
  kube::ObjectDecoder<kube::Pod> decoder;
  return ToPodInfo(decoder.DecodeObject(text));
}

}  // namespace gangplank::cache::testing
