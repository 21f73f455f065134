// End to end on the real control plane with the real Prometheus: the idle policy of issue 20 and the
// GPU-seconds it counts. fake_dcgm_exporter serves each running pod's GPU utilization, the real
// Prometheus scrapes it every second, and gangplank-operator reads it every second (--prometheus-url,
// --utilization-interval-seconds 1). Report marks an idle gang only; Preemptible makes an idle gang a
// victim of reclaim even within its queue's guarantee; Reclaim asks for a checkpoint, evicts the gang
// whole on the acknowledgement or at the deadline and admits its pods no more; the idle-exempt
// annotation and minAgeSeconds protect a gang; a dead or garbled Prometheus never makes a gang idle.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/time_format.h"
#include "cache/feed/gangplank_resources.h"
#include "net/http_server.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/operator/e2e/support/operator_cluster.h"
#include "tests/support/dcgm_exporter/fake_exporter_process.h"
#include "tests/support/prometheus_fixture.h"
#include "tests/support/prometheus_text.h"

namespace gangplank::op::testing {
namespace {

using extender::testing::Answers200;
using extender::testing::LoopbackClient;
using gangplank::testing::FakeDcgmExporter;
using gangplank::testing::PrometheusFixture;
using gangplank::testing::PrometheusFixtureOptions;
using gangplank::testing::SumOfMetric;
using std::chrono::seconds;

constexpr const char* kIdleCondition = "gangplank.io/GPUsIdle";
constexpr const char* kCheckpointRequested = "gangplank.io/checkpoint-requested";
// Idle detection takes idleSeconds after admission plus a scrape and a poll or two; generous for a
// loaded machine.
constexpr auto kIdleWait = seconds(60);

class UtilizationEndToEnd : public OperatorCluster {
 protected:
  void SetUp() override {
    OperatorCluster::SetUp();
    if (HasFatalFailure()) return;
    GANGPLANK_REQUIRE_PROMETHEUS();
    exporter_ =
        std::make_unique<FakeDcgmExporter>(GANGPLANK_FAKE_DCGM_EXPORTER_BINARY, (cluster().dir() / (ns() + "-fake-dcgm.log")).string(),
                                           std::vector<std::string>{"--gpus", "64"});
    prometheus_ = std::make_unique<PrometheusFixture>(PrometheusFixtureOptions{.targets = {exporter_->Target()}});
  }
  void TearDown() override {
    OperatorCluster::TearDown();
    prometheus_.reset();
    exporter_.reset();
  }

  // The operator reading utilization from `prometheus_url` (the fixture's when empty) every second.
  void StartReading(const std::string& prometheus_url = "", std::vector<std::string> extra = {}) {
    std::vector<std::string> flags{"--prometheus-url", prometheus_url.empty() ? prometheus_->BaseUrl() : prometheus_url,
                                   "--utilization-interval-seconds", "1"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    ASSERT_NO_FATAL_FAILURE(StartOperator(0, flags));
  }

  // Tells the exporter the pod's utilization (one GPU of its node); a negative percent: the pod is gone.
  void Util(const std::string& pod, double percent) {
    std::lock_guard lock(loads_mu_);
    if (percent < 0) {
      loads_.erase(pod);
    } else {
      loads_[pod] = percent;
    }
    Json list = Json::array();
    for (const auto& [name, util] : loads_)
      list.push_back({{"namespace", ns()}, {"pod", name}, {"gpus", 1}, {"util", util}});
    ASSERT_EQ(exporter_->SetLoads(list.dump()), 200);
  }
  void GangUtil(const std::string& gang, int size, double percent) {
    for (const std::string& pod : Names(gang, size)) Util(pod, percent);
  }
  // Prometheus holds a series for each pod (scraped at least once).
  bool Scraped(const std::vector<std::string>& pods) {
    for (const std::string& pod : pods) {
      if (!prometheus_->WaitForSeries(R"(DCGM_FI_DEV_GPU_UTIL{pod=")" + pod + R"("})")) return false;
    }
    return true;
  }

  std::string MetricsText() {
    LoopbackClient client(operator_ports_.at(0));
    return client.Get("/metrics").body;
  }
  // The operator's metric summed over the samples carrying `labels` (pool="pool" always), -1 when absent.
  double M(const std::string& name, std::vector<std::string> labels = {}) {
    labels.push_back(R"(pool="pool")");
    return SumOfMetric(MetricsText(), name, labels);
  }

  Json PodCondition(const std::string& pod, const std::string& type) {
    const auto object = Pod(pod);
    if (!object) return Json::object();
    for (const auto& c : object->value("/status/conditions"_json_pointer, Json::array())) {
      if (c.value("type", "") == type) return c;
    }
    return Json::object();
  }
  bool SaidIdle(const std::string& pod) {
    return PodCondition(pod, kIdleCondition).value("status", "") == "True";
  }
  // What a job does when its checkpoint is saved: acknowledges on one member.
  void Acknowledge(const std::string& pod) {
    client().Patch(kube::resources::Pods(), ns(), pod, kube::PatchType::kMerge,
                   Json{{"metadata",
                         {{"annotations",
                           {{"gangplank.io/checkpoint-done", base::FormatTime(std::chrono::system_clock::now())}}}}}});
  }
  bool Healthy() { return Answers200(operator_ports_.at(0), "/healthz"); }
  // `ok` holds until `until` (checked every 250 ms); false as soon as it does not.
  static bool HoldsUntil(std::chrono::steady_clock::time_point until, const std::function<bool()>& ok) {
    while (std::chrono::steady_clock::now() < until) {
      if (!ok()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return ok();
  }
  static bool HoldsFor(std::chrono::milliseconds span, const std::function<bool()>& ok) {
    return HoldsUntil(std::chrono::steady_clock::now() + span, ok);
  }
  // While utilization cannot be read: the operator still admits a new gang, and until `until` it stays
  // healthy and leaves the idle gang "idle" (two pods) alone: no condition, no checkpoint asked, not evicted.
  void ExpectAdmittingAndIdleGangLeftAlone(std::chrono::steady_clock::time_point until) {
    SubmitGang("late", 1, In("team-a"));
    EXPECT_TRUE(WaitFor([&] { return AllBound({"late-0"}); })) << "the operator stopped admitting\n" << Logs();
    EXPECT_TRUE(HoldsUntil(until, [&] {
      return AllBound({"idle-0", "idle-1"}) && !SaidIdle("idle-0") && Healthy();
    })) << Logs();
    EXPECT_TRUE(AnnotationOf("idle-0", kCheckpointRequested).empty());
    EXPECT_EQ(EventsAbout("idle-0", "IdleReclaimed"), 0);
    EXPECT_EQ(M("gangplank_operator_utilization_up"), 0);
    EXPECT_LE(OperatorMetric("gangplank_operator_evictions_total"), 0);
    EXPECT_TRUE(Healthy());
  }
  static PodOptions In(const std::string& queue) {
    PodOptions o;
    o.queue = queue;
    return o;
  }

  std::unique_ptr<FakeDcgmExporter> exporter_;
  std::unique_ptr<PrometheusFixture> prometheus_;
  std::mutex loads_mu_;
  std::map<std::string, double> loads_;
};

// Report: the idle gang's lead pod gets GPUsIdle=True (IdleGPUs), its owner a GangIdle Event, the
// metrics count it; the busy gang beside it gets nothing; when the idle gang works again the condition
// turns False (GPUsBusy). Nothing is evicted.
TEST_F(UtilizationEndToEnd, ReportMarksOnlyTheIdleGangAndUnmarksItWhenItWorksAgain) {
  for (int i = 0; i < 4; ++i) Node("n" + std::to_string(i));
  Pool("pool",
       Json::parse(R"({"idlePolicy":{"action":"Report","thresholdPercent":5,"idleSeconds":6,"minAgeSeconds":0}})"));
  Queue("team-a");
  ASSERT_NO_FATAL_FAILURE(StartReading());
  GangUtil("idle", 2, 0);
  GangUtil("busy", 2, 90);
  SubmitGang("idle", 2, In("team-a"));
  SubmitGang("busy", 2, In("team-a"));
  const std::vector<std::string> all{"idle-0", "idle-1", "busy-0", "busy-1"};
  ASSERT_TRUE(WaitFor([&] { return AllBound(all); })) << Logs();

  ASSERT_TRUE(WaitFor([&] { return SaidIdle("idle-0"); }, kIdleWait)) << Logs();
  const Json said = PodCondition("idle-0", kIdleCondition);
  EXPECT_EQ(said.value("reason", ""), "IdleGPUs");
  EXPECT_NE(said.value("message", "").find("below 5%"), std::string::npos) << said.dump();
  EXPECT_NE(said.value("message", "").find("idle policy report"), std::string::npos) << said.dump();
  EXPECT_TRUE(PodCondition("idle-1", kIdleCondition).empty()) << "the condition goes on the lead pod only";
  EXPECT_TRUE(WaitFor([&] { return EventsAbout("idle-0", "GangIdle") > 0; })) << Logs();
  EXPECT_TRUE(WaitFor([&] {
    return M("gangplank_operator_idle_gangs", {R"(policy="Report")", R"(queue="team-a")"}) == 1;
  })) << MetricsText();
  EXPECT_EQ(M("gangplank_operator_idle_gang_actions_total", {R"(action="report")"}), 1);

  // The busy gang: no condition, no Event; nothing evicted.
  EXPECT_TRUE(PodCondition("busy-0", kIdleCondition).empty()) << PodCondition("busy-0", kIdleCondition).dump();
  EXPECT_EQ(EventsAbout("busy-0", "GangIdle"), 0);
  EXPECT_TRUE(AllBound(all));
  EXPECT_EQ(Members("idle").size(), 2u);

  // Working again: the condition turns False, the gauge drops, still nothing evicted.
  GangUtil("idle", 2, 90);
  ASSERT_TRUE(
      WaitFor([&] { return PodCondition("idle-0", kIdleCondition).value("status", "") == "False"; }, seconds(30)))
      << Logs();
  EXPECT_EQ(PodCondition("idle-0", kIdleCondition).value("reason", ""), "GPUsBusy");
  EXPECT_TRUE(WaitFor([&] { return M("gangplank_operator_idle_gangs", {R"(policy="Report")"}) == 0; }))
      << MetricsText();
  EXPECT_EQ(M("gangplank_operator_idle_gang_actions_total", {R"(action="report")"}), 1);
  EXPECT_TRUE(PodCondition("busy-0", kIdleCondition).empty());
  EXPECT_TRUE(AllBound(all));
  EXPECT_EQ(Members("idle").size() + Members("busy").size(), 4u);
  EXPECT_LE(OperatorMetric("gangplank_operator_evictions_total"), 0);
}

// Preemptible (the Queue's override of the pool's Report): team-a holds 16 GPUs, within its guarantee
// of 16, and team-b waits for 8 (a foreign pod holds the third node). While both of team-a's gangs work,
// reclaim takes nothing; once one is idle, it is taken for team-b, and the busy one stays.
TEST_F(UtilizationEndToEnd, PreemptibleIdleGangIsReclaimedWithinItsGuaranteeAndTheBusyOneIsNot) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Occupy("other", "n2", 8);
  Pool("pool", Json::parse(R"({"preemption":{"reclaim":true,"minWaitSeconds":0,"minRuntimeSeconds":0},
                               "idlePolicy":{"action":"Report","thresholdPercent":5,"idleSeconds":6,"minAgeSeconds":0}})"));
  Queue("team-a",
        Json::parse(R"({"pools":[{"name":"pool","guaranteedGPUs":16}],"idlePolicy":{"action":"Preemptible"}})"));
  Queue("team-b");
  ASSERT_NO_FATAL_FAILURE(StartReading("", {"--max-staleness-seconds", "300"}));
  Util("sleepy-0", 90);
  Util("worker-0", 90);
  SubmitGang("sleepy", 1, In("team-a"));
  SubmitGang("worker", 1, In("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"sleepy-0", "worker-0"}); })) << Logs();
  const std::string sleepy_node = NodeOf("sleepy-0");

  SubmitGang("b", 1, In("team-b"));
  ASSERT_TRUE(WaitFor([&] { return !GangCondition("b-0").value("reason", "").empty(); })) << Logs();
  // Both of team-a's gangs busy, team-a within its guarantee: several rounds take nothing.
  EXPECT_TRUE(HoldsFor(std::chrono::milliseconds(4000),
                       [&] {
                         return AllBound({"sleepy-0", "worker-0"}) && NodeOf("b-0").empty();
                       }))
      << "a busy gang within its queue's guarantee was reclaimed\n"
      << Logs();
  EXPECT_FALSE(SaidIdle("sleepy-0"));

  Util("sleepy-0", 0);
  ASSERT_TRUE(WaitFor([&] { return EventsAbout("sleepy-0", "GangIdle") > 0; }, kIdleWait)) << Logs();
  // Taken at once: the new victim starts a full round (incremental rounds alone would wait up to
  // --max-staleness-seconds for one).
  ASSERT_TRUE(WaitFor([&] { return Members("sleepy").empty(); }, seconds(20))) << Logs();
  Util("sleepy-0", -1);
  ASSERT_TRUE(WaitFor([&] { return AllBound({"b-0"}); })) << Logs();
  EXPECT_EQ(NodeOf("b-0"), sleepy_node);
  EXPECT_TRUE(AllBound({"worker-0"})) << "the busy gang of team-a must stay";
  EXPECT_EQ(EventsAbout("sleepy-0", "GangIdle"), 1);
  EXPECT_TRUE(WaitFor([&] { return EventsAbout("sleepy-0", "Reclaim") == 1; })) << Logs();
  EXPECT_EQ(EventsAbout("worker-0", "Reclaim"), 0);
  EXPECT_GE(M("gangplank_operator_idle_gang_actions_total", {R"(action="preemptible")", R"(queue="team-a")"}), 1);
  EXPECT_EQ(OperatorMetric("gangplank_operator_evictions_total"), 1);
  EXPECT_EQ(HalfAdmittedGang(), "");
}

// Reclaim: both idle gangs are asked to checkpoint; the one that acknowledges is evicted whole at once,
// the other at its deadline; a busy gang stays. Their pods, submitted again, wait with IdleReclaimed.
TEST_F(UtilizationEndToEnd, ReclaimCheckpointsEvictsWholeOnAcknowledgementOrDeadlineAndNeverReadmits) {
  constexpr int kGrace = 10;
  for (int i = 0; i < 5; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"idlePolicy":{"action":"Reclaim","thresholdPercent":5,"idleSeconds":6,"minAgeSeconds":0},
                               "faultRecovery":{"checkpointGraceSeconds":)" +
                           std::to_string(kGrace) + "}}"));
  Queue("team-a");
  ASSERT_NO_FATAL_FAILURE(StartReading());
  GangUtil("acked", 2, 0);
  GangUtil("silent", 2, 0);
  Util("busy-0", 90);
  SubmitGang("acked", 2, In("team-a"));
  SubmitGang("silent", 2, In("team-a"));
  SubmitGang("busy", 1, In("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"acked-0", "acked-1", "silent-0", "silent-1", "busy-0"}); })) << Logs();

  // Every member of both idle gangs is asked, each gang with one deadline.
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const char* pod : {"acked-0", "acked-1", "silent-0", "silent-1"}) {
          if (AnnotationOf(pod, kCheckpointRequested).empty()) return false;
        }
        return true;
      },
      kIdleWait))
      << Logs();
  const std::string acked_deadline = AnnotationOf("acked-0", kCheckpointRequested);
  const std::string silent_deadline = AnnotationOf("silent-0", kCheckpointRequested);
  EXPECT_EQ(AnnotationOf("acked-1", kCheckpointRequested), acked_deadline);
  EXPECT_EQ(AnnotationOf("silent-1", kCheckpointRequested), silent_deadline);
  const auto acked_at = base::ParseTime(acked_deadline);
  const auto silent_at = base::ParseTime(silent_deadline);
  ASSERT_TRUE(acked_at && silent_at) << acked_deadline << " " << silent_deadline;
  EXPECT_TRUE(SaidIdle("acked-0"));
  EXPECT_TRUE(WaitFor([&] { return EventsAbout("acked-0", "CheckpointRequested") == 1; })) << Logs();
  EXPECT_EQ(Members("acked").size(), 2u) << "nothing is evicted before the acknowledgement or the deadline";
  EXPECT_EQ(Members("silent").size(), 2u);
  EXPECT_TRUE(AnnotationOf("busy-0", kCheckpointRequested).empty());

  // The acknowledgement must come after the request (annotations have whole seconds).
  ASSERT_TRUE(WaitFor([&] { return std::chrono::system_clock::now() >= *acked_at - seconds(kGrace - 1); }, seconds(5)));
  Acknowledge("acked-1");
  ASSERT_TRUE(WaitFor([&] { return Members("acked").empty(); }, seconds(30))) << Logs();
  EXPECT_LT(std::chrono::system_clock::now(), *acked_at) << "evicted on the acknowledgement, not at the deadline";
  EXPECT_EQ(Members("silent").size(), 2u) << "the gang that did not acknowledge waits for its deadline";
  GangUtil("acked", 2, -1);

  ASSERT_TRUE(WaitFor([&] { return Members("silent").empty(); }, seconds(kGrace + 30))) << Logs();
  EXPECT_GE(std::chrono::system_clock::now(), *silent_at) << "evicted before its checkpoint deadline";
  GangUtil("silent", 2, -1);
  EXPECT_TRUE(WaitFor([&] {
    return EventsAbout("acked-0", "IdleReclaimed") == 1 && EventsAbout("silent-0", "IdleReclaimed") == 1;
  })) << Logs();
  EXPECT_TRUE(AllBound({"busy-0"}));
  EXPECT_EQ(EventsAbout("busy-0", "IdleReclaimed"), 0);
  EXPECT_GE(M("gangplank_operator_idle_gang_actions_total", {R"(action="reclaim")"}), 2);

  // Their owners submit the pods again: they are not admitted, and say why.
  SubmitGang("acked", 2, In("team-a"));
  SubmitGang("silent", 2, In("team-a"));
  ASSERT_TRUE(WaitFor([&] {
    return GangCondition("acked-0").value("reason", "") == "IdleReclaimed" &&
           GangCondition("silent-0").value("reason", "") == "IdleReclaimed";
  })) << Logs();
  const std::vector<std::string> again{"acked-0", "acked-1", "silent-0", "silent-1"};
  EXPECT_TRUE(HoldsFor(std::chrono::milliseconds(3000),
                       [&] {
                         for (const std::string& pod : again) {
                           if (!Gated(pod) || !NodeOf(pod).empty()) return false;
                         }
                         return true;
                       }))
      << "a gang reclaimed for idle GPUs was admitted again\n"
      << Logs();
  EXPECT_EQ(GangCondition("acked-0").value("status", ""), "False");
  EXPECT_TRUE(WaitFor([&] {
    auto pool = client().TryGet(cache::resources::gpu_pools(), "", "pool");
    int failed = 0;
    for (const Json& r : pool ? pool->value("/status/gangRestarts"_json_pointer, Json::array()) : Json::array()) {
      failed += r.value("cause", "") == "IdleReclaimed" && r.value("failed", false);
    }
    return failed == 2;
  })) << client().TryGet(cache::resources::gpu_pools(), "", "pool").value_or(Json()).dump();
}

// Protected: an idle gang annotated gangplank.io/idle-exempt=true, and one younger than its queue's
// minAgeSeconds, are left alone under Reclaim, while an unprotected idle gang admitted with them is
// reclaimed (checkpointGraceSeconds 0: at once).
TEST_F(UtilizationEndToEnd, ExemptAndYoungGangsAreLeftAloneWhileAnUnprotectedOneIsReclaimed) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"idlePolicy":{"action":"Reclaim","thresholdPercent":5,"idleSeconds":6,"minAgeSeconds":0},
                               "faultRecovery":{"checkpointGraceSeconds":0}})"));
  Queue("team-a");
  Queue("team-young", Json::parse(R"({"idlePolicy":{"minAgeSeconds":600}})"));
  ASSERT_NO_FATAL_FAILURE(StartReading());
  Util("exempt-0", 0);
  Util("young-0", 0);
  Util("control-0", 0);
  PodOptions exempt = In("team-a");
  exempt.annotations["gangplank.io/idle-exempt"] = "true";
  SubmitGang("exempt", 1, exempt);
  SubmitGang("young", 1, In("team-young"));
  SubmitGang("control", 1, In("team-a"));  // Last: idle no longer than the other two.
  ASSERT_TRUE(WaitFor([&] { return AllBound({"exempt-0", "young-0", "control-0"}); })) << Logs();

  ASSERT_TRUE(WaitFor([&] { return Members("control").empty(); }, kIdleWait)) << Logs();
  EXPECT_TRUE(AnnotationOf("control-0", kCheckpointRequested).empty());
  EXPECT_TRUE(WaitFor([&] { return EventsAbout("control-0", "IdleReclaimed") == 1; })) << Logs();
  EXPECT_TRUE(HoldsFor(std::chrono::milliseconds(3000), [&] {
    return AllBound({"exempt-0", "young-0"}) && !SaidIdle("exempt-0") && !SaidIdle("young-0");
  })) << Logs();
  for (const char* pod : {"exempt-0", "young-0"}) {
    EXPECT_TRUE(PodCondition(pod, kIdleCondition).empty()) << pod;
    EXPECT_TRUE(AnnotationOf(pod, kCheckpointRequested).empty()) << pod;
    EXPECT_EQ(EventsAbout(pod, "GangIdle"), 0) << pod;
    EXPECT_EQ(EventsAbout(pod, "IdleReclaimed"), 0) << pod;
  }
  EXPECT_EQ(M("gangplank_operator_idle_gang_actions_total", {R"(queue="team-young")"}), -1);
}

// Prometheus stops while a gang idles under Reclaim: the operator reports the outage (utilization_up 0,
// failures counted), evicts nothing however long the gang sat idle, stays healthy and keeps admitting.
TEST_F(UtilizationEndToEnd, PrometheusGoneEvictsNothingAndTheOperatorKeepsAdmitting) {
  constexpr int kIdleSeconds = 10;
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"idlePolicy":{"action":"Reclaim","thresholdPercent":5,"idleSeconds":)" +
                           std::to_string(kIdleSeconds) +
                           R"(,"minAgeSeconds":0},"faultRecovery":{"checkpointGraceSeconds":0}})"));
  Queue("team-a");
  ASSERT_NO_FATAL_FAILURE(StartReading());
  GangUtil("idle", 2, 0);
  SubmitGang("idle", 2, In("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"idle-0", "idle-1"}); })) << Logs();
  const auto bound_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(Scraped({"idle-0", "idle-1"})) << prometheus_->Log();
  // The operator has measured the gang (busy GPU-seconds counted, at 0%).
  ASSERT_TRUE(WaitFor([&] {
    return M("gangplank_operator_utilization_up") == 1 && M("gangplank_operator_busy_gpu_seconds_total") >= 0;
  })) << MetricsText();
  ASSERT_FALSE(SaidIdle("idle-0")) << "too slow: the gang was idle past its limit before Prometheus stopped";

  prometheus_.reset();
  ASSERT_TRUE(WaitFor([&] { return M("gangplank_operator_utilization_up") == 0; })) << MetricsText();
  const double failures = M("gangplank_operator_utilization_query_failures_total");
  EXPECT_GE(failures, 1);
  EXPECT_TRUE(WaitFor([&] { return M("gangplank_operator_utilization_query_failures_total") > failures; }))
      << MetricsText();

  // Well past idleSeconds since admission: still nothing said, asked or evicted.
  ExpectAdmittingAndIdleGangLeftAlone(bound_at + seconds(kIdleSeconds + 5));
}

// A "Prometheus" answering 200 with garbage: text that is not JSON, truncated JSON, a result that is not
// a list, and sample values that are numbers where strings belong (each 0%: read as data they would
// make the gang idle). Every read fails as malformed; nothing is reclaimed; the operator lives on.
TEST_F(UtilizationEndToEnd, MalformedPrometheusAnswersEvictNothingAndTheOperatorKeepsAdmitting) {
  constexpr int kIdleSeconds = 3;
  std::atomic<int> queries{0};
  std::mutex last_mu;
  std::string last_path;
  const std::string in = R"("namespace":")" + ns() + R"(")";
  const std::vector<std::string> answers{
      "<html><body>502 Bad Gateway</body></html>",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{)" + in + R"(,"pod":"idle-0"},"value":[1,"0"])",
      R"({"status":"success","data":{"resultType":"vector","result":{)" + in + R"(,"pod":"idle-0"}}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{)" + in + R"(,"pod":"idle-0"},"value":[1,0]},)"
      R"({"metric":{)" + in + R"(,"pod":"idle-1"},"value":[1,0]}]}})"};
  auto garbage = net::MakeHttpServer({});
  garbage->Start(net::MakeSyncHandler([&](const net::HttpRequest& request) {
    {
      std::lock_guard lock(last_mu);
      last_path = request.path;
    }
    const std::string& body = answers[queries++ % answers.size()];
    return body[0] == '<' ? net::HttpResponse::text(200, body) : net::HttpResponse::json(200, body);
  }));

  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool", Json::parse(R"({"idlePolicy":{"action":"Reclaim","thresholdPercent":5,"idleSeconds":)" +
                           std::to_string(kIdleSeconds) +
                           R"(,"minAgeSeconds":0},"faultRecovery":{"checkpointGraceSeconds":0}})"));
  Queue("team-a");
  ASSERT_NO_FATAL_FAILURE(StartReading(garbage->BaseUrl()));
  SubmitGang("idle", 2, In("team-a"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"idle-0", "idle-1"}); })) << Logs();
  const auto bound_at = std::chrono::steady_clock::now();

  ASSERT_TRUE(WaitFor([&] { return queries >= 8; })) << "the operator does not read its --prometheus-url\n" << Logs();
  {
    std::lock_guard lock(last_mu);
    EXPECT_EQ(last_path, "/api/v1/query");
  }
  EXPECT_EQ(M("gangplank_operator_utilization_up"), 0) << MetricsText();
  EXPECT_TRUE(WaitFor([&] {
    return M("gangplank_operator_utilization_query_failures_total", {R"(reason="malformed")"}) >= 4;
  })) << MetricsText();

  ExpectAdmittingAndIdleGangLeftAlone(bound_at + seconds(kIdleSeconds + 6));
  // Every read failed: the counter counts them all (those since the last poll may not be in yet).
  EXPECT_GE(M("gangplank_operator_utilization_query_failures_total") + 2, queries.load());
  EXPECT_EQ(M("gangplank_operator_busy_gpu_seconds_total"), -1) << "garbage counted as measured utilization";
  EXPECT_EQ(StopOperator(0), 0);  // Before the server and what its handler captures go.
}

// GPU-seconds: per pool, queue and namespace, allocated and busy (weighted by the measured utilization:
// team-a's gang of two pods at 60% and 100% is busy at 80%, team-b's at 20%); the Queues' status shows
// the GPU-hours used. The query is given explicitly (--utilization-query).
TEST_F(UtilizationEndToEnd, GpuSecondsGrowWithTheGangsAndBusySecondsAtTheirUtilization) {
  for (int i = 0; i < 3; ++i) Node("n" + std::to_string(i));
  Pool("pool");
  Queue("team-a");
  Queue("team-b");
  ASSERT_NO_FATAL_FAILURE(StartReading("", {"--utilization-query", "avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL)"}));
  Util("a-0", 60);
  Util("a-1", 100);
  Util("b-0", 20);
  SubmitGang("a", 2, In("team-a"));
  SubmitGang("b", 1, In("team-b"));
  ASSERT_TRUE(WaitFor([&] { return AllBound({"a-0", "a-1", "b-0"}); })) << Logs();
  ASSERT_TRUE(Scraped({"a-0", "a-1", "b-0"})) << prometheus_->Log();
  const std::vector<std::string> a{R"(queue="team-a")", "namespace=\"" + ns() + "\""};
  const std::vector<std::string> b{R"(queue="team-b")", "namespace=\"" + ns() + "\""};
  ASSERT_TRUE(WaitFor([&] {
    return M("gangplank_operator_busy_gpu_seconds_total", a) > 0 &&
           M("gangplank_operator_busy_gpu_seconds_total", b) > 0;
  })) << MetricsText();

  struct Reading {
    double total_a, busy_a, total_b, busy_b;
    std::chrono::steady_clock::time_point at;
  };
  const auto read = [&] {
    const std::string text = MetricsText();
    const auto of = [&](const char* name, std::vector<std::string> labels) {
      labels.push_back(R"(pool="pool")");
      return SumOfMetric(text, name, labels);
    };
    return Reading{of("gangplank_operator_gpu_seconds_total", a), of("gangplank_operator_busy_gpu_seconds_total", a),
                   of("gangplank_operator_gpu_seconds_total", b), of("gangplank_operator_busy_gpu_seconds_total", b),
                   std::chrono::steady_clock::now()};
  };
  const Reading first = read();
  ASSERT_GT(first.total_a, 0);
  // At least 5 s of team-a's 16 GPUs.
  ASSERT_TRUE(WaitFor([&] { return read().total_a >= first.total_a + 16 * 5; }, seconds(40))) << MetricsText();
  const Reading second = read();
  const double wall = std::chrono::duration<double>(second.at - first.at).count();
  const double total_a = second.total_a - first.total_a;
  const double total_b = second.total_b - first.total_b;
  EXPECT_GT(total_a / wall, 16 * 0.5) << total_a << " GPU-seconds in " << wall << " s";
  EXPECT_LT(total_a / wall, 16 * 1.5) << total_a << " GPU-seconds in " << wall << " s";
  EXPECT_GT(total_b / wall, 8 * 0.5) << total_b << " GPU-seconds in " << wall << " s";
  EXPECT_LT(total_b / wall, 8 * 1.5) << total_b << " GPU-seconds in " << wall << " s";
  EXPECT_NEAR((second.busy_a - first.busy_a) / total_a, 0.8, 0.15);
  EXPECT_NEAR((second.busy_b - first.busy_b) / total_b, 0.2, 0.1);
  EXPECT_LE(second.busy_a, second.total_a);

  const auto hours = [&](const std::string& queue) {
    auto q = client().TryGet(cache::resources::queues(), "", queue);
    return q ? q->value("/status/usedGPUHours"_json_pointer, 0.0) : 0.0;
  };
  EXPECT_TRUE(WaitFor([&] { return hours("team-a") > 0 && hours("team-b") > 0; })) << Logs();
  EXPECT_GT(hours("team-a"), hours("team-b")) << "team-a holds twice team-b's GPUs";
  EXPECT_GT(M("gangplank_operator_queue_used_gpu_hours", {R"(queue="team-a")"}), 0);
}

}  // namespace
}  // namespace gangplank::op::testing
