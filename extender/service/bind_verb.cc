#include "extender/service/bind_verb.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "extender/protocol/decode.h"
#include "cache/objects/decode_error.h"
#include "extender/protocol/encode.h"
#include "logging/json_log.h"

namespace gangplank::extender {

void BindVerb::Handle(const net::HttpRequest& request, net::HttpResponder responder) {
  const auto start = std::chrono::steady_clock::now();
  ExtenderBindingArgs args;
  try {
    std::string body = request.body;  // The decoder pads its input.
    args = RequestDecoder().DecodeBindingArgs(body);
  } catch (const cache::DecodeError& e) {
    metrics_.ObserveRequest("bind", 400, 0);
    responder.Respond(net::HttpResponse::json(400, EncodeErrorBody(std::string("cannot decode ExtenderBindingArgs: ") + e.what())));
    return;
  }
  if (std::string refusal = BindRefusal(args, pods_.Find(args.pod_namespace, args.pod_name), rules_); !refusal.empty()) {
    spdlog::warn(logging::JsonFields("bind refused", "pod", args.pod_namespace + "/" + args.pod_name, "uid",
                                     args.pod_uid, "node", args.node, "error", refusal));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    metrics_.ObserveRequest("bind", 200, took.count());
    responder.Respond(net::HttpResponse::json(200, EncodeBindingResult({refusal})));
    return;
  }
  // std::function needs a copyable callable; the responder is move-only.
  auto shared = std::make_shared<net::HttpResponder>(std::move(responder));
  const std::string uid = args.pod_uid;
  const std::string node = args.node;
  const std::string pod = args.pod_namespace + "/" + args.pod_name;
  binder_.Bind(std::move(args), [this, shared, uid, node, pod, start](std::string error) {
    if (error.empty()) {
      // The filter verb's copy, when the cache had not seen the pod: created and bound within the
      // informer's lag, it is assumed from that copy.
      std::optional<cache::PodInfo> copy = unseen_ != nullptr ? unseen_->Take(uid) : std::nullopt;
      if (!(copy ? state_.AssumeBound(*copy, node) : state_.AssumeBound(uid, node))) {
        // Not in the cache yet (or bound elsewhere in our books): the informer will report the truth.
        spdlog::debug(logging::JsonFields("bind: pod not assumed in the cache", "pod", pod, "node", node));
      }
    } else {
      spdlog::warn(logging::JsonFields("bind failed", "pod", pod, "node", node, "error", error));
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    metrics_.ObserveRequest("bind", 200, took.count());
    shared->Respond(net::HttpResponse::json(200, EncodeBindingResult({error})));
  });
}

}  // namespace gangplank::extender
