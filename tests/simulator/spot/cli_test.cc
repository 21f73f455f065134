// Runs the built gangplank-sim binary's `spot` subcommand: every flag is explained, bad flags and inputs fail with a
// clear message and a non-zero exit, a small run writes its outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tests/simulator/sim_process.h"

namespace gangplank::simulator {
namespace {

using sim_cli::Outcome;
using sim_cli::RunSim;
using ::testing::HasSubstr;

const std::string kData = SPOT_TESTDATA;

std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("gangplank_spot_cli_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::string TinyRun(const std::filesystem::path& out) {
  return "spot --jobs " + kData + "/gang16.csv --vcs " + kData + "/one_vc.csv --nodes 2 --nodes-per-rack 1 --out " +
         out.string();
}

TEST(SpotCli, HelpExplainsEverySpotFlagAndItsEnvironmentVariable) {
  const Outcome o = RunSim("spot --help");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* flag : {"--spot-fraction", "--interruptions-per-node-month", "--notice-seconds",
                           "--replacement-seconds", "--checkpoint-write-seconds", "--checkpoint-grace-seconds",
                           "--eviction-margin-seconds", "--failure-detection-seconds", "--spot-seeds", "--threads",
                           "--policies", "--checkpoint-interval", "--jobs", "--out"}) {
    EXPECT_THAT(o.output, HasSubstr(flag));
  }
  EXPECT_THAT(o.output, HasSubstr("GANGPLANK_SIM_INTERRUPTIONS_PER_NODE_MONTH"));
  EXPECT_THAT(o.output, HasSubstr("Spot Instance"));
}

TEST(SpotCli, BadFlagsFailWithTheirName) {
  for (const char* bad : {"--spot-fraction 1.5", "--policies checkpoint-then-requeue,pray", "--notice-seconds -5",
                          "--interruptions-per-node-month lots", "--spot-seeds 3..1"}) {
    const Outcome o = RunSim(TinyRun(TempDir("badflag")) + " " + bad);
    EXPECT_NE(o.exit_code, 0) << bad;
    const std::string flag = std::string(bad).substr(0, std::string(bad).find(' '));
    EXPECT_THAT(o.output, HasSubstr(flag)) << o.output;
  }
}

TEST(SpotCli, AMissingTraceIsABadInput) {
  const auto out = TempDir("missing");
  const Outcome o = RunSim("spot --jobs " + kData + "/no_such_file.csv --out " + out.string());
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_THAT(o.output, HasSubstr("no_such_file.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / "report.html"));
}

TEST(SpotCli, FlagsComeFromTheEnvironmentToo) {
  const auto out = TempDir("env");
  ::setenv("GANGPLANK_SIM_SPOT_FRACTION", "7", 1);  // The child inherits it.
  const Outcome o = RunSim(TinyRun(out));
  ::unsetenv("GANGPLANK_SIM_SPOT_FRACTION");
  EXPECT_NE(o.exit_code, 0) << o.output;  // 7 is no fraction: the environment's value was read.
  EXPECT_THAT(o.output, HasSubstr("--spot-fraction"));
}

TEST(SpotCli, ASmallRunWritesItsOutputs) {
  const auto out = TempDir("run");
  const Outcome o = RunSim(TinyRun(out) + " --interruptions-per-node-month 30 --spot-fraction 1");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* file : {"summary.csv", "summary.json", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(out / file)) << file;
  }
  EXPECT_THAT(o.output, HasSubstr("| evict-on-notice |"));
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace gangplank::simulator
