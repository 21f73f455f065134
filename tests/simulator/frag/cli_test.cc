// Runs the built gangplank-sim binary: bad inputs must fail with a non-zero exit and a message naming the
// file, line and column; a good run must write its outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "tests/simulator/sim_process.h"

namespace {

using ::testing::HasSubstr;

using gangplank::simulator::sim_cli::Outcome;
using gangplank::simulator::sim_cli::RunSim;

const std::string kData = GANGPLANK_FRAG_TESTDATA;

std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("gangplank_cli_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(Cli, BadPodFileNamesFileLineAndColumn) {
  const auto out = TempDir("badpods");
  Outcome o = RunSim("fragmentation --nodes " + kData + "/tiny_nodes.csv --pods " + kData +
                  "/bad_pods_milli.csv --seeds 1 --out " + out.string());
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_THAT(o.output, HasSubstr("bad_pods_milli.csv:3:16: gpu_milli 1500 exceeds one GPU"));
  EXPECT_FALSE(std::filesystem::exists(out / "report.html"));
}

TEST(Cli, BadNodeFileNamesFileLineAndColumn) {
  Outcome o = RunSim("fragmentation --nodes " + kData + "/bad_nodes_negative.csv --pods " + kData +
                  "/tiny_pods.csv --seeds 1 --out " + TempDir("badnodes").string());
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_THAT(o.output, HasSubstr("bad_nodes_negative.csv:3:4: negative value -8000 in column 'cpu_milli'"));
}

TEST(Cli, MissingFileAndUnknownPolicyFail) {
  Outcome missing = RunSim("fragmentation --nodes /nonexistent.csv --seeds 1 --out " + TempDir("missing").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.output, HasSubstr("/nonexistent.csv"));
  Outcome unknown = RunSim("fragmentation --policies bestfit,tetris --seeds 1 --out " + TempDir("unknown").string());
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_THAT(unknown.output, HasSubstr("unknown policy 'tetris'"));
  Outcome bad_ties = RunSim("fragmentation --ties coin --seeds 1 --out " + TempDir("ties").string());
  EXPECT_NE(bad_ties.exit_code, 0);
  EXPECT_THAT(bad_ties.output, HasSubstr("--ties"));
  Outcome bad_seeds = RunSim("fragmentation --seeds 9..3 --out " + TempDir("seeds").string());
  EXPECT_NE(bad_seeds.exit_code, 0);
  EXPECT_THAT(bad_seeds.output, HasSubstr("reversed seed range"));
}

TEST(Cli, HelpDescribesTheSubcommandAndItsEnvironmentVariables) {
  Outcome o = RunSim("fragmentation --help");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_THAT(o.output, HasSubstr("--policies"));
  EXPECT_THAT(o.output, HasSubstr("GANGPLANK_SIM_FRAG_SEEDS"));
  EXPECT_THAT(o.output, HasSubstr("GANGPLANK_SIM_FRAG_TIES"));
  EXPECT_THAT(o.output, HasSubstr("fragpack"));
  Outcome top = RunSim("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.output, HasSubstr("fragmentation"));
}

TEST(Cli, SmallRunWritesEveryOutputAndIsQuietWhenNotATerminal) {
  const auto out = TempDir("ok");
  Outcome o = RunSim("fragmentation --nodes " + kData + "/tiny_nodes.csv --pods " + kData +
                  "/tiny_pods.csv --policies bestfit,fragpack --seeds 1..2 --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(o.output, ::testing::Not(HasSubstr("\r")));  // No progress bar into a pipe.
  EXPECT_TRUE(std::filesystem::exists(out / "report.html"));
  EXPECT_TRUE(std::filesystem::exists(out / "summary.json"));
  EXPECT_TRUE(std::filesystem::exists(out / "curves" / "fragpack_seed2.csv"));
  std::ifstream summary(out / "summary.csv");
  std::stringstream text;
  text << summary.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("policy,runs,unallocated_at_100_mean"));
  EXPECT_THAT(text.str(), HasSubstr("bestfit,2,"));
  std::filesystem::remove_all(out);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Cli, TheTieRuleIsRecordedInTheOutputs) {
  for (const std::string ties : {"node-order", "random"}) {
    const auto out = TempDir("ties_" + ties);
    Outcome o = RunSim("fragmentation --nodes " + kData + "/tiny_nodes.csv --pods " + kData +
                       "/tiny_pods.csv --policies fgd --seeds 1 --ties " + ties + " --out " + out.string());
    ASSERT_EQ(o.exit_code, 0) << o.output;
    EXPECT_THAT(ReadFile(out / "summary.json"), HasSubstr("\"" + ties + "\""));
    EXPECT_THAT(ReadFile(out / "report.html"),
                HasSubstr(ties == "random" ? "broken uniformly at random" : "seeded random node order"));
    std::filesystem::remove_all(out);
  }
}

TEST(Cli, FlagsComeFromTheEnvironmentToo) {
  const auto out = TempDir("env");
  Outcome o = RunSim("fragmentation --nodes " + kData + "/tiny_nodes.csv --pods " + kData + "/tiny_pods.csv --out " +
                  out.string() + " --seeds 1");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const std::string env = "GANGPLANK_SIM_FRAG_POLICIES=bestfit GANGPLANK_SIM_FRAG_SEEDS=3 ";
  const std::string command = env + std::string(GANGPLANK_SIM_BINARY) + " fragmentation --nodes " + kData +
                              "/tiny_nodes.csv --pods " + kData + "/tiny_pods.csv --out " + out.string() + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(out / "curves" / "bestfit_seed3.csv"));
  EXPECT_FALSE(std::filesystem::exists(out / "curves" / "fgd_seed3.csv"));
  std::filesystem::remove_all(out);
}

}  // namespace

TEST(Cli, ReplaysAPodListWithoutGpuSpec) {
  const auto out = TempDir("nospec");
  Outcome o = RunSim("fragmentation --nodes " + kData + "/tiny_nodes.csv --pods " + kData +
                     "/pods_layout_no_gpu_spec.csv --policies fragpack --seeds 1 --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(ReadFile(out / "summary.csv"), HasSubstr("fragpack,1,"));
  std::filesystem::remove_all(out);
}

TEST(Cli, DerivedShapeIsNamedAndShownWithoutThePublishedFigures) {
  const auto out = TempDir("derive");
  Outcome o = RunSim("fragmentation --policies fgd --seeds 1 --derive model-constrained:0.2 --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_THAT(o.output, HasSubstr("workload: model-constrained:0.2 (derive seed 1) derived from"));
  EXPECT_THAT(o.output, ::testing::Not(HasSubstr("4.77")));
  const std::string csv = ReadFile(out / "summary.csv");
  EXPECT_THAT(csv, ::testing::ContainsRegex("\nfgd,1,[^\n]*,,\n"));  // Paper columns empty.
  EXPECT_THAT(ReadFile(out / "summary.json"), HasSubstr("\"derived\": \"model-constrained:0.2 (derive seed 1)\""));
  std::filesystem::remove_all(out);

  Outcome plain = RunSim("fragmentation --policies fgd --seeds 1 --out " + out.string());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_THAT(plain.output, HasSubstr("4.77 ± 0.11"));
  std::filesystem::remove_all(out);
}

TEST(Cli, ThePublishedFiguresAppearOnlyBesideTheTraceTheyBelongTo) {
  const auto out = TempDir("published");
  const std::string openb = std::string(GANGPLANK_DATA_DIR) + "/openb/";
  // The bundled nodes with another pod list: a different trace, so no published figure anywhere.
  Outcome other = RunSim("fragmentation --nodes " + openb + "openb_node_list_gpu_node.csv --pods " + kData +
                         "/tiny_pods.csv --policies fgd,bestfit --seeds 1 --out " + out.string());
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_THAT(other.output, ::testing::Not(HasSubstr("4.77 ± 0.11")));
  EXPECT_THAT(other.output, ::testing::Not(HasSubstr("7.14 ± 0.14")));
  EXPECT_THAT(other.output, HasSubstr("paper: its figures are for the bundled openb trace, not these files"));
  EXPECT_THAT(ReadFile(out / "summary.csv"), ::testing::ContainsRegex("\nfgd,1,[^\n]*,,\n"));  // Paper columns empty.
  EXPECT_THAT(ReadFile(out / "summary.json"), ::testing::Not(HasSubstr("paper_unallocated_mean")));
  EXPECT_THAT(ReadFile(out / "report.html"), ::testing::Not(HasSubstr("4.77 ± 0.11")));
  std::filesystem::remove_all(out);

  // The bundled trace, however the path names it, gets them.
  Outcome bundled = RunSim("fragmentation --pods " + openb + "../openb/openb_pod_list_default.csv --policies fgd "
                           "--seeds 1 --out " + out.string());
  ASSERT_EQ(bundled.exit_code, 0) << bundled.output;
  EXPECT_THAT(bundled.output, HasSubstr("4.77 ± 0.11"));
  EXPECT_THAT(bundled.output, ::testing::Not(HasSubstr("paper: its figures")));
  EXPECT_THAT(ReadFile(out / "summary.json"), HasSubstr("paper_unallocated_mean"));
  std::filesystem::remove_all(out);
}

TEST(Cli, RejectsAnUnknownShape) {
  Outcome o =
      RunSim("fragmentation --policies fgd --seeds 1 --derive heavy:0.2 --out " + TempDir("badshape").string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_THAT(o.output, HasSubstr("unknown workload shape 'heavy:0.2'"));
}
