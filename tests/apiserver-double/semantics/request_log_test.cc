// The double's request log (DoubleOptions::record_requests): what each client asked for, in order,
// with its User-Agent, so a test can hold a binary's API calls against the RBAC it is installed with.
#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

class RequestLogTest : public DoubleTest {
 protected:
  DoubleOptions options() override {
    DoubleOptions o;
    o.record_requests = true;
    return o;
  }
};

TEST_F(RequestLogTest, RecordsMethodPathQueryAndUserAgentInOrder) {
  call("GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dx&limit=5", nullptr, {{"User-Agent", "gangplank-operator/0.1"}});
  call("POST", "/api/v1/namespaces/default/pods", pod("a"), {{"User-Agent", "kubectl/v1.31"}});
  call("GET", "/_double/state");  // control requests are not part of the API
  const auto log = server_->RecordedRequests();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].method, "GET");
  EXPECT_EQ(log[0].path, "/api/v1/namespaces/default/pods");
  EXPECT_EQ(log[0].query, "labelSelector=app%3Dx&limit=5");
  EXPECT_EQ(log[0].user_agent, "gangplank-operator/0.1");
  EXPECT_EQ(log[1].method, "POST");
  EXPECT_EQ(log[1].user_agent, "kubectl/v1.31");
}

TEST(RequestLogOff, RecordsNothingUnlessAsked) {
  ApiServerDouble server;
  server.Start();
  http_request(server.port(), "GET", "/api/v1/nodes");
  EXPECT_TRUE(server.RecordedRequests().empty());
  EXPECT_EQ(server.RequestCount(), 1u);
  server.Stop();
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
