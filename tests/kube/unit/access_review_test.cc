// The TokenReview a component serving users asks the API server (kube/access_review.h): with audiences,
// a token is taken only when the API server names one of them back, so a token issued for the API server
// or another service, or an authenticator that ignores audiences, lets no one in.
#include "kube/access_review.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube/rest_client.h"
#include "tests/kube/unit/scripted_http.h"

namespace gangplank::kube {
namespace {

using Json = nlohmann::json;

struct Reviewer {
  std::shared_ptr<ScriptedHttp> http = std::make_shared<ScriptedHttp>();
  Client client;
  Reviewer() : client(MakeRest(http)) {}
  static std::shared_ptr<RestClient> MakeRest(std::shared_ptr<ScriptedHttp> http) {
    RestOptions options;
    options.qps = 0;
    ClusterConfig cfg;
    cfg.server = "http://scripted";
    return std::make_shared<RestClient>(cfg, options, std::move(http));
  }
  // Answers the next review with this status.
  void Answer(const Json& status) { http->script.push_back(reply(201, Json{{"status", status}}.dump())); }
};

const Json kMallory = {{"username", "system:serviceaccount:ml:mallory"}, {"uid", "u-1"}, {"groups", {"system:serviceaccounts"}}};

TEST(AccessReview, ATokenIsTakenOnlyWhenTheApiServerNamesTheAudienceAskedFor) {
  Reviewer r;
  r.Answer({{"authenticated", true}, {"user", kMallory}, {"audiences", {"gangplank"}}});
  const TokenReviewResult ok = ReviewToken(r.client, "t", {"gangplank"});
  EXPECT_TRUE(ok.authenticated) << ok.error;
  EXPECT_EQ(ok.user.username, "system:serviceaccount:ml:mallory");
  EXPECT_EQ(Json::parse(r.http->seen.back().body)["spec"]["audiences"], Json::array({"gangplank"}));

  // An authenticator that ignores audiences answers none back: not taken.
  r.Answer({{"authenticated", true}, {"user", kMallory}});
  const TokenReviewResult deaf = ReviewToken(r.client, "t", {"gangplank"});
  EXPECT_FALSE(deaf.authenticated);
  EXPECT_NE(deaf.error.find("not issued for audience gangplank"), std::string::npos) << deaf.error;

  r.Answer({{"authenticated", true}, {"user", kMallory}, {"audiences", {"https://kubernetes.default.svc"}}});
  EXPECT_FALSE(ReviewToken(r.client, "t", {"gangplank"}).authenticated);

  // Without audiences the API server's own are assumed, and none is asked or checked.
  r.Answer({{"authenticated", true}, {"user", kMallory}});
  EXPECT_TRUE(ReviewToken(r.client, "t").authenticated);
  EXPECT_FALSE(Json::parse(r.http->seen.back().body)["spec"].contains("audiences"));
}

}  // namespace
}  // namespace gangplank::kube
