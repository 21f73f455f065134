// The dry run's caller is authenticated before its body is read (issue 31): a POST to /dry-run without a
// token the API server vouches for is refused before a byte of its body is read, the review runs off the
// listener's I/O threads, a caller it vouched for reaches the handler with its user, a queue of reviews
// past its bound is answered 503 at once, and every other route passes untouched.
#include "operator/service/dry_run_head_check.h"

#include <gtest/gtest.h>

#include <any>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "tests/support/loopback_socket.h"

namespace gangplank::op {
namespace {

using namespace std::chrono_literals;
using gangplank::testing::LoopbackSocket;

// "alice-token" is alice's; the review of any token waits for `gate` when one is set.
struct Reviews {
  std::mutex mu;
  std::thread::id reviewed_on;
  std::shared_future<void> gate;
  std::atomic<int> asked{0};

  DryRunAccess Access() {
    return DryRunAccess{[this](const std::string& token) {
                          ++asked;
                          std::shared_future<void> wait;
                          {
                            std::lock_guard lock(mu);
                            reviewed_on = std::this_thread::get_id();
                            wait = gate;
                          }
                          if (wait.valid()) wait.wait();
                          kube::TokenReviewResult r;
                          r.authenticated = token == "alice-token";
                          if (r.authenticated) r.user.username = "alice";
                          else r.error = "invalid bearer token";
                          return r;
                        },
                        [](const kube::ReviewedUser&, const kube::AccessRequest&) { return kube::AccessDecision{true, ""}; }};
  }
};

struct Served {
  std::atomic<int> calls{0};
  std::mutex mu;
  std::thread::id handled_on;
  net::HttpHandler Handler() {
    return net::MakeSyncHandler([this](const net::HttpRequest& r) {
      ++calls;
      {
        std::lock_guard lock(mu);
        handled_on = std::this_thread::get_id();
      }
      const auto* who = std::any_cast<kube::ReviewedUser>(&r.context);
      return net::HttpResponse::text(200, (who ? who->username : std::string("nobody")) + " " + std::to_string(r.body.size()) + "\n");
    });
  }
};

std::unique_ptr<net::HttpServer> Serve(DryRunHeadCheck& check, Served& served) {
  net::HttpServerOptions o;
  o.max_request_body_bytes = std::size_t{4} << 30;  // The size alone would let any body in.
  o.head_check = check.Check();
  auto server = net::MakeHttpServer(o);
  server->Start(served.Handler());
  return server;
}

std::string Post(std::uint16_t port, const std::string& path, const std::string& authorization, const std::string& body,
                 const std::string& announced = "") {
  LoopbackSocket socket(port);
  const std::string auth = authorization.empty() ? "" : "Authorization: " + authorization + "\r\n";
  return socket.Exchange("POST " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" + auth + "Content-Length: " +
                             (announced.empty() ? std::to_string(body.size()) : announced) + "\r\n\r\n" + body,
                         std::chrono::seconds(3));
}

TEST(DryRunHeadCheck, ACallerWithoutAVouchedTokenIsRefusedBeforeItsBodyIsRead) {
  Reviews reviews;
  DryRunHeadCheck check(reviews.Access());
  Served served;
  auto server = Serve(check, served);
  const auto start = std::chrono::steady_clock::now();
  // 3 GiB announced, not a byte sent: the answer comes at once.
  const std::string none = Post(server->port(), "/dry-run", "", "", "3221225472");
  EXPECT_NE(none.find("401"), std::string::npos) << none;
  EXPECT_NE(none.find("Authorization: Bearer <token>"), std::string::npos) << none;
  EXPECT_EQ(reviews.asked, 0) << "no token: nothing to ask the API server";
  const std::string forged = Post(server->port(), "/dry-run", "Bearer forged", "", "3221225472");
  EXPECT_NE(forged.find("401"), std::string::npos) << forged;
  EXPECT_NE(forged.find("invalid bearer token"), std::string::npos) << forged;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(served.calls, 0);
  server->Stop();
}

TEST(DryRunHeadCheck, AVouchedCallerIsReadWholeAndReviewedOffTheIoThreads) {
  Reviews reviews;
  DryRunHeadCheck check(reviews.Access());
  Served served;
  auto server = Serve(check, served);
  const std::string reply = Post(server->port(), "/dry-run", "Bearer alice-token", std::string(100000, 'x'));
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("alice 100000"), std::string::npos) << reply;
  EXPECT_NE(reviews.reviewed_on, served.handled_on) << "the review ran on an I/O thread";
  // The webhook and every other route pass without a review.
  const std::string webhook = Post(server->port(), "/mutate-pods", "", "{}");
  EXPECT_NE(webhook.find("nobody 2"), std::string::npos) << webhook;
  EXPECT_EQ(reviews.asked, 1);
  server->Stop();
}

TEST(DryRunHeadCheck, ReviewsPastTheBoundAreAnsweredUnavailableAtOnce) {
  Reviews reviews;
  std::promise<void> open;
  reviews.gate = open.get_future().share();
  DryRunHeadCheck check(reviews.Access(), 1);
  Served served;
  auto server = Serve(check, served);
  // The first is under review (held at the gate), the second waits its turn: both get their answer later.
  auto first = std::async(std::launch::async, [&] { return Post(server->port(), "/dry-run", "Bearer alice-token", "{}"); });
  ASSERT_TRUE([&] {
    for (int i = 0; i < 200 && reviews.asked == 0; ++i) std::this_thread::sleep_for(10ms);
    return reviews.asked == 1;
  }());
  auto second = std::async(std::launch::async, [&] { return Post(server->port(), "/dry-run", "Bearer alice-token", "{}"); });
  std::this_thread::sleep_for(200ms);
  const std::string third = Post(server->port(), "/dry-run", "Bearer alice-token", "{}");
  EXPECT_NE(third.find("503"), std::string::npos) << third;
  EXPECT_NE(third.find("too many dry runs"), std::string::npos) << third;
  open.set_value();
  EXPECT_NE(first.get().find("alice 2"), std::string::npos);
  EXPECT_NE(second.get().find("alice 2"), std::string::npos);
  server->Stop();
}

}  // namespace
}  // namespace gangplank::op
