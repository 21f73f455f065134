// Shared setup: an API-server double on an ephemeral loopback port and clients pointed at it through a
// kubeconfig the double writes, so the kubeconfig path is exercised too.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "apiserver-double/api_server_double.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/rest_client.h"

namespace gangplank::kube::testing {

inline std::string write_temp_file(const std::string& stem, const std::string& text) {
  static int counter = 0;
  auto path = std::filesystem::temp_directory_path() /
              (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::ofstream(path) << text;
  return path.string();
}

inline ClusterConfig config_for(const apiserver_double::ApiServerDouble& server) {
  std::string path = write_temp_file("gangplank-kubeconfig", server.kubeconfig_yaml());
  ClusterConfig cfg = load_kubeconfig({path});
  std::filesystem::remove(path);
  return cfg;
}

// Tests are not about the client-side limiter unless they say so.
inline RestOptions unlimited() {
  RestOptions o;
  o.qps = 0;
  return o;
}

inline std::shared_ptr<RestClient> rest_for(const apiserver_double::ApiServerDouble& server,
                                            RestOptions options = unlimited()) {
  return std::make_shared<RestClient>(config_for(server), options);
}

// Polls `condition` until true or timeout; returns the final value.
template <class F>
bool eventually(F condition, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

inline nlohmann::json pod_json(const std::string& ns, const std::string& name, const std::string& node = "",
                               const std::string& gang = "") {
  nlohmann::json pod = {{"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "test"}}}}},
                        {"spec",
                         {{"schedulerName", "gangplank"},
                          {"containers",
                           {{{"name", "main"},
                             {"image", "busybox"},
                             {"resources", {{"requests", {{"cpu", "100m"}, {"nvidia.com/gpu", "1"}}}}}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  if (!gang.empty()) pod["metadata"]["labels"]["gangplank.io/gang"] = gang;
  return pod;
}

}  // namespace gangplank::kube::testing
