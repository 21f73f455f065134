// The dry run's caller is authenticated before its body is read (issue 31): on the TLS port a POST to
// /dry-run reads its body only once the API server has vouched for its bearer token (TokenReview), so a
// caller without a token the cluster issued cannot make the operator read, and hold, megabytes it will
// refuse. The review runs on a thread of its own, never on the listener's I/O threads (which also serve
// the API server's webhook calls); at most `max_pending` requests wait for it, and one more is answered
// 503 at once. Every other request passes at once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "net/http_server.h"
#include "operator/service/dry_run_access.h"

namespace gangplank::op {

class DryRunHeadCheck {
 public:
  explicit DryRunHeadCheck(DryRunAccess access, std::size_t max_pending = 16);
  // Answers what still waits 503 (the server stops) and joins the thread.
  ~DryRunHeadCheck();
  DryRunHeadCheck(const DryRunHeadCheck&) = delete;
  DryRunHeadCheck& operator=(const DryRunHeadCheck&) = delete;

  // For HttpServerOptions::head_check; valid while this object lives (the server must stop first).
  net::HttpHeadCheck Check();

 private:
  struct Pending {
    net::HttpRequest head;
    net::HttpHeadCheckDone done;
  };
  void Review(const net::HttpRequest& head, net::HttpHeadCheckDone done);
  void Run();

  DryRunAccess access_;
  std::size_t max_pending_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Pending> pending_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace gangplank::op
