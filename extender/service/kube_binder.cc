#include "extender/service/kube_binder.h"

#include <spdlog/spdlog.h>

#include "logging/json_log.h"
#include "kube/api_error.h"
#include "kube/client.h"

namespace gangplank::extender {

KubeBinder::KubeBinder(std::shared_ptr<kube::RestClient> client, int workers) : client_(std::move(client)) {
  for (int i = 0; i < std::max(1, workers); ++i) workers_.emplace_back([this] { Work(); });
}

KubeBinder::~KubeBinder() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void KubeBinder::Bind(ExtenderBindingArgs args, std::function<void(std::string error)> done) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      jobs_.push_back({std::move(args), std::move(done)});
      wake_.notify_one();
      return;
    }
  }
  done("gangplank-extender is shutting down");
}

void KubeBinder::Work() {
  while (true) {
    Job job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // Stopping, and every queued binding has been answered.
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    std::string error = BindNow(job.args);
    try {
      job.done(std::move(error));
    } catch (const std::exception& e) {
      spdlog::error(logging::JsonFields("bind: answering failed", "error", e.what()));
    }
  }
}

// kube::Client retries what is safe to retry and re-reads the pod after an ambiguous failure, so an
// error here is final for this attempt; kube-scheduler then requeues the pod.
std::string KubeBinder::BindNow(const ExtenderBindingArgs& args) {
  const std::string who = "pod " + args.pod_namespace + "/" + args.pod_name;
  try {
    switch (kube::Client(client_).BindPod(args.pod_namespace, args.pod_name, args.node, args.pod_uid)) {
      case kube::BindOutcome::kBound:
      case kube::BindOutcome::kAlreadyBoundHere:
        return "";
      case kube::BindOutcome::kPodGone:
        return who + " is gone or being deleted; not bound";
    }
  } catch (const kube::ConflictError& e) {
    return who + " cannot be bound to " + args.node + ": " + e.message();
  } catch (const std::exception& e) {
    return "binding " + who + " to " + args.node + " failed: " + e.what();
  }
  return "binding " + who + " failed";
}

}  // namespace gangplank::extender
