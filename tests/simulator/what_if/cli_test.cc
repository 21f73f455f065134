// Runs the built gangplank-sim binary's `what-if` subcommand: --help explains it, a small run prints the table
// of the baseline and its variants, --csv and --out write it, and bad --set keys or values exit 2 listing the
// valid keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/simulator/sim_process.h"

namespace gangplank::simulator {
namespace {

using sim_cli::Outcome;
using sim_cli::RunSim;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kData = TIME_REPLAY_TESTDATA;

std::filesystem::path TempDir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("gangplank_what_if_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

// reclaim_jobs.csv on two 8-GPU nodes with reclaim's guardrails shortened: one eviction (time_replay_test.cc).
std::string TinyWhatIf() {
  return "what-if --jobs " + kData + "/reclaim_jobs.csv --vcs " + kData +
         "/two_vcs.csv --nodes 2 --nodes-per-rack 1 --racks-per-row 1 --rows-per-zone 1 --sample-seconds 10 "
         "--reclaim-after 50 --reclaim-min-runtime 100 --checkpoint-interval 30";
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(WhatIfCli, HelpExplainsTheCommandAndItsKeys) {
  const Outcome o = RunSim("what-if --help");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* text : {"--set", "KEY=VALUE", "--csv", "--out", "--jobs", "--reclaim", "usage-half-life",
                           "baseline", "lost GPU-hours"}) {
    EXPECT_THAT(o.output, HasSubstr(text));
  }
  EXPECT_THAT(RunSim("--help").output, HasSubstr("what-if"));
}

TEST(WhatIfCli, PrintsEachVariantBesideTheBaseline) {
  const Outcome o = RunSim(TinyWhatIf() + " --set reclaim=false --set checkpoint-interval=0");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(o.output, HasSubstr("baseline: Reclaim on (after waiting 50 s"));
  EXPECT_THAT(o.output, HasSubstr("baseline  reclaim=false  reclaim=false change  checkpoint-interval=0"));
  EXPECT_THAT(o.output, ContainsRegex("\npreemptions \\(gangs evicted\\) +1 +0 +-1 +1 +0\n"));
  EXPECT_THAT(o.output, ContainsRegex("\nlost GPU-hours +0.0 +0.0 +0 +0.2 +\\+0.2\n"));
}

TEST(WhatIfCli, CsvAndOutWriteTheTableAndEachRun) {
  const auto out = TempDir("out");
  const Outcome o = RunSim(TinyWhatIf() + " --set reclaim=false --csv --out " + out.string());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(o.output, StartsWith("figure,baseline,reclaim=false,reclaim=false change\n"));
  EXPECT_THAT(o.output, Not(HasSubstr("baseline: ")));
  EXPECT_EQ(ReadFile(out / "what_if.csv"), o.output);
  for (const char* run : {"baseline", "reclaim=false"}) {
    for (const char* file : {"report.html", "summary.csv", "summary.json", "jobs_gangplank.csv"}) {
      EXPECT_TRUE(std::filesystem::exists(out / run / file)) << run << "/" << file;
    }
  }
  std::filesystem::remove_all(out);
}

TEST(WhatIfCli, BadSettingsExit2ListingTheValidKeys) {
  for (const char* bad : {"--set bogus=1", "--set reclaim=maybe", "--set nodes=0", "--set reclaim", ""}) {
    const auto out = TempDir("bad");
    const Outcome o = RunSim(TinyWhatIf() + " " + bad + " --out " + out.string());
    EXPECT_EQ(o.exit_code, 2) << bad << "\n" << o.output;
    EXPECT_THAT(o.output, HasSubstr("Valid keys")) << bad;
    EXPECT_THAT(o.output, HasSubstr("reclaim-max-lost-gpu-hours")) << bad;
    EXPECT_FALSE(std::filesystem::exists(out)) << bad << ": nothing runs before every setting is checked";
  }
  EXPECT_THAT(RunSim(TinyWhatIf() + " --set bogus=1").output, HasSubstr("--set bogus=1: unknown key 'bogus'"));
}

TEST(WhatIfCli, AMissingTraceIsABadInput) {
  const Outcome o = RunSim("what-if --jobs " + kData + "/no_such_file.csv --set reclaim=false");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_THAT(o.output, HasSubstr("no_such_file.csv"));
}

}  // namespace
}  // namespace gangplank::simulator
