// The extender client against a stub extender on loopback: the request kube-scheduler sends, and
// replies read as Go reads them (any casing, null as zero value, NodeList fallback), with every failure
// kube-scheduler treats as an extender error.
#include <gtest/gtest.h>

#include <mutex>

#include "net/http_server.h"
#include "tools/scheduler-driver/extender_client.h"

namespace gangplank::scheduler_driver {
namespace {

using Json = nlohmann::json;

class StubExtender : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = net::MakeHttpServer({});
    server_->Start(net::MakeSyncHandler([this](const net::HttpRequest& r) {
      std::lock_guard lock(mu_);
      last_path_ = r.path;
      last_body_ = r.body;
      return net::HttpResponse::json(status_, reply_);
    }));
    ExtenderOptions options;
    options.base_url = server_->BaseUrl();
    options.path_prefix = "/gp";
    options.timeout = std::chrono::milliseconds(2000);
    client_ = std::make_unique<ExtenderClient>(options);
  }
  void Reply(int status, std::string body) {
    std::lock_guard lock(mu_);
    status_ = status;
    reply_ = std::move(body);
  }

  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<ExtenderClient> client_;
  std::mutex mu_;
  int status_ = 200;
  std::string reply_;
  std::string last_path_, last_body_;
};

TEST_F(StubExtender, FilterSendsNamesAndReadsGoShapedReplies) {
  const std::string pod = R"({"metadata":{"name":"p","namespace":"ml","uid":"u"},"spec":{}})";
  Reply(200, R"({"NodeNames":["b"],"FailedNodes":{"a":"too small","c":"both"},"FailedAndUnresolvableNodes":{"c":"never"},"Error":""})");
  FilterResult r = client_->Filter(pod, {"a", "b", "c"});
  EXPECT_EQ(last_path_, "/gp/filter");
  EXPECT_EQ(last_body_, R"({"Pod":)" + pod + R"(,"Nodes":null,"NodeNames":["a","b","c"]})");
  EXPECT_EQ(r.passed, std::vector<std::string>{"b"});
  EXPECT_EQ(r.failed, (std::map<std::string, std::string>{{"a", "too small"}}));
  EXPECT_EQ(r.unresolvable, (std::map<std::string, std::string>{{"c", "never"}}));

  Reply(200, R"({"nodenames":["a"],"error":""})");  // Go decodes field names case-insensitively.
  EXPECT_EQ(client_->Filter(pod, {"a"}).passed, std::vector<std::string>{"a"});
  Reply(200, R"({"NodeNames":null,"Nodes":{"items":[{"metadata":{"name":"b"}}]}})");
  EXPECT_EQ(client_->Filter(pod, {"a", "b"}).passed, std::vector<std::string>{"b"});
  Reply(200, "null");
  EXPECT_TRUE(client_->Filter(pod, {"a"}).passed.empty()) << "nothing read: zero nodes pass";
}

TEST_F(StubExtender, FailuresAreExtenderErrorsInKubeSchedulersWords) {
  Reply(200, R"({"Error":"cache not synced"})");
  EXPECT_THROW(
      {
        try {
          client_->Filter("{}", {"a"});
        } catch (const ExtenderError& e) {
          EXPECT_STREQ(e.what(), "cache not synced");
          throw;
        }
      },
      ExtenderError);
  Reply(200, R"({"NodeNames":["z"]})");
  EXPECT_THROW(client_->Filter("{}", {"a"}), ExtenderError);  // Not asked about.
  Reply(500, "{}");
  try {
    client_->Filter("{}", {"a"});
    ADD_FAILURE() << "no error for a 500";
  } catch (const ExtenderError& e) {
    EXPECT_EQ(std::string(e.what()), "failed filter with extender at URL " + server_->BaseUrl() + "/gp/filter, code 500");
  }
  Reply(200, "{not json");
  EXPECT_THROW(client_->Prioritize("{}", {"a"}), ExtenderError);
  Reply(200, R"({"Error":"pod ml/p cannot be bound"})");
  kube::Pod pod;
  pod.meta.name = "p";
  pod.meta.namespace_ = "ml";
  pod.meta.uid = "u";
  EXPECT_THROW(client_->Bind(pod, "a"), ExtenderError);
  EXPECT_EQ(Json::parse(last_body_), (Json{{"PodName", "p"}, {"PodNamespace", "ml"}, {"PodUID", "u"}, {"Node", "a"}}));
  server_->Stop();
  EXPECT_THROW(client_->Filter("{}", {"a"}), ExtenderError) << "unreachable";
}

TEST_F(StubExtender, PrioritizeKeepsOnlyHostsItAskedAbout) {
  Reply(200, R"([{"Host":"a","Score":3},{"host":"b","score":12},{"Host":"zz","Score":10}])");
  const auto scores = client_->Prioritize("{}", {"a", "b"});
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].host, "a");
  EXPECT_EQ(scores[0].score, 3);
  EXPECT_EQ(scores[1].host, "b");
  EXPECT_EQ(scores[1].score, 12);
  EXPECT_EQ(last_path_, "/gp/prioritize");
}

}  // namespace
}  // namespace gangplank::scheduler_driver
