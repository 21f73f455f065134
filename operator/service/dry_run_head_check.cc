#include "operator/service/dry_run_head_check.h"

#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

namespace gangplank::op {
namespace {

net::HttpHeadVerdict Refused(int status, const std::string& message) {
  net::HttpHeadVerdict v;
  v.refusal = net::HttpResponse::json(status, nlohmann::json{{"error", message}}.dump());
  return v;
}

}  // namespace

DryRunHeadCheck::DryRunHeadCheck(DryRunAccess access, std::size_t max_pending)
    : access_(std::move(access)), max_pending_(max_pending), worker_([this] { Run(); }) {}

DryRunHeadCheck::~DryRunHeadCheck() {
  std::deque<Pending> left;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    left.swap(pending_);
  }
  wake_.notify_all();
  worker_.join();
  for (Pending& p : left) p.done(Refused(503, "the operator is stopping"));
}

net::HttpHeadCheck DryRunHeadCheck::Check() {
  return [this](const net::HttpRequest& head, net::HttpHeadCheckDone done) { Review(head, std::move(done)); };
}

void DryRunHeadCheck::Review(const net::HttpRequest& head, net::HttpHeadCheckDone done) {
  if (head.path != "/dry-run" || head.method != "POST") return done({});
  if (!HasBearerToken(head)) {
    // Needs no API server: answered on the spot.
    DryRunCaller caller = AuthenticateDryRunCaller(head, access_);
    return done(net::HttpHeadVerdict{std::move(caller.refusal), {}});
  }
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && pending_.size() < max_pending_) {
      pending_.push_back(Pending{head, std::move(done)});
      wake_.notify_one();
      return;
    }
  }
  done(Refused(503, "too many dry runs are waiting for the API server to review their callers; try again"));
}

void DryRunHeadCheck::Run() {
  for (;;) {
    Pending next;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
      next = std::move(pending_.front());
      pending_.pop_front();
    }
    net::HttpHeadVerdict verdict;
    try {
      DryRunCaller caller = AuthenticateDryRunCaller(next.head, access_);
      verdict.refusal = std::move(caller.refusal);
      if (caller.user) verdict.context = std::move(*caller.user);
    } catch (const std::exception& e) {  // Nothing may leave the thread.
      verdict = Refused(503, std::string("could not review the caller: ") + e.what());
    }
    next.done(std::move(verdict));
  }
}

}  // namespace gangplank::op
