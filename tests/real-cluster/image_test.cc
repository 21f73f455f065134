// The image platform teams run (Dockerfile, ./run.sh image), built here from this build's binaries and
// opened as a file system: every binary starts inside it as its non-root user and finds every library,
// it holds no shell or package manager, and the control plane's gangplank runs from it (chroot, the
// chart's command paths), admitting and binding a gang on the real control plane. A missing library,
// a wrong path or a binary that cannot read its files as user 65532 fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>

#include "tests/support/subprocess.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"
#include "tests/real-cluster/support/built_image.h"
#include "tests/real-cluster/support/real_cluster_test.h"

namespace gangplank::real_cluster {
namespace {

namespace fs = std::filesystem;
using gangplank::testing::run_process;
using helm_testing::read_text_file;

// The chart's appVersion: what every binary's --version must say.
std::string AppVersion() {
  std::smatch m;
  const std::string chart = read_text_file(helm_testing::chart_dir() + "/Chart.yaml");
  return std::regex_search(chart, m, std::regex("appVersion: \"?([0-9.]+)\"?")) ? m[1].str() : "";
}

class ImageOnRealCluster : public RealClusterTest {
 public:
  static void SetUpTestSuite() {
    if (!BuiltImage::UnavailableReason().empty()) return;
    image_ = std::make_unique<BuiltImage>();
    std::cout << image_->build_log();
    if (image_->error().empty()) StartControlPlane({"--image-root", image_->root()});
  }
  static void TearDownTestSuite() {
    RealClusterTest::TearDownTestSuite();  // First: the control plane unmounts its folder from the image.
    image_.reset();
  }

 protected:
  void SetUp() override {
    // Without root nothing here can build or open an image: said and skipped, even where the real-cluster
    // suites are required (a build that fails once started is a failure).
    const std::string why = BuiltImage::UnavailableReason();
    if (!why.empty()) GTEST_SKIP() << "real-cluster tests skipped: " << why;
    ASSERT_EQ(image_->error(), "");
    RealClusterTest::SetUp();
  }

  // One of the image's binaries with `args`, under chroot as the image's user.
  static gangplank::testing::ProcessResult InImage(const std::string& binary, std::vector<std::string> args) {
    std::vector<std::string> argv{"/usr/sbin/chroot", "--userspec=65532:65532", image_->root(), "/usr/local/bin/" + binary};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }
  // The pid scripts/real-cluster.sh recorded for a component ("gangplank-operator"), or "".
  std::string PidOf(const std::string& component) {
    std::istringstream pids(read_text_file((cluster().dir() / "pids").string()));
    for (std::string pid, name; pids >> pid >> name;) {
      if (name == component) return pid;
    }
    return "";
  }

  static std::unique_ptr<BuiltImage> image_;
};

std::unique_ptr<BuiltImage> ImageOnRealCluster::image_;

TEST_F(ImageOnRealCluster, EveryBinaryStartsInsideTheImageAsItsUserAndFindsEveryLibrary) {
  const std::string version = AppVersion();
  ASSERT_FALSE(version.empty());
  for (const std::string binary : {"gangplank-extender", "gangplank-operator"}) {
    const auto help = InImage(binary, {"--help"});
    EXPECT_EQ(help.exit_code, 0) << binary << ": " << help.err;
    EXPECT_NE(help.out.find("--kubeconfig"), std::string::npos) << help.out;
    const auto said = InImage(binary, {"--version"});
    EXPECT_EQ(said.exit_code, 0) << said.err;
    EXPECT_EQ(said.out, binary + " " + version + "\n");
    // The image's own dynamic loader lists what the binary loads: nothing "not found".
    const auto libraries = run_process({"/usr/sbin/chroot", image_->root(), "/lib64/ld-linux-x86-64.so.2", "--list",
                                        "/usr/local/bin/" + binary});
    EXPECT_EQ(libraries.exit_code, 0) << libraries.out << libraries.err;
    EXPECT_EQ(libraries.out.find("not found"), std::string::npos) << libraries.out;
    EXPECT_NE(libraries.out.find("libssl.so.3"), std::string::npos) << libraries.out;
  }
  for (const auto& [command, flag] : {std::pair{"dry-run", "--token-file"}, std::pair{"usage", "--prometheus-url"}}) {
    const auto help = InImage("gangplank-operator", {command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command << ": " << help.err;
    EXPECT_NE(help.out.find(flag), std::string::npos) << help.out;
  }
}

// The commands the chart's Deployments run with this image are its binaries (a wrong path would leave
// every pod in CrashLoopBackOff); the scheduler's container runs the kube-scheduler image instead.
TEST_F(ImageOnRealCluster, TheChartsCommandsAreTheImagesBinaries) {
  const helm_testing::RenderedObjects objects(helm_testing::helm3().render_ok({}));
  for (const char* container : {"extender", "operator"}) {
    const auto deployment = objects.deployment_with_container(container);
    ASSERT_TRUE(deployment) << container;
    const std::string command =
        helm_testing::container_named((*deployment)["spec"]["template"]["spec"], container)["command"][0];
    ASSERT_EQ(command.rfind('/', 0), 0u) << command << " is no absolute path";
    const fs::path binary = fs::path(image_->root()) / command.substr(1);
    EXPECT_TRUE(fs::is_regular_file(binary)) << command << " is not in the image";
    EXPECT_NE(fs::status(binary).permissions() & fs::perms::others_exec, fs::perms::none) << command;
  }
}

TEST_F(ImageOnRealCluster, HoldsNoShellOrPackageManagerAndRunsAsTheChartsUser) {
  const auto inspected = run_process({"/usr/bin/podman", "image", "inspect", "--format",
                                      "{{.Config.User}} {{json .Config.Entrypoint}} {{.Size}}", image_->tag()});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  std::istringstream fields(inspected.out);
  std::string user, entrypoint;
  long long size = 0;
  fields >> user >> entrypoint >> size;
  EXPECT_EQ(user, "65532:65532");
  EXPECT_EQ(entrypoint, R"(["/usr/local/bin/gangplank-operator"])");
  std::cout << "image " << image_->tag() << ": " << size << " bytes\n";
  RecordProperty("image_bytes", std::to_string(size));
  EXPECT_LT(size, 100'000'000) << "the image carries more than the binaries and their libraries";
  const fs::path root = image_->root();
  for (const char* tool : {"bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/bash", "usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/env"}) {
    EXPECT_FALSE(fs::exists(root / tool)) << tool << " is in the image";
  }
  EXPECT_TRUE(fs::exists(root / "etc/ssl/certs/ca-certificates.crt"));
  EXPECT_NE(read_text_file((root / "etc/passwd").string()).find(":65532:65532:"), std::string::npos);
}

// scripts/real-cluster.sh --image-root: the extender and the operator are the image's binaries, run as
// its user; a gang goes through the webhook, the operator's admission and the extender's filter and bind.
TEST_F(ImageOnRealCluster, TheControlPlanesGangplankRunsFromTheImageAndPlacesAGang) {
  for (const char* component : {"gangplank-extender", "gangplank-operator"}) {
    const std::string pid = PidOf(component);
    ASSERT_FALSE(pid.empty()) << component;
    EXPECT_EQ(fs::read_symlink("/proc/" + pid + "/root"), fs::path(image_->root())) << component << " runs outside the image";
    EXPECT_NE(read_text_file("/proc/" + pid + "/status").find("Uid:\t65532"), std::string::npos) << component;
  }
  Node("img-0", 8);
  Node("img-1", 8);
  Pool("pool");
  Queue("team-a");
  CreateGang("train", 2, PodSpec().Gpus(8).Queue("team-a"));
  EXPECT_TRUE(WaitFor([&] { return !NodeOf("train-0").empty() && !NodeOf("train-1").empty(); })) << Logs();
  EXPECT_NE(NodeOf("train-0"), NodeOf("train-1"));
}

}  // namespace
}  // namespace gangplank::real_cluster
