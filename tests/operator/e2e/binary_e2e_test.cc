// The operator's dry run (the HTTP endpoint and the `dry-run` subcommand) answering where and when a gang
// would land without changing anything, and /metrics; on the real control plane.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "tests/support/subprocess.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/operator/e2e/support/operator_cluster.h"

namespace gangplank::op::testing {
namespace {

using gangplank::testing::run_process;

using OperatorDryRun = OperatorCluster;

TEST_F(OperatorDryRun, SaysWhereAndWhenAGangWouldLandAndChangesNothing) {
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 2; ++i) Node("c" + std::to_string(c) + "-" + std::to_string(i), {8, {{"nvidia.com/gpu.clique", "k" + std::to_string(c)}}});
  }
  Occupy("busy", "c0-0", 8);
  Pool("pool", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  // Open on the plain port (the authenticated dry run: tests/real-cluster/tenant_attacks_test.cc).
  operator_flags_ = {"--no-leader-elect", "--dry-run-auth", "none"};
  StartOperator();
  PodOptions o;
  o.queue = "team-a";
  o.gang = "what-if";
  o.annotations = {{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}};
  Json pods = Json::array();
  for (int i = 0; i < 2; ++i) pods.push_back(PodObject("what-if-" + std::to_string(i), o));
  extender::testing::LoopbackClient client(operator_ports_[0]);
  auto r = client.Post("/dry-run", Json{{"pods", pods}, {"minMembers", 2}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  Json answer = Json::parse(r.body);
  EXPECT_EQ(answer["admitted"], true) << r.body;
  EXPECT_EQ(answer["pool"], "pool");
  EXPECT_EQ(answer["when"], "now");
  ASSERT_EQ(answer["placements"].size(), 2u);
  for (const auto& p : answer["placements"]) EXPECT_EQ(LabelOf(p["node"], "nvidia.com/gpu.clique"), "k1") << r.body;
  EXPECT_EQ(Pods().size(), 1u) << "a dry run must create nothing";

  // Three members in one clique of 16 GPUs cannot be: it would wait, and says why.
  pods.push_back(PodObject("what-if-2", o));
  r = client.Post("/dry-run", Json{{"pods", pods}, {"minMembers", 3}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  answer = Json::parse(r.body);
  EXPECT_EQ(answer["admitted"], false) << r.body;
  EXPECT_EQ(answer["reason"], "TopologyUnsatisfiable") << r.body;
  EXPECT_EQ(answer["message"], "needs 24 GPUs in one NVLink domain; largest free is 16") << r.body;

  // The same through the binary's dry-run subcommand, from a file.
  const std::string file = (cluster().dir() / (ns() + "-gang.json")).string();
  std::ofstream(file) << Json{{"pods", pods}, {"minMembers", 3}}.dump();
  const auto cli = run_process({GANGPLANK_BUILD_DIR "/operator/gangplank-operator", "dry-run", "--url", "http://127.0.0.1:" + std::to_string(operator_ports_[0]),
                                "-f", file});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find("TopologyUnsatisfiable"), std::string::npos) << cli.out;

  // Bad requests are refused, the operator keeps serving.
  EXPECT_EQ(client.Post("/dry-run", "{not json").status, 400);
  EXPECT_EQ(client.Post("/dry-run", R"({"pods":[]})").status, 400);
  EXPECT_EQ(client.Get("/dry-run").status, 405);
  EXPECT_EQ(client.Get("/readyz").status, 200);
  const std::string metrics = client.Get("/metrics").body;
  for (const char* name : {"gangplank_operator_leader 1", "gangplank_operator_pool_gpus", "gangplank_operator_reconcile_duration_seconds",
                           "gangplank_operator_largest_gang_gpus", "gangplank_operator_pool_fragmentation_ratio"}) {
    EXPECT_NE(metrics.find(name), std::string::npos) << name << " missing from /metrics";
  }
}

// By default the dry run answers only bearer tokens on its TLS port: the plain port says where it went
// (the harness turns that port off, so here it says what the dry run needs).
TEST_F(OperatorDryRun, IsNotOpenOnThePlainPortByDefault) {
  Node("n0", {8, {}});
  Pool("pool");
  Queue("team-a");
  operator_flags_ = {"--no-leader-elect"};
  StartOperator();
  extender::testing::LoopbackClient client(operator_ports_[0]);
  PodOptions o;
  o.queue = "team-a";
  const auto r = client.Post("/dry-run", Json{{"pods", Json::array({PodObject("what-if-0", o)})}}.dump());
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_NE(r.body.find("--dry-run-port"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("placements"), std::string::npos) << r.body;
  EXPECT_EQ(client.Get("/readyz").status, 200);
}

}  // namespace
}  // namespace gangplank::op::testing
