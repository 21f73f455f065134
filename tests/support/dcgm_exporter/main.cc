// fake_dcgm_exporter: a stand-in for NVIDIA's dcgm-exporter on one GPU node, for tests that need a real
// Prometheus to scrape GPU utilization per pod. Prints the port it listens on as its first stdout line.
//
//   GET  /metrics   dcgm-exporter's exposition for the node (see gpu_node.cc)
//   PUT  /set       body [{"namespace":"ml","pod":"a","gpus":2,"util":85,"container":"main"}]: the pods'
//                   load, replacing the previous one (POST too)
//   PUT  /mode      body "ok", "garbage" (200 with a body that is not the text format) or "error" (500)
#include <CLI/CLI.hpp>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "net/http_server.h"
#include "process/env_flags.h"
#include "process/signals.h"
#include "tests/support/dcgm_exporter/gpu_node.h"

namespace {

using gangplank::net::HttpRequest;
using gangplank::net::HttpResponse;
using gangplank::testing::dcgm::GpuNode;
using gangplank::testing::dcgm::Mode;
using gangplank::testing::dcgm::PodLoad;

HttpResponse Metrics(const GpuNode& node) {
  switch (node.mode()) {
    case Mode::kGarbage:
      return HttpResponse::text(200, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 12 oops\n<html>not metrics</html>\n");
    case Mode::kError: return HttpResponse::text(500, "dcgm: host engine not reachable\n");
    case Mode::kOk: break;
  }
  return HttpResponse::text(200, node.Exposition())
      .SetHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
}

HttpResponse SetLoads(GpuNode& node, const std::string& body) {
  std::vector<PodLoad> loads;
  try {
    for (const auto& item : nlohmann::json::parse(body)) {
      loads.push_back(PodLoad{item.at("namespace").get<std::string>(), item.at("pod").get<std::string>(),
                              item.value("container", std::string("main")), item.value("gpus", 1),
                              item.value("util", 0.0)});
    }
  } catch (const nlohmann::json::exception& e) {
    return HttpResponse::text(400, std::string("bad load list: ") + e.what() + "\n");
  }
  const std::string problem = node.SetLoads(std::move(loads));
  return problem.empty() ? HttpResponse::text(200, "ok\n") : HttpResponse::text(400, problem + "\n");
}

HttpResponse SetMode(GpuNode& node, const std::string& body) {
  static const std::map<std::string, Mode> kModes = {
      {"ok", Mode::kOk}, {"garbage", Mode::kGarbage}, {"error", Mode::kError}};
  const auto it = kModes.find(body.substr(0, body.find_last_not_of(" \r\n") + 1));
  if (it == kModes.end()) return HttpResponse::text(400, "mode is ok, garbage or error\n");
  node.SetMode(it->second);
  return HttpResponse::text(200, "ok\n");
}

HttpResponse Route(GpuNode& node, const HttpRequest& request) {
  const bool write = request.method == "PUT" || request.method == "POST";
  if (request.path == "/metrics" && request.method == "GET") return Metrics(node);
  if (request.path == "/set" && write) return SetLoads(node, request.body);
  if (request.path == "/mode" && write) return SetMode(node, request.body);
  return HttpResponse::text(404, "not found\n");
}

}  // namespace

int main(int argc, char** argv) {
  const gangplank::process::StopSignals signals;
  CLI::App app{"A fake dcgm-exporter for tests: one node's GPUs, per-pod utilization set over HTTP"};
  gangplank::process::EnvFlags flags(app, "FAKE_DCGM_EXPORTER_");
  gangplank::net::HttpServerOptions server_options;
  gangplank::testing::dcgm::GpuNodeOptions node_options;
  flags.Option("listen-address", server_options.host, "Address to listen on");
  flags.Option("port", server_options.port, "Port (0: any free one, printed on the first stdout line)");
  flags.Option("hostname", node_options.hostname, "The Hostname label");
  flags.Option("model", node_options.model, "The modelName label");
  flags.Option("gpus", node_options.gpus, "GPUs on the node");
  CLI11_PARSE(app, argc, argv);

  GpuNode node(node_options);
  auto server = gangplank::net::MakeHttpServer(server_options);
  server->Start(gangplank::net::MakeSyncHandler([&node](const HttpRequest& request) { return Route(node, request); }));
  std::printf("%u\n", static_cast<unsigned>(server->port()));
  std::fflush(stdout);
  signals.Wait();
  server->Stop();
  return 0;
}
