// End to end on the real control plane: an operator killed in the middle of admitting a gang, a leader
// killed with a standby on the Lease, and faults between the operator and kube-apiserver (dropped and cut
// watches, 409, 410, 429, 500, slow answers, from the fault proxy and a concurrent writer) change nothing
// in the outcome: no gang is half-admitted, every pod is bound once (one Scheduled event), on its planned
// node; and a new leader carries on the restart count the last one recorded.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "tests/operator/e2e/support/operator_cluster.h"
#include "tests/support/fault_proxy/fault_proxy.h"

namespace gangplank::op::testing {
namespace {

using OperatorEndToEnd = OperatorCluster;
using gangplank::testing::FaultProxy;
using gangplank::testing::ProxyFault;

// Watches the cluster while a test runs: a released member of a gang whose plan is not complete is a
// half-admitted gang, and is recorded.
class HalfAdmissionWatch {
 public:
  explicit HalfAdmissionWatch(OperatorCluster& cluster) : thread_([this, &cluster] {
    while (!stop_) {
      if (std::string gang = cluster.HalfAdmittedGang(); !gang.empty()) seen_ = gang;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }) {}
  ~HalfAdmissionWatch() {
    stop_ = true;
    thread_.join();
  }
  std::string seen() const { return seen_; }

 private:
  std::atomic<bool> stop_{false};
  std::string seen_;
  std::thread thread_;
};

// Some of the gang's pods (at least `at_least`) satisfy `has`.
bool AtLeast(const std::vector<std::string>& pods, int at_least, const std::function<bool(const std::string&)>& has) {
  int count = 0;
  for (const auto& p : pods) count += has(p) ? 1 : 0;
  return count >= at_least;
}

bool Leads(const OperatorCluster& c, int index) { return c.OperatorMetric("gangplank_operator_leader", index) == 1; }

// Bound once each (kube-scheduler's one Scheduled event), on its planned node, under one admission.
void ExpectLandedWhole(OperatorCluster& c, const std::vector<std::string>& pods) {
  for (const auto& p : pods) {
    EXPECT_FALSE(c.NodeOf(p).empty()) << p;
    EXPECT_EQ(c.NodeOf(p), c.PlannedNodeOf(p)) << p;
    EXPECT_EQ(c.AdmissionIdOf(p), c.AdmissionIdOf(pods.front())) << p;
    EXPECT_EQ(c.EventsAbout(p, "Scheduled"), 1) << p << " was bound more than once";
  }
}

// The API server answers slowly, so admitting an 8-pod gang takes seconds; the operator is killed in
// phase 1 (some members planned) and again in phase 2 (some released), and restarted each time.
TEST_F(OperatorEndToEnd, KilledMidAdmissionAndRestartedLeavesNoHalfAdmittedGangAndBindsNothingTwice) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), {8, {}});
  Pool("pool");
  Queue("team-a");
  StartOperator();
  HalfAdmissionWatch watch(*this);
  PodOptions o;
  o.queue = "team-a";
  o.gpus = 4;  // Two such gangs fit the pool side by side.
  proxy().SetResponseDelay(std::chrono::milliseconds(120));
  SubmitGang("first", 8, o);
  // Phase 1 under way: at least one member planned, not all.
  ASSERT_TRUE(WaitFor([&] { return AtLeast(Names("first", 8), 2, [&](const std::string& p) { return !PlannedNodeOf(p).empty(); }); })) << Logs();
  KillOperator();
  proxy().SetResponseDelay(std::chrono::milliseconds(0));
  StartOperator();
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("first", 8)); })) << Logs();
  ExpectLandedWhole(*this, Names("first", 8));

  // Killed in phase 2 this time: every member planned, some released.
  proxy().SetResponseDelay(std::chrono::milliseconds(120));
  SubmitGang("second", 8, o);
  ASSERT_TRUE(WaitFor([&] { return AtLeast(Names("second", 8), 1, [&](const std::string& p) { return !Gated(p); }); })) << Logs();
  KillOperator();
  proxy().SetResponseDelay(std::chrono::milliseconds(0));
  StartOperator();
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("second", 8)); })) << Logs();
  ExpectLandedWhole(*this, Names("second", 8));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(watch.seen(), "") << "a gang was half-admitted at some point";
}

TEST_F(OperatorEndToEnd, FaultsChangeNothingInTheOutcome) {
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 4; ++i) Node("c" + std::to_string(c) + "-" + std::to_string(i), {8, {{"nvidia.com/gpu.clique", "k" + std::to_string(c)}}});
  }
  Pool("pool", Json::parse(R"({"topologyLevels":["nvidia.com/gpu.clique","kubernetes.io/hostname"]})"));
  Queue("team-a");
  StartOperator();
  HalfAdmissionWatch watch(*this);
  std::thread chaos([&] {
    int round = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(12);
    while (std::chrono::steady_clock::now() < until) {
      switch (round++ % 5) {
        case 0: proxy().DropWatches(round % 2 ? FaultProxy::WatchEnd::kClean : FaultProxy::WatchEnd::kMidEvent); break;
        case 1:  // History gone: the next watches are told 410 Expired, as the watch cache says it.
          proxy().FailNext(ProxyFault::Status(410).Times(2).WatchesOnly().InStream());
          proxy().DropWatches();
          break;
        case 2: proxy().FailNext(ProxyFault::Status(429).Times(3).RetryAfter(1)); break;
        case 3: proxy().FailNext(ProxyFault::Status(500).Times(2).OnPath("/pods").OnMethod("GET")); break;
        case 4:
          // Someone else writes unbound pods (a label, by merge patch): the operator's resourceVersion
          // preconditions meet 409s.
          for (const Json& pod : Pods()) {
            if (!pod.value("/spec/nodeName"_json_pointer, std::string()).empty()) continue;
            try {
              client().Patch(kube::resources::Pods(), ns(), pod["metadata"]["name"], kube::PatchType::kMerge,
                             Json{{"metadata", {{"labels", {{"touched", std::to_string(round)}}}}}});
            } catch (const std::exception&) {
            }
          }
          break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  PodOptions o;
  o.queue = "team-a";
  o.annotations = {{"gangplank.io/topology-required", "nvidia.com/gpu.clique"}};
  for (int g = 0; g < 4; ++g) {
    o.gpus = 4;
    SubmitGang("g" + std::to_string(g), 4, o);  // 16 GPUs, half a clique.
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  chaos.join();
  // The storm is over: faults no request has met yet are withdrawn (queued behind an informer's backoff
  // they would fail its relists for minutes), and the backoff (up to 30 s) still has to run out.
  proxy().ClearFaults();
  const bool done = WaitFor([&] {
    for (int g = 0; g < 4; ++g) {
      for (const auto& p : Names("g" + std::to_string(g), 4)) {
        if (NodeOf(p).empty()) return false;
      }
    }
    return true;
  }, std::chrono::seconds(75));
  ASSERT_TRUE(done) << Logs();
  for (int g = 0; g < 4; ++g) {
    const auto pods = Names("g" + std::to_string(g), 4);
    ExpectLandedWhole(*this, pods);
    std::set<std::string> cliques;
    for (const auto& p : pods) cliques.insert(LabelOf(NodeOf(p), "nvidia.com/gpu.clique"));
    EXPECT_EQ(cliques.size(), 1u) << "gang g" << g << " spans cliques";
  }
  EXPECT_EQ(watch.seen(), "");
}

// The leader is killed mid-admission with a standby on the Lease: the standby takes the Lease and finishes
// the admission from what the API server holds.
TEST_F(OperatorEndToEnd, TheStandbyTakesTheLeaseAndFinishesTheLeadersAdmission) {
  for (int i = 0; i < 8; ++i) Node("n" + std::to_string(i), {8, {}});
  Pool("pool");
  Queue("team-a");
  StartOperator(0);
  ASSERT_TRUE(WaitFor([&] { return Leads(*this, 0); }, std::chrono::seconds(30))) << Logs();
  StartOperator(1);
  EXPECT_FALSE(Leads(*this, 1));
  HalfAdmissionWatch watch(*this);
  PodOptions o;
  o.queue = "team-a";
  o.gpus = 8;
  proxy().SetResponseDelay(std::chrono::milliseconds(120));
  SubmitGang("handed", 8, o);
  ASSERT_TRUE(WaitFor([&] { return AtLeast(Names("handed", 8), 2, [&](const std::string& p) { return !PlannedNodeOf(p).empty(); }); })) << Logs();
  KillOperator(0);
  proxy().SetResponseDelay(std::chrono::milliseconds(0));
  ASSERT_TRUE(WaitFor([&] { return Leads(*this, 1); }, std::chrono::seconds(20))) << Logs();
  ASSERT_TRUE(WaitFor([&] { return AllBound(Names("handed", 8)); })) << Logs();
  ExpectLandedWhole(*this, Names("handed", 8));
  const Json lease = client().Get(kube::resources::Leases(), "gangplank-system", "gangplank-operator");
  EXPECT_EQ(lease["spec"].value("holderIdentity", ""), ns() + "-operator-1");
  EXPECT_EQ(watch.seen(), "");
}

// Fault recovery across a crash: the first leader restarts a gang and records it in the GPUPool's status;
// the next one reads that record, so with restartLimit 1 the gang's second fault fails it instead of
// restarting it a second time.
TEST_F(OperatorEndToEnd, ANewLeaderCarriesOnTheRestartCountTheLastOneRecorded) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i), {8, {}});
  Pool("pool", Json{{"faultRecovery", {{"restartLimit", 1}, {"backoffSeconds", 1}}}});
  Queue("team-a");
  StartOperator();
  PodOptions o;
  o.queue = "team-a";
  o.gpus = 8;
  const auto run_gang = [&] {
    SubmitGang("train", 2, o);
    ASSERT_TRUE(WaitFor([&] { return AllBound(Names("train", 2)); })) << Logs();
  };
  const auto break_gang = [&] {
    ASSERT_TRUE(client().Remove(kube::resources::Pods(), ns(), "train-1"));
    ASSERT_TRUE(WaitFor([&] { return !Pod("train-0") && !Pod("train-1"); })) << Logs();
  };
  ASSERT_NO_FATAL_FAILURE(run_gang());
  ASSERT_NO_FATAL_FAILURE(break_gang());
  ASSERT_TRUE(WaitFor([&] { return Said("GangRestarted", "restart 1"); })) << Logs();

  KillOperator();  // Crashed: the next process knows only what the status says.
  StartOperator();
  ASSERT_NO_FATAL_FAILURE(run_gang());
  ASSERT_NO_FATAL_FAILURE(break_gang());
  EXPECT_TRUE(WaitFor([&] { return Said("GangFailed", "restart limit 1 reached"); })) << Logs();
  EXPECT_FALSE(Said("GangRestarted", "restart 2")) << "the new leader restarted the gang again";
}

}  // namespace
}  // namespace gangplank::op::testing
