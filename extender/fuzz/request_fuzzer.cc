// libFuzzer target for the extender's request parsers and handlers. The first byte picks what the rest
// of the input is fed to: one of the three verbs' handlers (over a small cluster), the Pod/Node object
// decoders, quantity parsing, or Queue/GPUPool custom resource parsing. Any crash, sanitizer report, uncaught exception
// or a reply that is not one of 200/400 is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "extender/protocol/decode.h"
#include "cache/objects/decode_error.h"
#include "cache/objects/quantity.h"
#include "extender/service/extender_handlers.h"
#include "cache/crd/pool_config.h"
#include "cache/crd/queue_config.h"

namespace {

using namespace gangplank::extender;
namespace cache = gangplank::cache;

cache::NodeInfo Node(const std::string& name, const std::string& gpus, const std::string& model) {
  cache::NodeInfo n;
  n.name = name;
  n.labels = {{"nvidia.com/gpu.product", model}, {"zone", "z1"}};
  n.allocatable = {{"cpu", "64"}, {"memory", "256Gi"}, {"nvidia.com/gpu", gpus}};
  return n;
}

cache::PodInfo Pod(const std::string& name, const std::string& node, const std::string& gang, const std::string& gpu) {
  cache::PodInfo p;
  p.name = name;
  p.namespace_ = "ml";
  p.uid = "uid-" + name;
  p.node_name = node;
  p.phase = "Running";
  p.labels = {{"gangplank.io/gang", gang}, {"gangplank.io/queue", "team-a"}};
  p.containers.push_back({{{"cpu", "1"}, {"nvidia.com/gpu", gpu}}, {}});
  return p;
}

// What every input runs against; built once because libFuzzer calls the target millions of times.
struct Fixture {
  Fixture() : state({"zone"}), handlers(state, metrics, {}) {
    state.UpsertNode(Node("n1", "8", "A100"));
    state.UpsertNode(Node("n2", "4", "H100"));
    state.UpsertPod(Pod("a", "n1", "g", "4"));
    state.UpsertPod(Pod("b", "n2", "g", "2"));
    state.SetQueues({cache::UniformQueue("team-a", 2, 8)});
    state.MarkSynced();
  }
  cache::ClusterState state;
  ExtenderMetrics metrics;
  ExtenderHandlers handlers;
  RequestDecoder decoder;
};

void CheckReply(const Reply& r) {
  if (r.status != 200 && r.status != 400) std::abort();  // 500 means a handler threw something unexpected.
  if (r.body.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Fixture fixture;
  if (size == 0) return 0;
  const std::uint8_t selector = data[0] % 8;
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (selector) {
      case 0: CheckReply(fixture.handlers.Filter(body)); break;
      case 1: CheckReply(fixture.handlers.Prioritize(body)); break;
      case 2: CheckReply(fixture.handlers.Preempt(body)); break;
      case 3: fixture.decoder.DecodePod(body); break;
      case 4: fixture.decoder.DecodeNode(body); break;
      case 5: cache::ParseQuantityMilli(body), cache::ParseQuantityValue(body); break;
      case 6: {
        const nlohmann::json object = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
        if (!object.is_discarded()) {
          try {
            cache::QueueConfigFromObject(object);
          } catch (const cache::DecodeError&) {
          }
          cache::PoolConfigFromObject(object);
        }
        break;
      }
      default: fixture.decoder.DecodeBindingArgs(body); break;
    }
  } catch (const cache::DecodeError&) {
    // The documented failure for bad input.
  }
  return 0;
}
