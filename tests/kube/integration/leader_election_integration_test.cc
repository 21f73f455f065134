// Leader election on a Lease in the real kube-apiserver, with short timings; lease writes failed by the
// fault proxy.
#include <gtest/gtest.h>

#include <atomic>

#include "real_api_fixture.h"
#include "kube/leader_election.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;
using gangplank::testing::ProxyFault;
using testing::eventually;

constexpr auto kLease = 2000ms;
constexpr auto kRenew = 1500ms;
constexpr auto kRetry = 250ms;

LeaderElectionConfig config(const std::string& ns, const std::string& identity, bool release = false) {
  LeaderElectionConfig c;
  c.namespace_ = ns;
  c.name = "gangplank-operator";
  c.identity = identity;
  c.lease_duration = kLease;
  c.renew_deadline = kRenew;
  c.retry_period = kRetry;
  c.release_on_stop = release;
  return c;
}

// Samples is_leader() of every candidate and counts moments with two leaders.
class LeaderWatch {
 public:
  explicit LeaderWatch(std::vector<LeaderElector*> candidates) : candidates_(std::move(candidates)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        int leaders = 0;
        for (auto* c : candidates_) leaders += c->IsLeader() ? 1 : 0;
        if (leaders > 1) ++overlaps_;
        std::this_thread::sleep_for(2ms);
      }
    });
  }
  ~LeaderWatch() {
    stop_ = true;
    thread_.join();
  }
  int overlaps() const { return overlaps_; }

 private:
  std::vector<LeaderElector*> candidates_;
  std::atomic<bool> stop_{false};
  std::atomic<int> overlaps_{0};
  std::thread thread_;
};

int leader_index(const std::vector<std::unique_ptr<LeaderElector>>& electors) {
  int found = -1;
  for (size_t i = 0; i < electors.size(); ++i) {
    if (electors[i]->IsLeader()) found = static_cast<int>(i);
  }
  return found;
}

TEST(LeaderElectionTest, ValidatesTimings) {
  ClusterConfig unreachable;
  unreachable.server = "http://127.0.0.1:1";
  auto client = std::make_shared<Client>(std::make_shared<RestClient>(unreachable, RestOptions{}));
  auto bad = config("kube-system", "a");
  bad.renew_deadline = kLease;
  EXPECT_THROW(LeaderElector(client, bad), std::invalid_argument);
  bad = config("kube-system", "a");
  bad.retry_period = 1300ms;  // 1.2 x 1300 > 1500
  EXPECT_THROW(LeaderElector(client, bad), std::invalid_argument);
  bad = config("kube-system", "");
  EXPECT_THROW(LeaderElector(client, bad), std::invalid_argument);
}

using LeaderElectionOnRealApi = testing::RealApiTest;

TEST_F(LeaderElectionOnRealApi, OneLeaderAndHandoverWithinALeaseDurationWhenTheLeaderStopsRenewing) {
  std::atomic<int> started{0};  // Before the electors, whose threads count into it until they stop.
  std::vector<std::unique_ptr<LeaderElector>> electors;
  std::vector<LeaderElector*> raw;
  for (const char* id : {"a", "b", "c"}) {
    auto c = config(ns(), id);
    c.on_started_leading = [&] { ++started; };
    electors.push_back(std::make_unique<LeaderElector>(std::make_shared<Client>(rest_direct()), c));
    raw.push_back(electors.back().get());
  }
  LeaderWatch watch(raw);
  for (auto& e : electors) e->Start();
  ASSERT_TRUE(eventually([&] { return leader_index(electors) >= 0; }, 5s));
  int first = leader_index(electors);
  std::this_thread::sleep_for(3 * kLease / 2);  // several renewals: leadership must stay put
  EXPECT_EQ(leader_index(electors), first);
  EXPECT_EQ(started.load(), 1);

  // The leader stops renewing (crash: no release). Another candidate takes over once the lease it
  // observed has run out: within one lease duration of the lease expiring, plus polling.
  auto stopped_at = std::chrono::steady_clock::now();
  electors[first]->Stop();
  ASSERT_TRUE(eventually([&] { int i = leader_index(electors); return i >= 0 && i != first; }, 3 * kLease));
  auto handover = std::chrono::steady_clock::now() - stopped_at;
  std::cout << "[ leader ] handover after " << std::chrono::duration_cast<std::chrono::milliseconds>(handover).count()
            << " ms (lease " << kLease.count() << " ms, retry " << kRetry.count() << " ms)\n";
  EXPECT_LE(handover, kLease + 2 * kRetry + 300ms);
  EXPECT_GE(handover, kLease - kRetry) << "nobody may take over a lease that is still valid";
  EXPECT_EQ(watch.overlaps(), 0);

  const Json lease = client_->Get(resources::Leases(), ns(), "gangplank-operator");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  for (auto& e : electors) e->Stop();
}

TEST_F(LeaderElectionOnRealApi, LeaderStopsActingWhenItCannotRenewAndNobodyOverlaps) {
  std::atomic<int> stopped{0};  // Before the electors, whose threads count into it until they stop.
  std::vector<std::unique_ptr<LeaderElector>> electors;
  std::vector<LeaderElector*> raw;
  for (const char* id : {"a", "b"}) {
    auto c = config(ns(), id);
    c.on_stopped_leading = [&] { ++stopped; };
    RestOptions o = testing::unlimited();
    o.max_retries = 0;
    o.request_timeout = 500ms;
    electors.push_back(std::make_unique<LeaderElector>(std::make_shared<Client>(proxied_rest(o)), c));
    raw.push_back(electors.back().get());
  }
  LeaderWatch watch(raw);
  for (auto& e : electors) e->Start();
  ASSERT_TRUE(eventually([&] { return leader_index(electors) >= 0; }, 5s));
  // Every lease write fails from now on: the leader must give up within the renew deadline.
  proxy().FailNext(ProxyFault::Status(500).Times(100000).OnPath("/leases/").OnMethod("PUT"));
  auto failing_since = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return leader_index(electors) < 0; }, 2 * kLease));
  EXPECT_LE(std::chrono::steady_clock::now() - failing_since, kRenew + kRetry + 200ms);
  EXPECT_TRUE(eventually([&] { return stopped.load() == 1; }, kLease));
  proxy().ClearFaults();
  ASSERT_TRUE(eventually([&] { return leader_index(electors) >= 0; }, 3 * kLease));
  EXPECT_EQ(watch.overlaps(), 0);
  for (auto& e : electors) e->Stop();
}

TEST_F(LeaderElectionOnRealApi, ReleaseOnStopHandsOverImmediately) {
  LeaderElector a(std::make_shared<Client>(rest_direct()), config(ns(), "a", /*release=*/true));
  a.Start();
  ASSERT_TRUE(eventually([&] { return a.IsLeader(); }, 5s));
  LeaderElector b(std::make_shared<Client>(rest_direct()), config(ns(), "b"));
  b.Start();
  std::this_thread::sleep_for(2 * kRetry);
  EXPECT_FALSE(b.IsLeader());
  auto stop_at = std::chrono::steady_clock::now();
  a.Stop();
  // Released: empty, or already b's (b retries every kRetry, and on a loaded machine it may take the lease
  // before this read), never still a's.
  const Json lease = client_->Get(resources::Leases(), ns(), "gangplank-operator");
  EXPECT_NE(lease["spec"].value("holderIdentity", ""), "a");
  ASSERT_TRUE(eventually([&] { return b.IsLeader(); }, 3 * kLease));
  EXPECT_LT(std::chrono::steady_clock::now() - stop_at, kLease) << "a released lease needs no expiry wait";
  b.Stop();
}

}  // namespace
}  // namespace gangplank::kube
