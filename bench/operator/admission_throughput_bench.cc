// Gangs admitted per second end to end: the real gangplank-operator binary against the API-server
// double on loopback (200 nodes x 8 GPUs, 300 gated gangs of 4 one-GPU pods arriving at once, all of
// which fit). Admitted means
// every member planned and released (its gate removed): two resourceVersion-guarded patches per pod,
// plus the condition and events the operator writes. Baseline in the same run: the same number of pod
// patches sent by a plain client as fast as it can, i.e. what the API writes alone cost.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apiserver-double/api_server_double.h"
#include "kube/client.h"
#include "kube/config.h"
#include "tests/extender/support/free_port.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/child_process.h"

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr int kNodes = 200;
constexpr int kGangs = 300;
constexpr int kMembers = 4;

Json Node(int i) {
  const Json amounts{{"cpu", "96"}, {"memory", "1024Gi"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
  const std::string name = "node-" + std::to_string(i);
  return Json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}, {"rack", "r" + std::to_string(i / 16)}}}}},
              {"status", {{"capacity", amounts}, {"allocatable", amounts}}}};
}

Json Pod(const std::string& name, const std::string& gang) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", "ml"},
                {"labels", {{"gangplank.io/gang", gang}, {"gangplank.io/queue", "team"}}},
                {"annotations", {{"gangplank.io/gang-size", std::to_string(kMembers)}}}}},
              {"spec",
               {{"schedulerName", "gangplank"},
                {"schedulingGates", Json::array({{{"name", "gangplank.io/admission"}}})},
                {"containers", Json::array({{{"name", "main"},
                                             {"image", "x"},
                                             {"resources", {{"requests", {{"cpu", "4"}, {"nvidia.com/gpu", "1"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}},
              {"status", {{"phase", "Pending"}}}};
}

int Released(gangplank::apiserver_double::ApiServerDouble& api) {
  int released = 0;
  for (const Json& pod : api.List("pods", "ml")) {
    if (pod.value("/spec/schedulingGates"_json_pointer, Json::array()).empty()) ++released;
  }
  return released;
}

}  // namespace

int main() {
  namespace fs = std::filesystem;
  gangplank::apiserver_double::ApiServerDouble api;
  api.Start();
  api.put(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}});
  api.SeedFile(GANGPLANK_SOURCE_DIR "/crds/gpupool.gangplank.io.yaml");
  api.SeedFile(GANGPLANK_SOURCE_DIR "/crds/queue.gangplank.io.yaml");
  for (int i = 0; i < kNodes; ++i) api.put(Node(i));
  api.put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "GPUPool"}, {"metadata", {{"name", "pool"}}},
               {"spec", {{"topologyLevels", {"rack", "kubernetes.io/hostname"}}}}});
  api.put(Json{{"apiVersion", "gangplank.io/v1alpha1"}, {"kind", "Queue"}, {"metadata", {{"name", "team"}}}, {"spec", Json::object()}});
  const fs::path dir = fs::temp_directory_path() / ("operator-throughput-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string kubeconfig = (dir / "kubeconfig").string();
  std::ofstream(kubeconfig) << api.KubeconfigYaml("ml");

  // Baseline: the pod writes admission needs (two patches per pod), from one client, back to back.
  gangplank::kube::RestOptions unlimited;
  unlimited.qps = 1e6;
  unlimited.burst = 1000000;
  auto client = std::make_shared<gangplank::kube::Client>(
      std::make_shared<gangplank::kube::RestClient>(gangplank::kube::LoadKubeconfig({kubeconfig}), unlimited));
  for (int p = 0; p < kGangs * kMembers; ++p) api.put(Pod("base-" + std::to_string(p), "base-" + std::to_string(p / kMembers)));
  const auto base_start = Clock::now();
  for (int p = 0; p < kGangs * kMembers; ++p) {
    const std::string name = "base-" + std::to_string(p);
    client->Patch(gangplank::kube::resources::Pods(), "ml", name, gangplank::kube::PatchType::kMerge,
                  Json{{"metadata", {{"annotations", {{"gangplank.io/planned-node", "node-0"}}}}}});
    client->Patch(gangplank::kube::resources::Pods(), "ml", name, gangplank::kube::PatchType::kMerge,
                  Json{{"spec", {{"schedulingGates", Json::array()}}}});
  }
  const double base_seconds = std::chrono::duration<double>(Clock::now() - base_start).count();
  for (int p = 0; p < kGangs * kMembers; ++p) api.Remove("pods", "ml", "base-" + std::to_string(p));

  const std::uint16_t port = gangplank::extender::testing::FreePort();
  gangplank::testing::ChildProcess op(
      {GANGPLANK_OPERATOR_BINARY, "--kubeconfig", kubeconfig, "--listen-address", "127.0.0.1", "--port", std::to_string(port),
       "--no-leader-elect", "--kube-api-qps", "100000", "--kube-api-burst", "100000", "--policy", "bestfit", "--log-level", "warn"},
      (dir / "operator.log").string());
  while (!gangplank::extender::testing::Answers200(port, "/readyz")) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto start = Clock::now();
  for (int g = 0; g < kGangs; ++g) {
    for (int m = 0; m < kMembers; ++m) api.put(Pod("g" + std::to_string(g) + "-" + std::to_string(m), "g" + std::to_string(g)));
  }
  while (Released(api) < kGangs * kMembers) {
    if (std::chrono::duration<double>(Clock::now() - start).count() > 300) {
      std::printf("timed out: %d of %d pods released\n%s\n", Released(api), kGangs * kMembers, op.Log().c_str());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  op.Stop();
  fs::remove_all(dir);
  std::printf("admitted %d gangs of %d one-GPU pods end to end in %.2f s: %.0f gangs/s, %.0f pods/s\n", kGangs, kMembers,
              seconds, kGangs / seconds, kGangs * kMembers / seconds);
  std::printf("baseline: %d x 2 plain pod patches from one client in %.2f s (%.0f patches/s)\n", kGangs * kMembers, base_seconds,
              2 * kGangs * kMembers / base_seconds);
  std::printf("ratio end-to-end admission time / the bare pod writes it needs: %.2f\n", seconds / base_seconds);
  return 0;
}
