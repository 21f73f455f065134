// Decoding of extender request bodies and Kubernetes objects with simdjson On-Demand: only the fields
// the extender uses are materialised, everything else is skipped. Errors are DecodeError with the
// field path ("Pod.spec.containers[0].resources.requests.cpu: invalid quantity ...").
//
// Extender-level keys (Pod, Nodes, NodeNames, ...) match case-insensitively as Go's decoder does;
// Kubernetes object keys match exactly. Explicit null is accepted wherever a field may be absent.
#pragma once

#include <memory>
#include <string>

#include "extender/protocol/extender_types.h"
#include "cache/objects/kube_objects.h"

namespace gangplank::extender {

// Holds simdjson parsers (and their buffers) between requests. Not thread-safe: one per thread or a
// pool of them. The body is passed by reference because simdjson needs padding after the text; the
// string's capacity is grown for it (its contents are unchanged), and NodeItem::raw_json points into it.
class RequestDecoder {
 public:
  // kOff decodes everything with the general simdjson path, skipping the hand-written scanners for
  // NodeNames and NodeNameToMetaVictims (node_names_scanner.h, victims_scanner.h): the reference the
  // tests compare them with.
  enum class FastPaths { kOn, kOff };

  explicit RequestDecoder(FastPaths fast_paths = FastPaths::kOn);
  ~RequestDecoder();
  RequestDecoder(const RequestDecoder&) = delete;
  RequestDecoder& operator=(const RequestDecoder&) = delete;

  ExtenderArgs DecodeExtenderArgs(std::string& body);
  ExtenderPreemptionArgs DecodePreemptionArgs(std::string& body);
  ExtenderBindingArgs DecodeBindingArgs(std::string& body);
  cache::PodInfo DecodePod(std::string& json);
  cache::NodeInfo DecodeNode(std::string& json);

 private:
  struct Parsers;
  std::unique_ptr<Parsers> parsers_;
  bool fast_paths_;
};

// Largest body RequestDecoder accepts; the HTTP layer should refuse larger ones first (413).
inline constexpr size_t kMaxDecodableBytes = size_t{1} << 30;

}  // namespace gangplank::extender
