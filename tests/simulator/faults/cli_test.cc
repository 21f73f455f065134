// Runs the built gangplank-sim binary's `faults` subcommand: every flag is explained, bad flags fail with a clear
// message and a non-zero exit, a small run prints its table and writes its outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/simulator/sim_process.h"

namespace gangplank::simulator {
namespace {

using sim_cli::Outcome;
using sim_cli::RunSim;
using ::testing::HasSubstr;

const std::string kData = FAULTS_TESTDATA;

TEST(FaultsCli, HelpExplainsEveryFaultFlag) {
  const Outcome o = RunSim("faults --help");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* flag : {"--faults-per-node-day", "--repair-seconds", "--checkpoint-write-seconds",
                           "--collective-timeout-seconds", "--failure-detection-seconds", "--user-notice-seconds",
                           "--node-grace-seconds", "--checkpoint-grace-seconds", "--restart-limit", "--fault-seeds",
                           "--threads", "--policies", "--checkpoint-interval", "GANGPLANK_SIM_FAULTS_PER_NODE_DAY"}) {
    EXPECT_THAT(o.output, HasSubstr(flag));
  }
}

TEST(FaultsCli, AnUnknownPolicyIsRefused) {
  const Outcome o = RunSim("faults --policies restart-gang,pray");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_THAT(o.output, HasSubstr("pray"));
}

TEST(FaultsCli, ASmallRunPrintsTheTableAndWritesItsFiles) {
  const auto out = std::filesystem::temp_directory_path() / ("gangplank_faults_cli_" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const Outcome o = RunSim("faults --jobs " + kData + "/gang16.csv --vcs " + kData +
                           "/one_vc.csv --nodes 2 --nodes-per-rack 1 --faults-per-node-day 2 --progress false --out " +
                           out.string());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(o.output, HasSubstr("| per-pod-replacement |"));
  for (const char* file : {"summary.csv", "runs.csv", "summary.json", "faults.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(out / file)) << file;
  }
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace gangplank::simulator
