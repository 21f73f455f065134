#include "simulator/openb/openb_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gangplank::simulator::openb {
namespace {

using ::testing::HasSubstr;

const std::string kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

std::vector<OpenbPod> Pods(const std::string& rows) { return PodsFromTable(CsvTable::Parse(kPodHeader + rows, "pods.csv")); }

std::string PodError(const std::string& rows) {
  try {
    Pods(rows);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string NodeError(const std::string& text) {
  try {
    NodesFromTable(CsvTable::Parse(text, "nodes.csv"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(OpenbLoader, ReadsNodes) {
  auto nodes = NodesFromTable(CsvTable::Parse("sn,cpu_milli,memory_mib,gpu,model\na,64000,262144,2,P100\nb,8000,1024,0,\n",
                                              "nodes.csv"));
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "a");
  EXPECT_EQ(nodes[0].capacity.cpu_milli, 64000);
  EXPECT_EQ(nodes[0].capacity.memory_mib, 262144);
  EXPECT_EQ(nodes[0].gpu_count, 2);
  EXPECT_EQ(nodes[0].gpu_model, "P100");
  EXPECT_EQ(nodes[1].gpu_count, 0);
}

TEST(OpenbLoader, ReadsPodsAndSplitsGpuSpec) {
  auto pods = Pods("p,12000,16384,1,460,V100|P100,LS,Running,0,1,0\nq,2000,1024,0,0,,BE,Running,0,1,0\n");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].name, "p");
  EXPECT_EQ(pods[0].request.host.cpu_milli, 12000);
  EXPECT_EQ(pods[0].request.gpu_count, 1);
  EXPECT_EQ(pods[0].request.gpu_milli, 460);
  EXPECT_EQ(pods[0].request.gpu_models, (std::vector<std::string>{"V100", "P100"}));
  EXPECT_TRUE(pods[1].request.gpu_models.empty());
  EXPECT_FALSE(pods[1].request.WantsGpu());
}

TEST(OpenbLoader, RejectsNegativeValuesWithTheirPosition) {
  EXPECT_THAT(PodError("p,-5,16384,1,460,,LS,Running,0,1,0\n"),
              HasSubstr("pods.csv:2:3: negative value -5 in column 'cpu_milli'"));
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,gpu,model\na,64000,262144,-2,P100\n"),
              HasSubstr("nodes.csv:2:16: negative value -2 in column 'gpu'"));
}

TEST(OpenbLoader, RejectsMoreThanOneGpuOfShare) {
  EXPECT_THAT(PodError("p,5,16384,1,1001,,LS,Running,0,1,0\n"), HasSubstr("pods.csv:2:13: gpu_milli 1001 exceeds one GPU"));
}

TEST(OpenbLoader, RejectsSharingAcrossSeveralGpus) {
  EXPECT_THAT(PodError("p,5,16384,2,500,,LS,Running,0,1,0\n"),
              HasSubstr("pods.csv:2:13: a pod with 2 GPUs must take whole GPUs"));
}

TEST(OpenbLoader, RejectsInconsistentGpuColumns) {
  EXPECT_THAT(PodError("p,5,16384,1,0,,LS,Running,0,1,0\n"), HasSubstr("num_gpu > 0 but gpu_milli is 0"));
  EXPECT_THAT(PodError("p,5,16384,0,300,,LS,Running,0,1,0\n"), HasSubstr("gpu_milli > 0 but num_gpu is 0"));
}

TEST(OpenbLoader, RejectsUnknownColumnsAndNamesTheColumn) {
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,gpu,model,rack\na,1,1,1,T4,r1\n"),
              HasSubstr("nodes.csv:1:35: unknown column 'rack'"));
}

TEST(OpenbLoader, RejectsMissingColumns) {
  EXPECT_THAT(NodeError("sn,cpu_milli,gpu,model\na,1,1,T4\n"), HasSubstr("nodes.csv:1:1: missing column 'memory_mib'"));
}

TEST(OpenbLoader, RejectsNonNumbersAndDuplicates) {
  EXPECT_THAT(PodError("p,12k,16384,1,460,,LS,Running,0,1,0\n"),
              HasSubstr("pods.csv:2:3: expected an integer in column 'cpu_milli', got '12k'"));
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,gpu,model\na,1,1,1,T4\na,1,1,1,T4\n"),
              HasSubstr("nodes.csv:3:1: duplicate node name 'a'"));
  EXPECT_THAT(NodeError("sn,cpu_milli,memory_mib,gpu,model\na,1,1,1,\n"), HasSubstr("nodes.csv:2:9: GPU node without a model"));
}

std::vector<OpenbPod> TestdataPods(const std::string& file) {
  return LoadPods(std::string(GANGPLANK_FRAG_TESTDATA) + "/" + file);
}

TEST(OpenbLoader, ReadsTheFullLayout) {
  auto pods = TestdataPods("pods_layout_full.csv");
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].request.gpu_models, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(pods[1].request.gpu_milli, 250);
  EXPECT_FALSE(pods[2].request.WantsGpu());
}

TEST(OpenbLoader, ReadsTheLayoutWithoutGpuSpecAsUnconstrained) {
  auto pods = TestdataPods("pods_layout_no_gpu_spec.csv");
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].request.gpu_count, 4);
  EXPECT_EQ(pods[0].request.gpu_milli, 1000);
  for (const auto& p : pods) EXPECT_TRUE(p.request.gpu_models.empty()) << p.name;
}

TEST(OpenbLoader, ReadsTheRequiredColumnsAlone) {
  auto pods = TestdataPods("pods_layout_required_only.csv");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].name, "a");
  EXPECT_EQ(pods[0].request.host.cpu_milli, 8000);
  EXPECT_EQ(pods[0].request.host.memory_mib, 16384);
  EXPECT_EQ(pods[0].request.gpu_count, 2);
  EXPECT_TRUE(pods[1].request.IsSharing());
}

TEST(OpenbLoader, IgnoresUnknownColumnsInAnyOrder) {
  auto pods = TestdataPods("pods_layout_extra_columns.csv");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].name, "a");
  EXPECT_EQ(pods[0].request.host.cpu_milli, 8000);
  EXPECT_EQ(pods[0].request.host.memory_mib, 16384);
  EXPECT_EQ(pods[0].request.gpu_milli, 1000);
  EXPECT_EQ(pods[0].request.gpu_models, (std::vector<std::string>{"T4"}));
  EXPECT_EQ(pods[1].request.gpu_milli, 250);
  EXPECT_TRUE(pods[1].request.gpu_models.empty());
}

TEST(OpenbLoader, MissingRequiredPodColumnNamesFileAndColumn) {
  try {
    TestdataPods("bad_pods_missing_gpu_milli.csv");
    FAIL() << "loaded a pod list without gpu_milli";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad_pods_missing_gpu_milli.csv:1:1: missing column 'gpu_milli'"));
  }
  // Each required column in turn: dropping it from the minimal layout is an error naming it.
  const std::vector<std::string> required = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
  for (size_t drop = 0; drop < required.size(); ++drop) {
    std::string header, row;
    const std::vector<std::string> values = {"p", "1000", "1024", "1", "1000"};
    for (size_t i = 0; i < required.size(); ++i) {
      if (i == drop) continue;
      header += (header.empty() ? "" : ",") + required[i];
      row += (row.empty() ? "" : ",") + values[i];
    }
    try {
      PodsFromTable(CsvTable::Parse(header + "\n" + row + "\n", "pods.csv"));
      ADD_FAILURE() << "loaded without " << required[drop];
    } catch (const InputError& e) {
      EXPECT_THAT(e.what(), HasSubstr("pods.csv:1:1: missing column '" + required[drop] + "'"));
    }
  }
}

TEST(OpenbLoader, MissingFileIsAnInputError) {
  EXPECT_THROW(LoadNodes("/nonexistent/nodes.csv"), InputError);
}

TEST(OpenbLoader, LoadsTheBundledTrace) {
  const std::string dir = std::string(GANGPLANK_DATA_DIR) + "/openb/";
  auto nodes = LoadNodes(dir + "openb_node_list_gpu_node.csv");
  auto pods = LoadPods(dir + "openb_pod_list_default.csv");
  EXPECT_EQ(nodes.size(), 1213u);
  int gpus = 0;
  for (const auto& n : nodes) gpus += n.gpu_count;
  EXPECT_EQ(gpus, 6212);
  EXPECT_EQ(pods.size(), 8152u);
}

}  // namespace
}  // namespace gangplank::simulator::openb
