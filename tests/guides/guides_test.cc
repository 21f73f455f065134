// Every guide in docs/ run against one real control plane (scripts/real-cluster.sh: etcd, kube-apiserver,
// kube-controller-manager, KWOK, the stock kube-scheduler calling gangplank-extender, gangplank-operator
// under the chart's RBAC), so a guide cannot drift from the product. Each guide's `<!-- test: run -->`
// shell blocks run in order, each with `bash -euo pipefail` in the guide's own working folder (files a
// block writes are there for the next; shell variables are not), with KUBECONFIG, PATH and the GANGPLANK_*
// variables the guides' conventions name (README.md here). Before each guide the cluster is reset: its
// namespaces, GPUPools and Queues removed, the nodes of testdata/nodes.yaml created afresh. Once, before
// the first guide, crds/install.sh applies the pinned CRDs of PyTorchJob, JobSet and RayJob; their controllers
// (and LeaderWorkerSet's) run beside gangplank (scripts/real-cluster.sh --job-controllers).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "tests/support/subprocess.h"
#include "tests/guides/guide_blocks.h"
#include "tests/real-cluster/support/control_plane.h"

namespace gangplank::guides {
namespace {

namespace fs = std::filesystem;
using gangplank::testing::run_process;
using real_cluster::ControlPlane;

const fs::path kSource = GANGPLANK_SOURCE_DIR;
const fs::path kBuild = GANGPLANK_BUILD_DIR;
constexpr auto kBlockTimeout = std::chrono::seconds(180);

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Removes what the last guide made and creates the nodes afresh, then waits until every node is Ready and
// untainted (the node lifecycle controller lifts not-ready once KWOK reports Ready). The control plane's own
// namespaces stay, kubeflow among them (the training operator keeps its webhook certificates there).
constexpr char kReset[] = R"sh(
kubectl get namespaces -o name |
  { grep -vE '^namespace/(default|kube-system|kube-public|kube-node-lease|gangplank-system|gangplank-dra-driver|kubeflow)$' || true; } |
  xargs -r kubectl delete --wait=true --timeout=120s >/dev/null
kubectl delete gpupools,queues --all --wait=true >/dev/null
kubectl delete pods -n default --all --wait=true >/dev/null
kubectl delete nodes --all --wait=true >/dev/null
kubectl create -f "$NODES" >/dev/null
kubectl wait --for=condition=Ready nodes --all --timeout=90s >/dev/null
# Untainted, and the DRA nodes' GPUs published by the DRA test driver.
dra_nodes="$(kubectl get nodes -l gangplank.test/dra-gpus -o name | wc -l)"
for _ in $(seq 300); do
  published="$(kubectl get resourceslices -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | grep -c . || true)"
  [ -z "$(kubectl get nodes -o jsonpath='{.items[*].spec.taints}')" ] && [ "$published" -ge "$dra_nodes" ] && exit 0
  sleep 0.2
done
echo "nodes still tainted: $(kubectl get nodes -o jsonpath='{.items[*].spec.taints}'), or $dra_nodes DRA nodes unpublished" >&2
exit 1
)sh";

class GuideTest : public ::testing::TestWithParam<std::string> {
 public:
  static void SetUpTestSuite() {
    if (!ControlPlane::UnavailableReason().empty()) return;
    cluster_ = std::make_unique<ControlPlane>();
    // Conditions rewritten at once (the chart's default waits 30 s between rewrites of one pod's).
    // --dra: the DRA test driver publishes the GPUs of the nodes labelled gangplank.test/dra-gpus.
    // --native-gangs: Kubernetes' own PodGroups are served (the data scientists' guide declares a gang so).
    // The controllers of the jobs the data scientists' guide submits (not the MPI operator, whose fixed
    // health port the job-controller suite's cluster takes).
    start_error_ = cluster_->Start({"--operator-arg", "--condition-rewrite-seconds=1", "--dra", "--native-gangs",
                                    "--job-controllers", "jobset,lws,kuberay,training-operator"});
    if (start_error_.empty()) InstallPeerCrds();
  }
  static void TearDownTestSuite() { cluster_.reset(); }

 protected:
  void SetUp() override {
    // Skipped, or failed under GANGPLANK_REQUIRE_REAL_CLUSTER=1, as the real-cluster suites are.
    if (const std::string why = ControlPlane::UnavailableReason(); !why.empty()) {
      ASSERT_FALSE(ControlPlane::Required()) << "GANGPLANK_REQUIRE_REAL_CLUSTER=1 but the control plane cannot run: " << why;
      GTEST_SKIP() << "real-cluster tests skipped: " << why;
    }
    ASSERT_EQ(start_error_, "") << "the real control plane did not start:\n" << start_error_;
    if (!crds_missing_.empty()) {
      ASSERT_FALSE(ControlPlane::Required()) << "GANGPLANK_REQUIRE_REAL_CLUSTER=1 but " << crds_missing_;
      GTEST_SKIP() << "real-cluster tests skipped: " << crds_missing_;
    }
    ASSERT_EQ(crds_error_, "") << "installing the peer projects' CRDs (crds/install.sh) failed:\n" << crds_error_;
  }

  // The environment of every block: the guides' conventions (tests/guides/README.md).
  std::vector<std::string> Env(const fs::path& work) const {
    return {"/usr/bin/env", "-C", work.string(),
            "HOME=" + (work / ".home").string(),
            "KUBECONFIG=" + cluster_->kubeconfig(),
            "PATH=" + (kSource / ".tools/bin").string() + ":" + (kBuild / "operator").string() + ":" +
                (kBuild / "extender").string() + ":" + (kBuild / "simulator").string() + ":/usr/local/bin:/usr/bin:/bin",
            "GANGPLANK_URL=https://127.0.0.1:" + std::to_string(cluster_->dry_run_port()),
            "GANGPLANK_CA=" + cluster_->ca_file(),
            "GANGPLANK_SERVER_NAME=127.0.0.1",
            "GANGPLANK_METRICS_URL=http://127.0.0.1:" + std::to_string(cluster_->operator_port()),
            "NODES=" + (kSource / "tests/guides/testdata/nodes.yaml").string()};
  }

  // Runs `script` with bash -euo pipefail in `work`: exit code and output (stdout then stderr).
  std::pair<int, std::string> Bash(const fs::path& work, const fs::path& script) const {
    std::vector<std::string> argv = Env(work);
    argv.insert(argv.end(), {"/bin/bash", "-euo", "pipefail", script.string()});
    const auto r = run_process(argv, "", kBlockTimeout);
    return {r.exit_code, r.out + r.err};
  }

  // The CRDs of PyTorchJob, JobSet, RayJob and RayCluster at the versions crds/go.mod pins, so the guides'
  // manifests of those kinds are checked against the real schemas (their controllers also install them).
  static void InstallPeerCrds() {
    const char* path = std::getenv("PATH");
    const auto r = run_process({"/usr/bin/env", "KUBECONFIG=" + cluster_->kubeconfig(),
                                "PATH=" + (kSource / ".tools/bin").string() + ":" + (path ? path : "/usr/bin:/bin"),
                                "/bin/bash",
                                (kSource / "tests/guides/crds/install.sh").string()},
                               "", kBlockTimeout);
    if (r.exit_code == 3) {
      crds_missing_ = r.err;  // Go is not installed: skipped like the Kubernetes binaries that need it.
    } else if (r.exit_code != 0) {
      crds_error_ = "exit " + std::to_string(r.exit_code) + "\n" + r.out + r.err;
    }
  }

  static std::unique_ptr<ControlPlane> cluster_;
  static std::string start_error_;
  static std::string crds_missing_;
  static std::string crds_error_;
};

std::unique_ptr<ControlPlane> GuideTest::cluster_;
std::string GuideTest::start_error_;
std::string GuideTest::crds_missing_;
std::string GuideTest::crds_error_;

TEST_P(GuideTest, EveryRunnableBlockSucceeds) {
  const fs::path guide = kSource / "docs" / GetParam();
  const ParsedGuide parsed = ParseGuide(ReadFile(guide));
  ASSERT_TRUE(parsed.errors.empty()) << guide << ": " << ::testing::PrintToString(parsed.errors);

  // The guide's working folder, with the repository's folders the guides name (they are written to be
  // run from a checkout): files a block writes (job.yaml, ...) stay out of the repository.
  const fs::path work = cluster_->dir() / ("guide-" + guide.stem().string());
  fs::create_directories(work / ".home");
  for (const char* f : {"examples", "helm", "crds", "data", "manifests"}) {
    std::error_code ignored;
    fs::create_directory_symlink(kSource / f, work / f, ignored);
  }
  std::ofstream(work / ".reset.sh") << kReset;
  const auto [reset_code, reset_out] = Bash(work, work / ".reset.sh");
  ASSERT_EQ(reset_code, 0) << "resetting the cluster before " << guide << " failed:\n" << reset_out;

  int ran = 0;
  for (const GuideBlock& block : parsed.blocks) {
    if (!block.run) continue;
    const fs::path script = work / (".block-" + std::to_string(block.line) + ".sh");
    std::ofstream(script) << block.code;
    const auto start = std::chrono::steady_clock::now();
    const auto [code, out] = Bash(work, script);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "docs/" << GetParam() << ":" << block.line << ": exit " << code << " in " << seconds << " s\n";
    ASSERT_EQ(code, 0) << "docs/" << GetParam() << ":" << block.line << ": the block failed"
                       << (code == -1 ? " (killed after its timeout)" : "") << "\n--- block ---\n" << block.code
                       << "--- output ---\n" << out << "--- gangplank-operator (tail) ---\n"
                       << cluster_->LogTail("gangplank-operator", 3000);
    ++ran;
  }
  EXPECT_GT(ran, 0) << guide << " has no `<!-- test: run -->` block";
}

std::vector<std::string> GuideNames() {
  std::vector<std::string> names;
  for (const fs::path& p : GuideFiles(kSource / "docs")) names.push_back(p.filename().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Docs, GuideTest, ::testing::ValuesIn(GuideNames()), [](const auto& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

// --- The markers, without a cluster. ---

TEST(GuideBlocks, RunSkipAndUnmarkedShellBlocks) {
  const ParsedGuide parsed = ParseGuide(
      "# Guide\n"
      "<!-- test: run -->\n"
      "```sh\n"
      "kubectl get pods\n"
      "```\n"
      "<!-- test: skip needs a cloud -->\n"
      "```sh\n"
      "helm install x\n"
      "```\n"
      "```yaml\n"
      "kind: Pod\n"
      "```\n"
      "```sh\n"
      "echo unmarked\n"
      "```\n");
  ASSERT_EQ(parsed.blocks.size(), 3u);
  EXPECT_TRUE(parsed.blocks[0].run);
  EXPECT_EQ(parsed.blocks[0].line, 3);
  EXPECT_EQ(parsed.blocks[0].code, "kubectl get pods\n");
  EXPECT_FALSE(parsed.blocks[1].run);
  EXPECT_EQ(parsed.blocks[1].why_skip, "needs a cloud");
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_NE(parsed.errors[0].find("line 13"), std::string::npos) << parsed.errors[0];
}

TEST(GuideBlocks, EveryGuideMarksEveryShellBlock) {
  const auto guides = GuideFiles(kSource / "docs");
  ASSERT_FALSE(guides.empty()) << "no guide in docs/";
  for (const fs::path& g : guides) {
    const ParsedGuide parsed = ParseGuide(ReadFile(g));
    EXPECT_TRUE(parsed.errors.empty()) << g << ": " << ::testing::PrintToString(parsed.errors);
  }
}

}  // namespace
}  // namespace gangplank::guides
