// The runtime predictor: quantiles per key with a fallback chain, the window, remaining time given
// what a gang has run, and its state carried over to a new predictor.
#include "engine/prediction/runtime_predictor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gangplank::engine {
namespace {

using ::testing::ElementsAre;

RuntimeKey Key(std::string queue, int gpus, std::string job_class = "", std::string ns = "") {
  return RuntimeKey{std::move(queue), std::move(ns), gpus, std::move(job_class)};
}

TEST(RuntimePredictor, LevelsGoFromTheMostSpecificToEverything) {
  EXPECT_THAT(LevelNames(Key("vc1", 8, "bert", "ml")),
              ElementsAre("namespace=ml,class=bert,gpus=8", "namespace=ml,class=bert", "queue=vc1,namespace=ml,gpus=8",
                          "queue=vc1,gpus=8", "queue=vc1", "gpus=8", "*"));
  EXPECT_THAT(LevelNames(Key("", 0)), ElementsAre("*"));
  EXPECT_THAT(LevelNames(Key("vc1", 0)), ElementsAre("queue=vc1", "*"));
}

TEST(RuntimePredictor, NothingIsPredictedBeforeEnoughGangsEnded) {
  RuntimePredictor p(PredictorConfig{3, 64});
  const KeyChain chain = p.Chain(Key("vc1", 8));
  EXPECT_FALSE(p.Quantile(chain, 0.9));
  p.Observe(chain, 100);
  p.Observe(chain, 200);
  EXPECT_FALSE(p.Quantile(chain, 0.9));
  p.Observe(chain, 300);
  ASSERT_TRUE(p.Quantile(chain, 0.9));
  EXPECT_EQ(p.Quantile(chain, 0.9)->seconds, 300);
  EXPECT_EQ(p.Quantile(chain, 0.5)->seconds, 200);
  EXPECT_EQ(p.Quantile(chain, 0)->seconds, 100);
  EXPECT_EQ(p.Quantile(chain, 0.9)->level, "queue=vc1,gpus=8");
}

TEST(RuntimePredictor, ANewKeyBorrowsFromTheFirstLevelWithEnoughSamples) {
  RuntimePredictor p(PredictorConfig{2, 64});
  const KeyChain eight = p.Chain(Key("vc1", 8));
  const KeyChain one = p.Chain(Key("vc2", 1));
  p.Observe(eight, 1000);
  p.Observe(eight, 3000);
  p.Observe(one, 10);
  p.Observe(one, 20);
  // vc1 with 4 GPUs: no sample of its own, nor of 4 GPUs anywhere: vc1 as a whole answers.
  const std::optional<RuntimePrediction> four = p.Quantile(p.Chain(Key("vc1", 4)), 1);
  ASSERT_TRUE(four);
  EXPECT_EQ(four->level, "queue=vc1");
  EXPECT_EQ(four->seconds, 3000);
  // A new queue with 1 GPU: the 1-GPU history.
  EXPECT_EQ(p.Quantile(p.Chain(Key("vc9", 1)), 1)->level, "gpus=1");
  // A new queue and size: everything.
  const std::optional<RuntimePrediction> any = p.Quantile(p.Chain(Key("vc9", 2)), 0.5);
  EXPECT_EQ(any->level, "*");
  EXPECT_EQ(any->samples, 4);
  EXPECT_EQ(any->seconds, 20);
}

TEST(RuntimePredictor, AJobClassIsReadBeforeItsQueue) {
  RuntimePredictor p(PredictorConfig{1, 64});
  p.Observe(p.Chain(Key("vc1", 8)), 50000);
  p.Observe(p.Chain(Key("vc1", 8, "eval")), 600);
  EXPECT_EQ(p.Quantile(p.Chain(Key("vc1", 8, "eval")), 0.9)->seconds, 600);
  EXPECT_EQ(p.Quantile(p.Chain(Key("vc1", 8)), 0.9)->seconds, 50000);
}

TEST(RuntimePredictor, AJobClassIsItsNamespacesOwn) {
  RuntimePredictor p(PredictorConfig{1, 64});
  p.Observe(p.Chain(Key("vc1", 8, "bert", "victim")), 50000);
  // Another tenant's short "bert" jobs, in another queue, must not make the victim's predicted short.
  for (int i = 0; i < 10; ++i) p.Observe(p.Chain(Key("vc2", 8, "bert", "attacker")), 60);
  const std::optional<RuntimePrediction> victim = p.Quantile(p.Chain(Key("vc1", 8, "bert", "victim")), 0.5);
  EXPECT_EQ(victim->seconds, 50000);
  EXPECT_EQ(victim->level, "namespace=victim,class=bert,gpus=8");
}

TEST(RuntimePredictor, ExportKeepsTheMostRecentlyFedLevels) {
  RuntimePredictor p(PredictorConfig{1, 8});
  p.Observe(p.Chain(Key("old", 1)), 10);
  p.Observe(p.Chain(Key("new", 2)), 20);
  // The newest sample fed "queue=new,gpus=2", "queue=new", "gpus=2" and "*"; "*" was fed by both.
  const auto kept = p.Export(4);
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(kept[0].first, "*");
  EXPECT_EQ(kept[1].first, "gpus=2");
  for (const auto& [name, samples] : kept) EXPECT_EQ(name.find("old"), std::string::npos) << name;
  RuntimePredictor q(PredictorConfig{1, 8});
  q.Restore(kept);
  EXPECT_EQ(q.Export(4), kept) << "the recency order survives a restore";
}

TEST(RuntimePredictor, OnlyTheLatestWindowCounts) {
  RuntimePredictor p(PredictorConfig{1, 3});
  const KeyChain chain = p.Chain(Key("vc1", 1));
  for (double s : {1000.0, 1000.0, 1000.0, 10.0, 20.0, 30.0}) p.Observe(chain, s);
  EXPECT_EQ(p.Quantile(chain, 1)->seconds, 30);  // The three long ones aged out.
  EXPECT_EQ(p.Quantile(chain, 1)->samples, 3);
}

TEST(RuntimePredictor, NonsenseRuntimesAreIgnored) {
  RuntimePredictor p(PredictorConfig{1, 8});
  const KeyChain chain = p.Chain(Key("vc1", 1));
  p.Observe(chain, -5);
  p.Observe(chain, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(p.Quantile(chain, 0.5));
}

TEST(RuntimePredictor, RemainingIsTheMedianOfLongerRunsLessWhatItRan) {
  RuntimePredictor p(PredictorConfig{2, 64});
  const KeyChain chain = p.Chain(Key("vc1", 8));
  for (double s : {600.0, 1200.0, 3600.0, 7200.0, 36000.0}) p.Observe(chain, s);
  EXPECT_EQ(*p.Remaining(chain, 0), 3600);           // Median of all five.
  EXPECT_EQ(*p.Remaining(chain, 2000), 7200 - 2000);  // Of 3600, 7200, 36000.
  EXPECT_EQ(*p.Remaining(chain, 5000), 7200 - 5000);  // Of 7200 and 36000: the lower middle.
  EXPECT_FALSE(p.Remaining(chain, 10000));             // One longer run is not enough.
  EXPECT_FALSE(p.Remaining(chain, 40000));             // Outlived its history.
  EXPECT_EQ(*p.PredictedEnd(chain, 1000, 3000), 3000 + 7200 - 2000);
  EXPECT_FALSE(p.PredictedEnd(chain, 0, 40000));
}

TEST(RuntimePredictor, FindingAChainCreatesNoLevels) {
  RuntimePredictor p(PredictorConfig{1, 8});
  p.Observe(p.Chain(Key("vc1", 8)), 100);
  const std::size_t levels = p.levels();
  const KeyChain found = p.FindChain(Key("vc1", 8, "new-class", "ml"));
  EXPECT_EQ(p.levels(), levels);
  EXPECT_EQ(found.levels.size(), 4u);  // queue+gpus, queue, gpus, everything: the class levels do not exist.
  EXPECT_EQ(p.Quantile(found, 1)->seconds, 100);
}

TEST(RuntimePredictor, ANewPredictorRestoredFromAnExportPredictsTheSame) {
  RuntimePredictor p(PredictorConfig{2, 4});
  const KeyChain chain = p.Chain(Key("vc1", 8, "bert"));
  for (double s : {100.0, 200.0, 300.0, 400.0, 500.0}) p.Observe(chain, s);
  RuntimePredictor q(PredictorConfig{2, 4});
  q.Restore(p.Export());
  const KeyChain again = q.Chain(Key("vc1", 8, "bert"));
  EXPECT_EQ(q.Quantile(again, 0.5)->seconds, p.Quantile(chain, 0.5)->seconds);
  EXPECT_EQ(q.Quantile(again, 0.5)->samples, 4);
  EXPECT_EQ(q.Export(), p.Export());
  // The oldest sample leaves first after the restore too.
  q.Observe(again, 600);
  EXPECT_THAT(q.Export().front().second, ElementsAre(300, 400, 500, 600));
}

}  // namespace
}  // namespace gangplank::engine
