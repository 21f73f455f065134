// The operator crashing on the real control plane: killed in the middle of admitting a gang (its
// client held to 4 writes a second, so an 8-pod admission takes seconds) and restarted, or killed as
// the leader with a standby on the same Lease. Either way no gang is ever half-admitted, and the real
// kube-scheduler binds every member once, on its planned node. The control plane's own operator is
// killed first; these operators run under the same ServiceAccount token and serve the registered webhook.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/real-cluster/support/real_cluster_test.h"
#include "tests/support/child_process.h"
#include "tests/support/prometheus_text.h"

namespace gangplank::real_cluster {
namespace {

using extender::testing::FreePort;
using gangplank::testing::ChildProcess;

class OperatorCrashOnRealCluster : public RealClusterTest {
 protected:
  void SetUp() override {
    RealClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // Crashed, not stopped: its lease runs out on its own (15 s) while the test's operators campaign.
    cluster().Kill("gangplank-operator");
  }
  void TearDown() override {
    watching_ = false;
    if (watcher_.joinable()) watcher_.join();
    operators_.clear();  // SIGTERM; the next test's operators campaign afresh.
    RealClusterTest::TearDown();
  }

  // An operator like the chart's, on this machine: `webhook` serves the registered webhook URL.
  void StartOperator(int index, bool webhook, int qps) {
    while (static_cast<int>(operators_.size()) <= index) {
      operators_.emplace_back();
      ports_.push_back(FreePort());
    }
    const std::string dir = cluster().dir().string();
    const std::string hook_port = std::to_string(webhook ? cluster().webhook_port() : FreePort());
    std::vector<std::string> argv{GANGPLANK_BUILD_DIR "/operator/gangplank-operator",
                                  "--kubeconfig=" + dir + "/operator.kubeconfig",
                                  "--listen-address=127.0.0.1", "--port=" + std::to_string(ports_[index]),
                                  "--scheduler-name=gangplank", "--leader-elect",
                                  "--leader-election-namespace=gangplank-system", "--leader-election-name=gangplank-operator",
                                  "--leader-election-identity=crash-test-" + std::to_string(index) + "-" + std::to_string(++starts_),
                                  "--lease-duration-seconds=4", "--renew-deadline-seconds=3", "--retry-period-seconds=1",
                                  "--webhook-port=" + hook_port, "--webhook-path=/mutate-pods", "--dry-run-port=0",
                                  "--webhook-tls-cert-file=" + dir + "/pki/webhook.crt",
                                  "--webhook-tls-key-file=" + dir + "/pki/webhook.key",
                                  "--plan-seal-key-file=" + dir + "/pki/plan-seal.key",
                                  "--resync-seconds=2", "--condition-rewrite-seconds=1",
                                  "--kube-api-qps=" + std::to_string(qps), "--kube-api-burst=1"};
    operators_[index] = std::make_unique<ChildProcess>(
        argv, dir + "/crash-operator-" + std::to_string(index) + "-" + std::to_string(starts_) + ".log");
    const std::uint16_t port = ports_[index];
    ASSERT_TRUE(WaitFor([&] { return extender::testing::Answers200(port, "/readyz"); })) << operators_[index]->Log();
  }
  bool Leads(int index) {
    extender::testing::LoopbackClient http(ports_.at(index));
    return gangplank::testing::SumOfMetric(http.Get("/metrics").body, "gangplank_operator_leader") == 1;
  }

  // Records any moment at which a released member's gang is not wholly planned under one admission.
  void WatchForHalfAdmission(const std::string& gang) {
    watching_ = true;
    watcher_ = std::thread([this, gang] {
      while (watching_) {
        try {
          if (HalfAdmitted(gang)) half_admitted_ = true;
        } catch (const std::exception&) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  bool HalfAdmitted(const std::string& gang) {
    bool released = false;
    std::set<std::string> admissions;
    for (const Json& pod : Pods("gangplank.io/gang=" + gang)) {
      bool gated = false;
      for (const Json& g : pod.value("/spec/schedulingGates"_json_pointer, Json::array())) gated = gated || g.value("name", "") == "gangplank.io/admission";
      released = released || !gated;
      admissions.insert(pod.value("/metadata/annotations"_json_pointer, Json::object()).value("gangplank.io/admission-id", ""));
    }
    return released && (admissions.size() != 1 || admissions.begin()->empty());
  }
  int Planned(const std::string& gang) {
    int n = 0;
    for (const auto& p : Names(gang, 8)) n += PlannedNodeOf(p).empty() ? 0 : 1;
    return n;
  }
  void ExpectLandedWhole(const std::string& gang) {
    const std::string admission = AnnotationOf(gang + "-0", "gangplank.io/admission-id");
    EXPECT_NE(admission, "");
    for (const auto& p : Names(gang, 8)) {
      EXPECT_EQ(NodeOf(p), PlannedNodeOf(p)) << p;
      EXPECT_EQ(AnnotationOf(p, "gangplank.io/admission-id"), admission) << p;
    }
    EXPECT_FALSE(half_admitted_) << "a member of " << gang << " was released before its whole gang was planned";
  }

  std::vector<std::unique_ptr<ChildProcess>> operators_;
  std::vector<std::uint16_t> ports_;
  int starts_ = 0;
  std::atomic<bool> watching_{false};
  std::atomic<bool> half_admitted_{false};
  std::thread watcher_;
};

TEST_F(OperatorCrashOnRealCluster, KilledMidAdmissionAndRestartedTheGangStillLandsWholeOnItsPlan) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  StartOperator(0, /*webhook=*/true, /*qps=*/4);
  ASSERT_TRUE(WaitFor([&] { return Leads(0); }, std::chrono::seconds(30))) << "the killed operator's lease never expired";
  WatchForHalfAdmission("first");
  CreateGang("first", 8, PodSpec().Gpus(4).Queue("team-a"));
  // Phase 1 under way: some members planned, not all.
  ASSERT_TRUE(WaitFor([&] { const int n = Planned("first"); return n >= 2 && n < 8; })) << Logs();
  operators_[0]->Kill();
  StartOperator(0, true, 50);
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("first", 8)); }, std::chrono::seconds(90))) << Logs();
  ExpectLandedWhole("first");
}

TEST_F(OperatorCrashOnRealCluster, TheStandbyTakesTheLeaseAndFinishesTheLeadersAdmission) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool");
  Queue("team-a");
  StartOperator(0, /*webhook=*/true, /*qps=*/4);
  ASSERT_TRUE(WaitFor([&] { return Leads(0); }, std::chrono::seconds(30)));
  StartOperator(1, /*webhook=*/false, /*qps=*/50);
  EXPECT_FALSE(Leads(1));
  WatchForHalfAdmission("handed");
  CreateGang("handed", 8, PodSpec().Gpus(8).Queue("team-a"));
  ASSERT_TRUE(WaitFor([&] { const int n = Planned("handed"); return n >= 2 && n < 8; })) << Logs();
  operators_[0]->Kill();
  ASSERT_TRUE(WaitFor([&] { return Leads(1); }, std::chrono::seconds(20))) << Logs();
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("handed", 8)); }, std::chrono::seconds(90))) << Logs();
  ExpectLandedWhole("handed");
  const Json lease = client().Get(kube::resources::Leases(), "gangplank-system", "gangplank-operator");
  EXPECT_EQ(lease["spec"].value("holderIdentity", ""), "crash-test-1-2");
}

}  // namespace
}  // namespace gangplank::real_cluster

namespace gangplank::real_cluster {
namespace {

// Fault recovery across a leader handover: the first leader restarts a gang and records it in the
// GPUPool's status; the next leader reads that record, so with restartLimit 1 the gang's second fault
// fails it instead of restarting it a second time.
TEST_F(OperatorCrashOnRealCluster, ANewLeaderCarriesOnTheRestartCountTheLastOneRecorded) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), 8);
  Pool("pool", Json{{"faultRecovery", {{"restartLimit", 1}, {"backoffSeconds", 1}}}});
  Queue("team-a");
  StartOperator(0, /*webhook=*/true, /*qps=*/50);
  ASSERT_TRUE(WaitFor([&] { return Leads(0); }, std::chrono::seconds(30)));
  const auto run_gang = [&] {
    CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
    ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
  };
  const auto break_gang = [&] {
    ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "train-1"));
    ASSERT_TRUE(WaitFor([&] { return !Pod("train-0") && !Pod("train-1"); })) << Logs();
  };
  run_gang();
  break_gang();
  ASSERT_TRUE(WaitFor([&] { return Said("GangRestarted", "restart 1"); })) << Logs();

  operators_[0]->Kill();  // Crashed: the next leader knows only what the status says.
  StartOperator(1, /*webhook=*/true, /*qps=*/50);
  ASSERT_TRUE(WaitFor([&] { return Leads(1); }, std::chrono::seconds(40)));
  run_gang();
  break_gang();
  EXPECT_TRUE(WaitFor([&] { return Said("GangFailed", "restart limit 1 reached"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted", "restart 2")) << "the new leader restarted the gang again";
}

}  // namespace
}  // namespace gangplank::real_cluster
