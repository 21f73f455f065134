#include "cache/state/cluster_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cache/objects/decode_error.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::cache {
namespace {

using testing::GpuNode;
using testing::GpuPod;
using testing::PodOptions;

int FreeGpus(const ClusterState& state, const std::string& node) {
  return state.Read([&](const StateView& v) { return v.cluster().state(v.FindNode(node)).FullyFreeGpus(); });
}

TEST(ClusterState, BoundPodsAndReservationsHoldCapacity) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("bound", {.node = "n1", .gpus = 2}));
  state.UpsertPod(GpuPod("planned", {.planned = "n1", .gpus = 4}));
  state.UpsertPod(GpuPod("pending", {.gpus = 8}));  // Neither bound nor planned: holds nothing.
  EXPECT_EQ(FreeGpus(state, "n1"), 2);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.reservation_count(), 1u);
    EXPECT_EQ(v.ReservedWholeGpus(v.FindNode("n1")), 4);
    EXPECT_EQ(v.PodsOn(v.FindNode("n1")).size(), 2u);
    EXPECT_EQ(v.unaccounted_count(), 0u);
  });
}

TEST(ClusterState, PlannedPodThatGetsBoundKeepsOneAllocation) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("p", {.planned = "n1", .gpus = 4}));
  state.UpsertPod(GpuPod("p", {.node = "n1", .planned = "n1", .gpus = 4}));
  EXPECT_EQ(FreeGpus(state, "n1"), 4);
  state.Read([](const StateView& v) { EXPECT_EQ(v.reservation_count(), 0u); });
  state.UpsertPod(GpuPod("p", {.node = "n1", .gpus = 4, .phase = "Succeeded"}));
  EXPECT_EQ(FreeGpus(state, "n1"), 8);  // Finished pods hold nothing.
  state.UpsertPod(GpuPod("q", {.node = "n1", .gpus = 3}));
  state.DeletePod("uid-q");
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
}

TEST(ClusterState, AssumedBindingHoldsCapacityUntilTheInformerConfirmsIt) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("shared", {.gpu_milli = 600}));  // Pending: holds nothing yet.
  EXPECT_TRUE(state.AssumeBound("uid-shared", "n1"));
  const auto free_milli = [&] {
    return state.Read([](const StateView& v) { return v.cluster().state(v.FindNode("n1")).TotalFreeGpuMilli(); });
  };
  EXPECT_EQ(free_milli(), 7400);  // Held at once, before any informer event.
  EXPECT_EQ(FreeGpus(state, "n1"), 7);
  // The informer then reports the binding: nothing is charged twice.
  state.UpsertPod(GpuPod("shared", {.node = "n1", .gpu_milli = 600}));
  EXPECT_EQ(free_milli(), 7400);
  state.Read([](const StateView& v) { EXPECT_EQ(v.PodsOn(v.FindNode("n1")).size(), 1u); });
  EXPECT_TRUE(state.AssumeBound("uid-shared", "n1"));  // Already there: still true, still one charge.
  EXPECT_EQ(free_milli(), 7400);
}

TEST(ClusterState, AssumeRefusesUnknownFinishedAndElsewhereBoundPods) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("done", {.gpus = 1, .phase = "Succeeded"}));
  state.UpsertPod(GpuPod("there", {.node = "n2", .gpus = 2}));
  EXPECT_FALSE(state.AssumeBound("uid-ghost", "n1"));
  EXPECT_FALSE(state.AssumeBound("uid-done", "n1"));
  EXPECT_FALSE(state.AssumeBound("uid-there", "n1"));
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
  EXPECT_EQ(FreeGpus(state, "n2"), 6);
}

TEST(ClusterState, PodsSeenBeforeTheirNodeAreAccountedWhenItArrives) {
  ClusterState state;
  state.UpsertPod(GpuPod("early", {.node = "late-node", .gpus = 2}));
  state.Read([](const StateView& v) { EXPECT_EQ(v.unaccounted_count(), 1u); });
  state.UpsertNode(GpuNode("late-node", 4));
  EXPECT_EQ(FreeGpus(state, "late-node"), 2);
  state.Read([](const StateView& v) { EXPECT_EQ(v.unaccounted_count(), 0u); });
}

// kube-scheduler binds a preemptor as soon as its victims are gone from its own cache; the binding can
// reach this informer before their deletions do. The bound pod then finds no room in the books, and
// takes it when a victim's deletion arrives, not at its next update.
TEST(ClusterState, BoundPodsShortOfRoomAreAccountedWhenRoomFreesOnTheirNode) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertNode(GpuNode("n2", 8));
  state.UpsertPod(GpuPod("victim-0", {.node = "n1", .gpus = 4}));
  state.UpsertPod(GpuPod("victim-1", {.node = "n1", .gpus = 4}));
  state.UpsertPod(GpuPod("elsewhere", {.node = "n2", .gpus = 4}));
  state.UpsertPod(GpuPod("preemptor", {.node = "n1", .gpus = 8}));
  state.UpsertPod(GpuPod("planned", {.planned = "n1", .gpus = 4}));  // A reservation: bound pods go first.
  const auto problem = [&](const std::string& name) {
    return state.Read([&](const StateView& v) { return v.FindPod("uid-" + name)->problem; });
  };
  EXPECT_NE(problem("preemptor"), "");
  state.Read([](const StateView& v) { EXPECT_EQ(v.unaccounted_count(), 2u); });

  state.DeletePod("uid-elsewhere");  // Room on another node changes nothing here.
  EXPECT_NE(problem("preemptor"), "");
  state.DeletePod("uid-victim-0");
  EXPECT_NE(problem("preemptor"), "") << "4 GPUs free: still short of room";
  state.UpsertPod(GpuPod("victim-1", {.node = "n1", .gpus = 4, .phase = "Failed"}));  // Finished: holds nothing.
  EXPECT_EQ(problem("preemptor"), "");
  EXPECT_EQ(FreeGpus(state, "n1"), 0);
  EXPECT_NE(problem("planned"), "") << "the bound pod took the room before the reservation";
  state.Read([](const StateView& v) { EXPECT_EQ(v.unaccounted_count(), 1u); });

  state.DeletePod("uid-planned");  // Its record leaves the waiting list with it.
  state.DeletePod("uid-preemptor");
  EXPECT_EQ(FreeGpus(state, "n1"), 8);
  state.Read([](const StateView& v) { EXPECT_EQ(v.unaccounted_count(), 0u); });
}

TEST(ClusterState, NodeChangesRebuildWithoutLosingPods) {
  ClusterState state({"zone"});
  state.UpsertNode(GpuNode("a", 8, "A100", {{"zone", "z1"}}));
  state.UpsertNode(GpuNode("b", 8, "A100", {{"zone", "z1"}}));
  state.UpsertPod(GpuPod("on-a", {.node = "a", .queue = "team", .gpus = 3}));
  state.UpsertPod(GpuPod("on-b", {.node = "b", .queue = "team", .gpus = 5}));
  const auto generation = state.Read([](const StateView& v) { return v.generation(); });
  NodeInfo cordoned = GpuNode("a", 8, "A100", {{"zone", "z1"}});
  cordoned.unschedulable = true;
  state.UpsertNode(cordoned);  // Cordon only: changed in place.
  state.Read([&](const StateView& v) { EXPECT_EQ(v.generation(), generation); });
  NodeInfo tainted = GpuNode("b", 8, "A100", {{"zone", "z1"}});
  tainted.taints = {{"node.kubernetes.io/not-ready", "", "NoSchedule"}};
  state.UpsertNode(tainted);  // Taints only: in place too, and the engine sees them.
  state.Read([&](const StateView& v) {
    EXPECT_EQ(v.generation(), generation);
    EXPECT_FALSE(v.cluster().Eligible(v.FindNode("b"), engine::PodRequest{}));
    EXPECT_EQ(v.cluster().spec(v.FindNode("b")).taints.size(), 1u);
  });
  state.UpsertNode(GpuNode("b", 8, "A100", {{"zone", "z1"}}));  // Ready again.
  state.Read([&](const StateView& v) { EXPECT_TRUE(v.cluster().Eligible(v.FindNode("b"), engine::PodRequest{})); });
  EXPECT_EQ(FreeGpus(state, "b"), 3);  // Its pod still holds what it held.
  state.UpsertNode(GpuNode("a", 8, "A100", {{"zone", "z2"}}));  // Label change: rebuild.
  state.Read([&](const StateView& v) {
    EXPECT_NE(v.generation(), generation);
    EXPECT_EQ(v.QueueUsageMilli("team"), 8000);
  });
  EXPECT_EQ(FreeGpus(state, "a"), 5);
  state.DeleteNode("b");
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.FindNode("b"), engine::kNoNode);
    EXPECT_EQ(v.unaccounted_count(), 1u);  // on-b waits for its node.
    EXPECT_EQ(v.QueueUsageMilli("team"), 3000);
  });
  state.UpsertNode(GpuNode("b", 8));
  EXPECT_EQ(FreeGpus(state, "b"), 3);
}

// The node index keeps its own packed copy of the names and grows by rehashing: every node stays
// found through growth, by one name or many, and near-miss names are not.
TEST(ClusterState, EveryNodeIsFoundByNameThroughIndexGrowthAndNearMissesAreNot) {
  ClusterState state;
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("gpu-node-" + std::to_string(i) + std::string(static_cast<size_t>(i % 40), 'x'));
  for (const std::string& n : names) state.UpsertNode(GpuNode(n, 8));
  state.Read([&](const StateView& v) {
    std::vector<std::string_view> asked(names.begin(), names.end());
    asked.push_back("gpu-node-");
    asked.push_back("gpu-node-0x");  // Node 0 has no x.
    asked.push_back(names.back() + "x");
    asked.push_back("");
    const std::vector<engine::NodeId> ids = v.FindNodes(asked);
    ASSERT_EQ(ids.size(), asked.size());
    for (size_t i = 0; i < names.size(); ++i) {
      ASSERT_NE(ids[i], engine::kNoNode) << names[i];
      EXPECT_EQ(v.cluster().spec(ids[i]).name, names[i]);
      EXPECT_EQ(v.FindNode(names[i]), ids[i]);
    }
    for (size_t i = names.size(); i < asked.size(); ++i) {
      EXPECT_EQ(ids[i], engine::kNoNode) << asked[i];
      EXPECT_EQ(v.FindNode(asked[i]), engine::kNoNode) << asked[i];
    }
  });
}

TEST(ClusterState, UnusablePodIsKeptWithItsProblemAndBadNodeIsRefused) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  PodInfo bad = GpuPod("bad", {.node = "n1"});
  bad.containers[0].requests[0].second = "a lot";
  state.UpsertPod(bad);
  state.Read([](const StateView& v) {
    const PodRecord* p = v.FindPod("uid-bad");
    ASSERT_NE(p, nullptr);
    EXPECT_NE(p->problem.find("invalid quantity"), std::string::npos);
    EXPECT_EQ(v.unaccounted_count(), 1u);
  });
  NodeInfo broken = GpuNode("n2", 8);
  broken.allocatable[0].second = "many";
  EXPECT_THROW(state.UpsertNode(broken), DecodeError);
  state.Read([](const StateView& v) { EXPECT_EQ(v.FindNode("n2"), engine::kNoNode); });
}

TEST(ClusterState, ConcurrentReadersSeeConsistentBooksWhileOneWriterWorks) {
  ClusterState state;
  for (int n = 0; n < 20; ++n) state.UpsertNode(GpuNode("n" + std::to_string(n), 8));
  std::atomic<bool> done{false};
  std::atomic<long> reads{0};
  std::atomic<long> inconsistent{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        state.Read([&](const StateView& v) {
          // Free + held by pods on each node always equals capacity.
          long held = 0, free = 0;
          for (engine::NodeId id = 0; id < v.cluster().size(); ++id) {
            free += v.cluster().state(id).FullyFreeGpus();
            for (const auto& uid : v.PodsOn(id)) held += v.FindPod(uid)->request.gpu_count;
          }
          if (held + free != 160) ++inconsistent;
        });
        ++reads;
      }
    });
  }
  while (reads.load() < 3) std::this_thread::yield();  // Readers are running before writes start.
  for (int i = 0; i < 2000 || (reads.load() < 300 && i < 200000); ++i) {
    const std::string node = "n" + std::to_string(i % 20);
    state.UpsertPod(GpuPod("p" + std::to_string(i % 50), {.node = node, .gpus = 1 + i % 2}));
    if (i % 7 == 0) state.DeletePod("uid-p" + std::to_string((i / 7) % 50));
    if (i % 500 == 0) state.UpsertNode(GpuNode(node, 8, i % 1000 ? "A100" : "H100"));
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_GE(reads.load(), 3);
  EXPECT_EQ(inconsistent.load(), 0);
}

PoolConfig Pool(const std::string& name, std::map<std::string, std::string> selector) {
  PoolConfig p;
  p.name = name;
  p.node_selector = std::move(selector);
  return p;
}

// Queue usage is kept per pool: the same queue's pods on two pools count separately, nodes selected by
// no pool (or by two) belong to none, and moving pools around re-sorts what is already cached.
TEST(ClusterState, QueueUsageIsKeptPerPool) {
  ClusterState state;
  state.SetPools({Pool("a100", {{"pool", "a"}}), Pool("h100", {{"pool", "h"}}), Pool("both", {{"shared", "yes"}})});
  state.UpsertNode(GpuNode("a-1", 8, "A100", {{"pool", "a"}}));
  state.UpsertNode(GpuNode("h-1", 8, "H100", {{"pool", "h"}}));
  state.UpsertNode(GpuNode("x-1", 8, "H100", {{"pool", "h"}, {"shared", "yes"}}));  // Two pools: neither.
  state.UpsertPod(GpuPod("p1", {.node = "a-1", .queue = "team", .gpus = 2}));
  state.UpsertPod(GpuPod("p2", {.planned = "h-1", .queue = "team", .gpus = 4}));
  state.UpsertPod(GpuPod("p3", {.node = "x-1", .queue = "team", .gpus = 1}));
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.PoolOf(v.FindNode("a-1")), v.FindPool("a100"));
    EXPECT_EQ(v.PoolOf(v.FindNode("x-1")), -1);
    EXPECT_EQ(v.QueueUsageMilli("team", v.FindPool("a100")), 2000);
    EXPECT_EQ(v.QueueUsageMilli("team", v.FindPool("h100")), 4000);
    EXPECT_EQ(v.QueueUsageMilli("team", -1), 1000);
    EXPECT_EQ(v.QueueUsageMilli("team"), 7000);
    EXPECT_EQ(v.FindPool("nope"), -1);
  });
  state.SetPools({Pool("all-h", {{"pool", "h"}})});  // x-1 now has one pool.
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team", 0), 5000);
    EXPECT_EQ(v.QueueUsageMilli("team", -1), 2000);
  });
  state.DeletePod("uid-p2");
  state.Read([](const StateView& v) { EXPECT_EQ(v.QueueUsageMilli("team", 0), 1000); });
}

// A labeller adding or refreshing a label that moves the node to no other pool or topology domain
// (kube-controller-manager's beta.kubernetes.io/os on each new node, GPU Feature Discovery's timestamp)
// changes the node in place; one that moves it to another pool rebuilds.
TEST(ClusterState, RelabelsThatMoveNothingChangeTheNodeInPlace) {
  ClusterState state({"zone"});
  state.SetPools({Pool("a100", {{"pool", "a"}}), Pool("h100", {{"pool", "h"}})});
  state.UpsertNode(GpuNode("a", 8, "A100", {{"zone", "z1"}, {"pool", "a"}}));
  state.UpsertPod(GpuPod("on-a", {.node = "a", .queue = "team", .gpus = 3}));
  const auto generation = state.Read([](const StateView& v) { return v.generation(); });
  state.UpsertNode(GpuNode("a", 8, "A100", {{"zone", "z1"}, {"pool", "a"}, {"beta.kubernetes.io/os", "linux"}}));
  state.Read([&](const StateView& v) {
    EXPECT_EQ(v.generation(), generation);
    engine::PodRequest linux;
    linux.node_selector["beta.kubernetes.io/os"] = "linux";
    EXPECT_TRUE(v.cluster().Eligible(v.FindNode("a"), linux)) << "the engine sees the new label";
    EXPECT_EQ(v.QueueUsageMilli("team", v.FindPool("a100")), 3000);
  });
  EXPECT_EQ(FreeGpus(state, "a"), 5);
  state.UpsertNode(GpuNode("a", 8, "A100", {{"zone", "z1"}, {"pool", "h"}}));  // Another pool: rebuild.
  state.Read([&](const StateView& v) {
    EXPECT_NE(v.generation(), generation);
    EXPECT_EQ(v.PoolOf(v.FindNode("a")), v.FindPool("h100"));
    EXPECT_EQ(v.QueueUsageMilli("team", v.FindPool("h100")), 3000);
    EXPECT_EQ(v.QueueUsageMilli("team", v.FindPool("a100")), 0);
  });
  EXPECT_EQ(FreeGpus(state, "a"), 5);
}

// Pods whose own label and namespace name no queue, and pods naming an empty one themselves, are charged
// to the default queue (QueueResolver, as the operator's --default-queue); a namespace's queue still
// wins for unlabelled pods, and setting either moves the pods already cached.
TEST(ClusterState, PodsNamingNoQueueAreChargedToTheDefaultQueue) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  state.UpsertPod(GpuPod("plain", {.node = "n1", .gpus = 2}));
  PodInfo empty_label = GpuPod("empty", {.node = "n1", .gpus = 1});
  empty_label.labels["gangplank.io/queue"] = "";
  state.UpsertPod(empty_label);
  state.UpsertPod(GpuPod("own", {.node = "n1", .queue = "team-b", .gpus = 4}));
  state.SetQueueRules(cache::QueueResolver("default"));
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("default"), 3000);
    EXPECT_EQ(v.QueueUsageMilli("team-b"), 4000);
    EXPECT_EQ(v.QueueOf(GpuPod("new")), "default");
    EXPECT_EQ(v.queue_resolver().default_queue(), "default");
  });
  state.SetNamespaceQueue("ml", "team-a");
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("default"), 1000);  // The empty label keeps the namespace's off.
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 2000);
  });
  state.SetNamespaceQueue("ml", "");
  state.UpsertPod(GpuPod("empty", {.node = "n1", .gpus = 1}));  // Label dropped: still the default, for now.
  state.SetNamespaceQueue("ml", "team-a");                       // Now the namespace's applies to it too.
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("default"), 0);
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 3000);
  });
  state.SetNamespaceQueue("ml", "");
  state.SetQueueRules(cache::QueueResolver(""));
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("default"), 0);
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 0);
    EXPECT_EQ(v.QueueOf(GpuPod("new")), "");
  });
}

// A pod gangplank does not govern (another scheduler's, no gate) pays its namespace's queue alone, as
// the operator charges it: its own label is its owner's word, and the default queue does not apply.
TEST(ClusterState, PodsOfAnotherSchedulerPayTheirNamespacesQueueOnly) {
  ClusterState state;
  state.SetQueueRules(QueueResolver("default", {"gangplank"}));
  state.UpsertNode(GpuNode("n1", 8));
  PodInfo ours = GpuPod("ours", {.node = "n1", .queue = "team-b", .gpus = 1});
  ours.scheduler_name = "gangplank";
  PodInfo foreign = GpuPod("foreign", {.node = "n1", .queue = "team-b", .gpus = 2});
  foreign.scheduler_name = "default-scheduler";
  PodInfo gated = GpuPod("gated", {.planned = "n1", .queue = "team-b", .gpus = 4});
  gated.scheduler_name = "default-scheduler";
  gated.scheduling_gates = {"gangplank.io/admission"};
  state.UpsertPod(ours);
  state.UpsertPod(foreign);
  state.UpsertPod(gated);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team-b"), 5000);  // Its own label charges the foreign pod nothing,
    EXPECT_EQ(v.QueueUsageMilli("default"), 0);    // nor does the default queue take it.
  });
  state.SetNamespaceQueue("ml", "team-a");
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 2000);
    EXPECT_EQ(v.QueueUsageMilli("team-b"), 5000);
  });
  gated.scheduling_gates.clear();  // Its gate gone, a pod of another scheduler is not gangplank's.
  state.UpsertPod(gated);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.QueueUsageMilli("team-a"), 6000);
    EXPECT_EQ(v.QueueUsageMilli("team-b"), 1000);
  });
  state.SetQueueRules(QueueResolver("default"));  // No scheduler named: every pod is governed.
  state.Read([](const StateView& v) { EXPECT_EQ(v.QueueUsageMilli("team-b"), 7000); });
}

// The operator's per-pool state: only the pool's nodes, only pods holding capacity there. Pods on other
// nodes are neither accounted nor counted as problems, and pods leave it when they stop holding.
TEST(ClusterState, ScopedStateKeepsOnlyItsNodesAndTheirHolders) {
  ClusterScope scope;
  scope.selects_node = [](const engine::NodeSpec& n) { return n.labels.count("pool") && n.labels.at("pool") == "a"; };
  scope.held_pods_only = true;
  ClusterState state({"kubernetes.io/hostname"}, scope);
  state.UpsertPod(GpuPod("early", {.node = "a-1", .gpus = 2}));  // Before its node: waits for it.
  state.UpsertPod(GpuPod("doomed", {.node = "b-1", .gpus = 2}));  // Node unknown yet: waits too.
  state.UpsertNode(GpuNode("a-1", 8, "A100", {{"pool", "a"}}));
  state.UpsertNode(GpuNode("b-1", 8, "A100", {{"pool", "b"}}));  // Foreign: "doomed" is not ours.
  state.UpsertPod(GpuPod("there", {.node = "b-1", .gpus = 8}));
  state.UpsertPod(GpuPod("pending", {.gpus = 8}));                 // Holds nothing: not kept.
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.node_count(), 1u);
    EXPECT_EQ(v.pod_count(), 1u);
    EXPECT_EQ(v.unaccounted_count(), 0u);
    EXPECT_NE(v.FindPod("uid-early"), nullptr);
    EXPECT_EQ(v.cluster().state(v.FindNode("a-1")).FullyFreeGpus(), 6);
  });
  state.UpsertPod(GpuPod("early", {.node = "a-1", .gpus = 2, .phase = "Succeeded"}));
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.pod_count(), 0u);
    EXPECT_EQ(v.cluster().state(v.FindNode("a-1")).FullyFreeGpus(), 8);
  });
  // A node relabelled out of the pool takes its pods with it.
  state.UpsertPod(GpuPod("late", {.node = "a-1", .gpus = 4}));
  state.UpsertNode(GpuNode("a-1", 8, "A100", {{"pool", "b"}}));
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.node_count(), 0u);
    EXPECT_EQ(v.pod_count(), 0u);
    EXPECT_EQ(v.unaccounted_count(), 0u);
  });
}

// Every way of belonging to a gang gives the gang key the extender and the operator share.
TEST(ClusterState, PodsAreGroupedByTheirGangIdentity) {
  ClusterState state;
  state.UpsertNode(GpuNode("n1", 8));
  PodInfo owned = GpuPod("w-0", {.node = "n1"});
  owned.controller = OwnerRef{"batch/v1", "Job", "train", "uid-job"};
  state.UpsertPod(owned);
  PodInfo owned2 = GpuPod("w-1", {.node = "n1"});
  owned2.controller = owned.controller;
  state.UpsertPod(owned2);
  state.Read([](const StateView& v) {
    EXPECT_EQ(v.FindPod("uid-w-0")->gang, "ml/Job/train");
    EXPECT_EQ(v.GangMembers("ml/Job/train").size(), 2u);
  });
}

}  // namespace
}  // namespace gangplank::cache
