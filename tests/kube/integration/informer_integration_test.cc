// Informers against the real kube-apiserver: convergence, indexes and handlers off the watch thread;
// bookmarks; and, through the fault proxy, relist diffs with tombstones after 410 (HTTP and in-stream),
// clean stream ends and a randomized fault storm.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "real_api_fixture.h"
#include "kube/informer.h"

namespace gangplank::kube {
namespace {

using namespace std::chrono_literals;
using gangplank::testing::FaultProxy;
using gangplank::testing::ProxyFault;
using testing::eventually;
using testing::pod_json;

InformerOptions fast_options() {
  InformerOptions o;
  o.page_size = 50;
  o.backoff.initial = 20ms;
  o.backoff.cap = 300ms;
  o.short_watch = 0ms;
  o.idle_timeout = 5s;
  return o;
}

// Records every handler call; flags duplicates of one (key, resourceVersion) and keeps the view that
// the handlers alone imply.
class Recorder {
 public:
  using Ptr = Informer<Pod>::Ptr;

  Informer<Pod>::Handlers handlers(std::thread::id watch_thread_guard = {}) {
    (void)watch_thread_guard;
    Informer<Pod>::Handlers h;
    h.on_add = [this](const Ptr& p) { seen("add", p->meta.key(), p->meta.resource_version, true); };
    h.on_update = [this](const Ptr& old, const Ptr& p) {
      if (old->meta.resource_version == p->meta.resource_version) same_rv_updates++;
      seen("update", p->meta.key(), p->meta.resource_version, true);
    };
    h.on_delete = [this](const Ptr& last, bool unknown) {
      std::lock_guard lock(mutex_);
      if (unknown) ++tombstones;
      auto key = last->meta.key();
      if (!deleted_.insert(key + "@" + last->meta.resource_version).second) ++duplicates;
      view_.erase(key);
      ++deletes;
    };
    return h;
  }

  std::map<std::string, std::string> view() const {
    std::lock_guard lock(mutex_);
    return view_;
  }

  std::atomic<int> duplicates{0};
  std::atomic<int> same_rv_updates{0};
  std::atomic<int> tombstones{0};
  std::atomic<int> deletes{0};
  std::atomic<int> adds{0};

 private:
  void seen(const char* kind, const std::string& key, const std::string& rv, bool present) {
    std::lock_guard lock(mutex_);
    if (!delivered_.insert(key + "@" + rv).second) ++duplicates;
    if (present) view_[key] = rv;
    if (std::string_view(kind) == "add") ++adds;
  }
  mutable std::mutex mutex_;
  std::set<std::string> delivered_;
  std::set<std::string> deleted_;
  std::map<std::string, std::string> view_;
};

std::map<std::string, std::string> cache_pods(const Informer<Pod>& informer) {
  std::map<std::string, std::string> out;
  for (const auto& p : informer.List()) out[p->meta.key()] = p->meta.resource_version;
  return out;
}

using InformerIntegration = testing::RealApiTest;

InformerOptions fast_options_in(const std::string& ns) {
  InformerOptions o = fast_options();
  o.namespace_ = ns;
  return o;
}

TEST_F(InformerIntegration, SyncsIndexesAndFollowsChanges) {
  // The nodes exist: kube-controller-manager's pod GC deletes pods bound to a missing node (after 40 s,
  // which a loaded machine reaches while this test makes its pods).
  for (const char* node : {"n1", "n2"}) put(resources::Nodes(), {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", node}}}});
  for (int i = 0; i < 120; ++i) {
    put(resources::Pods(), pod_json(ns(), "p" + std::to_string(i), i % 2 ? "n1" : "", "g" + std::to_string(i % 3)));
  }
  Recorder recorder;  // Before the informer: its handlers must outlive the informer's threads.
  Informer<Pod> informer(rest_direct(), resources::Pods(), fast_options_in(ns()));
  informer.AddIndex("node", indexes::PodNodeName);
  informer.AddIndex("gang", [](const Pod& p) { return indexes::ByLabel(p, "gangplank.io/gang"); });
  informer.AddHandlers(recorder.handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));
  EXPECT_EQ(informer.size(), 120u);
  EXPECT_EQ(informer.ByIndex("node", "n1").size(), 60u);
  EXPECT_EQ(informer.ByIndex("gang", "g0").size(), 40u);
  EXPECT_THROW(informer.ByIndex("nope", "x"), std::invalid_argument);

  EXPECT_EQ(client_->BindPod(ns(), "p0", "n1"), BindOutcome::kBound);
  Remove(resources::Pods(), "p1");
  put(resources::Pods(), pod_json(ns(), "new", "n2"));
  ASSERT_TRUE(eventually([&] { return cache_pods(informer) == server_pods(); }))
      << ::testing::PrintToString(cache_pods(informer)) << "\n" << ::testing::PrintToString(server_pods());
  EXPECT_EQ(informer.ByIndex("node", "n1").size(), 60u);  // +p0, -p1
  EXPECT_EQ(informer.ByIndex("node", "n2").size(), 1u);
  ASSERT_TRUE(informer.WaitIdle(5s));
  EXPECT_EQ(recorder.view(), server_pods());
  EXPECT_EQ(recorder.duplicates.load(), 0);
  EXPECT_EQ(recorder.tombstones.load(), 0);
  informer.Stop();
}

TEST_F(InformerIntegration, SlowHandlersDoNotBlockTheWatchReader) {
  std::atomic<bool> release{false};  // Before the informer, whose handler reads it.
  Informer<Pod> informer(rest_direct(), resources::Pods(), fast_options_in(ns()));
  Informer<Pod>::Handlers h;
  h.on_add = [&](const Informer<Pod>::Ptr&) {
    while (!release) std::this_thread::sleep_for(1ms);
  };
  informer.AddHandlers(h);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(5s));
  for (int i = 0; i < 50; ++i) put(resources::Pods(), pod_json(ns(), "p" + std::to_string(i)));
  // The cache keeps up although the handler is stuck on the first add.
  EXPECT_TRUE(eventually([&] { return informer.size() == 50; }, 10s));
  release = true;
  EXPECT_TRUE(informer.WaitIdle(5s));
}

// While the client is cut off, pods vanish and the server's history moves on: resuming gets 410 (as an
// HTTP status, or as the watch cache says it, an ERROR event in the stream), and the relist must report
// the missed deletions with the last known state.
class InformerFaults : public testing::RealApiTest {
 protected:
  void MissedDeletesBecomeTombstones(bool expired_as_event);
};

void InformerFaults::MissedDeletesBecomeTombstones(bool expired_as_event) {
  FaultProxy& proxy = this->proxy();
  const std::string ns = this->ns();
  for (int i = 0; i < 10; ++i) client_->Create(resources::Pods(), ns, pod_json(ns, "p" + std::to_string(i)));
  Recorder recorder;  // Before the informer: its handlers must outlive the informer's threads.
  Informer<Pod> informer(testing::rest_for(proxy), resources::Pods(), fast_options_in(ns));
  informer.AddHandlers(recorder.handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(5s));
  proxy.Stop();
  client_->Remove(resources::Pods(), ns, "p3", testing::immediately());
  client_->Remove(resources::Pods(), ns, "p7", testing::immediately());
  ASSERT_EQ(client_->BindPod(ns, "p5", "n9"), BindOutcome::kBound);
  proxy.FailNext(ProxyFault::Status(410).WatchesOnly().InStream(expired_as_event));
  proxy.Start();
  ASSERT_TRUE(eventually([&] { return cache_pods(informer) == server_pods(); }))
      << "lists=" << informer.stats().lists << " watches=" << informer.stats().watches
      << " errors=" << informer.stats().watch_errors << " relists_after_410=" << informer.stats().relists_after_expired;
  ASSERT_TRUE(informer.WaitIdle(5s));
  EXPECT_EQ(recorder.tombstones.load(), 2);
  EXPECT_EQ(recorder.view(), server_pods());
  EXPECT_EQ(recorder.duplicates.load(), 0);
  EXPECT_GE(informer.stats().relists_after_expired, 1);
  EXPECT_EQ(informer.Get(ns + "/p5")->node_name, "n9");
  informer.Stop();
}

TEST_F(InformerFaults, MissedDeletesAfterHttp410AreTombstones) { MissedDeletesBecomeTombstones(false); }
TEST_F(InformerFaults, MissedDeletesAfterInStream410AreTombstones) { MissedDeletesBecomeTombstones(true); }

TEST_F(InformerFaults, CleanStreamEndResumesWithoutRelist) {
  for (int i = 0; i < 5; ++i) put(resources::Pods(), pod_json(ns(), "p" + std::to_string(i)));
  Informer<Pod> informer(proxied_rest(), resources::Pods(), fast_options_in(ns()));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(5s));
  ASSERT_TRUE(eventually([&] { return proxy().OpenWatches() == 1; }));
  for (int round = 0; round < 3; ++round) {
    // The proxy cuts a stream when it next pumps it; wait for the new watch so the round's pod comes on
    // it, not on the old stream before the cut (which made this count one watch short under load).
    const auto watches = informer.stats().watches;
    proxy().DropWatches();
    ASSERT_TRUE(eventually([&] { return informer.stats().watches > watches && proxy().OpenWatches() == 1; }));
    put(resources::Pods(), pod_json(ns(), "r" + std::to_string(round)));
    ASSERT_TRUE(eventually([&] { return cache_pods(informer) == server_pods(); }));
  }
  EXPECT_EQ(informer.stats().lists, 1) << "a clean end of stream must re-watch, not relist";
  EXPECT_GE(informer.stats().watches, 4);
  informer.Stop();
}

// After an outage the resumed watch of a quiet namespace brings no event until its next bookmark (a
// minute or so), yet the server has answered: the informer says its watch is open from the 200 on, so
// readiness (the extender's WatchHealth) need not wait for an event to trust the connection again.
TEST_F(InformerFaults, AResumedWatchIsOpenBeforeItsFirstEvent) {
  put(resources::Pods(), pod_json(ns(), "quiet"));
  Informer<Pod> informer(proxied_rest(), resources::Pods(), fast_options_in(ns()));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(5s));
  ASSERT_TRUE(eventually([&] { return informer.stats().watch_open; }));
  proxy().FailNext(ProxyFault::Status(503).Times(1000000));
  proxy().DropWatches();
  ASSERT_TRUE(eventually([&] {
    const InformerStats s = informer.stats();
    return !s.watch_open && s.consecutive_failures >= 3;
  })) << "503s did not close the watch and count as failures";
  proxy().ClearFaults();
  ASSERT_TRUE(eventually([&] { return informer.stats().watch_open; }, 10s)) << "the resumed watch never counted as open";
  EXPECT_EQ(informer.stats().lists, 1) << "a 503 is no reason to relist";
  EXPECT_EQ(informer.size(), 1u);
  informer.Stop();
}

// kube-apiserver sends a watch a bookmark two seconds before the timeout it asked for (and once a minute),
// but not on every watch: here the first came after about 14 s of 3-6 s watches, and a loaded CI saw none
// in 20 s once. Longer watches (8-16 s, idle cut at 30 s) got one less often, so the watches stay short and
// the wait is long.
TEST_F(InformerIntegration, BookmarksAdvanceTheResumePointWithoutTouchingTheCache) {
  put(resources::Pods(), pod_json(ns(), "watched"));
  InformerOptions o = fast_options_in(ns());
  o.field_selector = "metadata.name=watched";
  o.min_watch_timeout = 3s;
  Informer<Pod> informer(rest_direct(), resources::Pods(), o);
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(5s));
  std::string start_rv = informer.LastResourceVersion();
  for (int i = 0; i < 5; ++i) put(resources::Pods(), pod_json(ns(), "other" + std::to_string(i)));  // filtered out
  ASSERT_TRUE(eventually([&] { return informer.stats().bookmarks > 0 && informer.LastResourceVersion() != start_rv; }, 90s));
  EXPECT_EQ(informer.size(), 1u);
  informer.Stop();
}

// The issue's reliability bar: randomized drops and cuts, 410s, 429s, 500s and the server gone and back
// while objects change; afterwards cache and handler view equal the server, no missed deletes, and no
// handler call repeated for one resourceVersion.
TEST_F(InformerFaults, ConvergesUnderRandomizedFaults) {
  std::mt19937 rng(20261121);
  for (int i = 0; i < 40; ++i) client_->Create(resources::Pods(), ns(), pod_json(ns(), "p" + std::to_string(i)));
  RestOptions rest_options = testing::unlimited();
  rest_options.max_retries = 3;
  rest_options.request_timeout = 3s;
  InformerOptions informer_options = fast_options_in(ns());
  std::mutex errors_mutex;
  std::map<std::string, int> errors;
  informer_options.on_error = [&](const std::string& what) {
    std::lock_guard lock(errors_mutex);
    errors[what.substr(0, 90)]++;
    if (std::getenv("GANGPLANK_TEST_VERBOSE")) std::cout << std::chrono::steady_clock::now().time_since_epoch().count() / 1000000 << " " << what << std::endl;
  };
  Recorder recorder;  // Before the informer: its handlers must outlive the informer's threads.
  Informer<Pod> informer(proxied_rest(rest_options), resources::Pods(), informer_options);
  informer.AddHandlers(recorder.handlers());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(10s));

  std::map<std::string, int> fault_counts;
  int faults = 0;
  int next_name = 40;
  int revision = 0;
  auto storm_end = std::chrono::steady_clock::now() + 60s;
  while (faults < 220 && std::chrono::steady_clock::now() < storm_end) {
    // A few changes between faults: creates, updates, deletes.
    for (int c = 0; c < 3; ++c) {
      auto pods = client_->List(resources::Pods(), ns())["items"];
      int action = std::uniform_int_distribution<int>(0, 2)(rng);
      if (action == 0 || pods.size() < 10) {
        client_->Create(resources::Pods(), ns(), pod_json(ns(), "p" + std::to_string(next_name++)));
      } else if (action == 1) {
        auto victim = pods[std::uniform_int_distribution<size_t>(0, pods.size() - 1)(rng)];
        victim["apiVersion"] = "v1";
        victim["kind"] = "Pod";
        victim["metadata"]["labels"]["revision"] = std::to_string(++revision);
        client_->Update(resources::Pods(), ns(), victim);
      } else {
        auto& victim = pods[std::uniform_int_distribution<size_t>(0, pods.size() - 1)(rng)];
        client_->Remove(resources::Pods(), ns(), victim["metadata"]["name"], testing::immediately());
      }
    }
    int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    // A request fault is only counted once the client has actually hit it: injecting them faster than
    // the client retries would just queue failures for every future request (a dead server, not faults).
    // The open watch is cut at the same time, so the client's reconnect meets the fault.
    auto inject = [&](const ProxyFault& r) {
      auto before = proxy().RequestCount();
      proxy().FailNext(r);
      proxy().DropWatches();
      if (eventually([&] { return proxy().RequestCount() >= before + static_cast<size_t>(r.count); }, 3s)) return true;
      proxy().ClearFaults();
      return false;
    };
    switch (kind) {
      case 0:
        proxy().DropWatches();
        fault_counts["drop"]++;
        break;
      case 1:
        proxy().DropWatches(FaultProxy::WatchEnd::kMidEvent);
        fault_counts["cut mid-event"]++;
        break;
      case 2:
      case 3:
        if (!inject(ProxyFault::Status(410).WatchesOnly().InStream(kind == 3))) continue;
        fault_counts[kind == 3 ? "410 in stream" : "410"]++;
        break;
      case 4:
      case 5:
        if (!inject(ProxyFault::Status(429).RetryAfter(0))) continue;
        fault_counts["429"]++;
        break;
      case 6:
      case 7:
        if (!inject(ProxyFault::Status(500))) continue;
        fault_counts["500"]++;
        break;
      case 8:
        if (!inject(ProxyFault::Status(503).Times(2))) continue;
        fault_counts["drop+503"]++;
        break;
      default:
        proxy().Stop();
        proxy().Start();
        fault_counts["server gone and back"]++;
        break;
    }
    ++faults;
    if (faults % 40 == 0) {
      auto st = informer.stats();
      std::cout << "[ storm ] faults=" << faults << " lists=" << st.lists << " watches=" << st.watches
                << " errors=" << st.watch_errors << " events=" << st.events << "\n";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 120)(rng)));
  }
  proxy().ClearFaults();
  {
    std::lock_guard lock(errors_mutex);
    for (const auto& [what, n] : errors) std::cout << "[ errors ] " << n << " x " << what << "\n";
  }
  for (const auto& [kind, n] : fault_counts) std::cout << "[ faults ] " << kind << ": " << n << "\n";
  std::cout << "[ faults ] total: " << faults << "\n";
  EXPECT_GE(faults, 200);
  ASSERT_TRUE(eventually([&] { return cache_pods(informer) == server_pods(); }, 30s))
      << "cache " << cache_pods(informer).size() << " vs server " << server_pods().size();
  ASSERT_TRUE(informer.WaitIdle(10s));
  EXPECT_EQ(recorder.view(), server_pods()) << "handlers missed an add or a delete";
  EXPECT_EQ(recorder.duplicates.load(), 0);
  EXPECT_EQ(recorder.same_rv_updates.load(), 0);
  auto stats = informer.stats();
  std::cout << "[ informer ] lists=" << stats.lists << " relists_after_410=" << stats.relists_after_expired
            << " watches=" << stats.watches << " watch_errors=" << stats.watch_errors << " events=" << stats.events
            << " tombstones=" << recorder.tombstones.load() << "\n";
  informer.Stop();
}

}  // namespace
}  // namespace gangplank::kube
