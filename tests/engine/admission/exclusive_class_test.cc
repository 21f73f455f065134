// Gangs of one exclusive class never share a domain of their required level (a LeaderWorkerSet's
// exclusive topology): not with a running gang of the class, not with one admitted earlier in the round.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/admission/admission_round.h"
#include "tests/engine/admission/admission_fixture.h"

namespace gangplank::engine {
namespace {

using ::testing::UnorderedElementsAre;
using testing::AdmittedNames;
using testing::Decide;
using testing::Scenario;
using testing::SmallCluster;

constexpr const char* kClass = "LeaderWorkerSet groups of ml";

// Two racks of four 8-GPU nodes; the waiting gangs need two nodes in one rack.
Scenario TwoRacks() {
  Scenario s(SmallCluster(2, 4));
  s.Queue("a");
  return s;
}

void InRack(Scenario& s, const std::string& name, int arrival, const std::string& cls) {
  s.Waiting(name, "a", arrival, 2, 8);
  s.input.waiting.back().request.required_level = "rack";
  s.input.waiting.back().request.exclusive_class = cls;
}

std::string RackOf(const Scenario& s, const Admitted& a) {
  return s.cluster.spec(a.plan.allocations.front().allocation.node).labels.at("rack");
}

std::set<std::string> RacksAdmitted(const Scenario& s, const AdmissionDecision& d) {
  std::set<std::string> racks;
  for (const Admitted& a : d.admitted) racks.insert(RackOf(s, a));
  return racks;
}

TEST(ExclusiveClass, GangsOfAClassAdmittedInOneRoundTakeDifferentDomains) {
  Scenario packed = TwoRacks();
  InRack(packed, "g0", 0, "");
  InRack(packed, "g1", 1, "");
  AdmissionDecision d = Decide(packed);
  ASSERT_THAT(AdmittedNames(packed.input, d), UnorderedElementsAre("g0", "g1"));
  EXPECT_EQ(RacksAdmitted(packed, d).size(), 1u) << "without a class the packing policy shares one rack";

  Scenario s = TwoRacks();
  InRack(s, "g0", 0, kClass);
  InRack(s, "g1", 1, kClass);
  d = Decide(s);
  ASSERT_THAT(AdmittedNames(s.input, d), UnorderedElementsAre("g0", "g1"));
  EXPECT_EQ(RacksAdmitted(s, d), (std::set<std::string>{"k0", "k1"}));
  EXPECT_TRUE(s.input.waiting[1].request.members[0].node_label_not_in.empty()) << "the caller's request was narrowed";

  // A third gang of the class has no rack left; one of no class still fits beside either.
  InRack(s, "g2", 2, kClass);
  InRack(s, "other", 3, "");
  d = Decide(s);
  EXPECT_THAT(AdmittedNames(s.input, d), UnorderedElementsAre("g0", "g1", "other"));
}

TEST(ExclusiveClass, ARunningGangOfTheClassKeepsItsDomainButNotFromItsOwnReplacements) {
  Scenario s = TwoRacks();
  s.Running("running", "a", 0, {{"k0-n0", 8}});
  s.input.running.back().exclusive_class = kClass;
  InRack(s, "g0", 1, kClass);
  AdmissionDecision d = Decide(s);
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_EQ(RackOf(s, d.admitted[0]), "k1") << "the packing policy alone would pick the fuller k0";

  // The running gang's own lost members come back to its rack.
  s.input.waiting.clear();
  InRack(s, "running", 1, kClass);
  d = Decide(s);
  ASSERT_EQ(d.admitted.size(), 1u);
  EXPECT_EQ(RackOf(s, d.admitted[0]), "k0");

  // With k1 full too, a gang of the class waits rather than share k0.
  s.input.waiting.clear();
  s.Running("full", "a", 0, {{"k1-n0", 8}, {"k1-n1", 8}, {"k1-n2", 8}});
  InRack(s, "g0", 1, kClass);
  EXPECT_TRUE(Decide(s).admitted.empty());
  s.input.running[0].exclusive_class.clear();
  EXPECT_EQ(Decide(s).admitted.size(), 1u) << "once the running gang is of no class, k0 may be shared";
}

}  // namespace
}  // namespace gangplank::engine
