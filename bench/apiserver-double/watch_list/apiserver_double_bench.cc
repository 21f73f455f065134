// Watch event throughput and LIST throughput of the API-server double, each against a baseline in the
// same run that moves the identical bytes through the same HTTP stack (net/http_server.h) without the
// double's work: a plain chunked stream of pre-serialized watch lines, and a plain download of a
// pre-serialized list body. The ratios are what the double costs on top of the transport.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "apiserver-double/api_server_double.h"
#include "bench/median_reporter.h"
#include "net/http_server.h"
#include "tests/support/raw_http.h"

namespace gangplank::apiserver_double {
namespace {

using nlohmann::json;
using gangplank::testing::http_request;
using gangplank::testing::RawStream;

constexpr int kEventsPerIteration = 2000;
constexpr int kListPods = 5000;

json gpu_node(int i, int generation) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", "gpu-" + std::to_string(i)}, {"labels", {{"gangplank.io/pool", "a100"}, {"topology.kubernetes.io/zone", "z1"}}}}},
          {"spec", {{"taints", json::array()}}},
          {"status", {{"allocatable", {{"nvidia.com/gpu", "8"}, {"cpu", "96"}, {"memory", "1Ti"}}},
                      {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"reason", "gen" + std::to_string(generation)}}}}}}};
}

json training_pod(int i) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "trainer-" + std::to_string(i)}, {"namespace", "default"},
                        {"labels", {{"gangplank.io/gang", "job-" + std::to_string(i / 8)}, {"app", "trainer"}}}}},
          {"spec", {{"nodeName", "gpu-" + std::to_string(i / 8)},
                    {"containers", {{{"name", "main"}, {"image", "registry.example/train:1.0"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

// Double: each iteration modifies kEventsPerIteration nodes in-process and reads every resulting watch
// event off the socket.
void BM_WatchEvents_Double(benchmark::State& state) {
  ApiServerDouble server;
  server.Start();
  for (int i = 0; i < 100; ++i) server.put(gpu_node(i, 0));
  RawStream watch(server.port(), "/api/v1/nodes?watch=1&resourceVersion=" + server.ResourceVersion());
  int generation = 1;
  std::size_t bytes = 0;
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) server.put(gpu_node(i % 100, generation++));
    for (int i = 0; i < kEventsPerIteration; ++i) {
      auto line = watch.next_line(std::chrono::seconds(10));
      if (!line) {
        state.SkipWithError("watch stream ended early");
        return;
      }
      bytes += line->size() + 1;
    }
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Baseline: the same number of watch-event-sized lines pushed through a bare HttpResponseStream.
void BM_WatchEvents_PlainStreamBaseline(benchmark::State& state) {
  const std::string line = json{{"type", "MODIFIED"}, {"object", gpu_node(1, 123456)}}.dump() + "\n";
  auto server = net::MakeHttpServer({});
  std::mutex m;
  std::shared_ptr<net::HttpResponseStream> stream;
  server->Start([&](const net::HttpRequest&, net::HttpResponder responder) {
    auto s = responder.StartStream(200, {{"Content-Type", "application/json"}});
    std::lock_guard lock(m);
    stream = s;
  });
  RawStream watch(server->port(), "/stream");
  std::shared_ptr<net::HttpResponseStream> s;
  while (!s) {
    std::lock_guard lock(m);
    s = stream;
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) s->Write(line);
    for (int i = 0; i < kEventsPerIteration; ++i) {
      auto got = watch.next_line(std::chrono::seconds(10));
      if (!got) {
        state.SkipWithError("stream ended early");
        return;
      }
      bytes += got->size() + 1;
    }
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Double: LIST of kListPods pods (one request, no paging).
void BM_ListPods_Double(benchmark::State& state) {
  ApiServerDouble server;
  for (int i = 0; i < kListPods; ++i) server.put(training_pod(i));
  server.Start();
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto r = http_request(server.port(), "GET", "/api/v1/namespaces/default/pods", "", {}, std::chrono::seconds(60));
    if (r.status != 200) {
      state.SkipWithError("list failed");
      return;
    }
    bytes += r.body.size();
  }
  state.SetItemsProcessed(state.iterations() * kListPods);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Double: the same pods in pages of 500 (limit/continue), as client-go's reflector lists.
void BM_ListPods_Paged500_Double(benchmark::State& state) {
  ApiServerDouble server;
  for (int i = 0; i < kListPods; ++i) server.put(training_pod(i));
  server.Start();
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string token;
    int items = 0;
    do {
      auto r = http_request(server.port(), "GET", "/api/v1/namespaces/default/pods?limit=500" + (token.empty() ? "" : "&continue=" + token),
                            "", {}, std::chrono::seconds(60));
      if (r.status != 200) {
        state.SkipWithError("paged list failed");
        return;
      }
      bytes += r.body.size();
      // Counted and tokenized without a JSON parse, so the figure is the server's and the transport's.
      for (auto pos = r.body.find("\"kind\":\"Pod\""); pos != std::string::npos; pos = r.body.find("\"kind\":\"Pod\"", pos + 1)) ++items;
      token.clear();
      if (auto at = r.body.find("\"continue\":\""); at != std::string::npos) {
        at += 12;
        token = r.body.substr(at, r.body.find('"', at) - at);
      }
    } while (!token.empty());
    if (items != kListPods) {
      state.SkipWithError("paged list lost items");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * kListPods);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Baseline: a plain download of the identical list body from a handler that returns it pre-built.
void BM_ListPods_PlainDownloadBaseline(benchmark::State& state) {
  std::string body;
  {
    ApiServerDouble source;
    for (int i = 0; i < kListPods; ++i) source.put(training_pod(i));
    source.Start();
    body = http_request(source.port(), "GET", "/api/v1/namespaces/default/pods", "", {}, std::chrono::seconds(60)).body;
  }
  auto server = net::MakeHttpServer({});
  server->Start(net::MakeSyncHandler([&body](const net::HttpRequest&) { return net::HttpResponse::json(200, body); }));
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto r = http_request(server->port(), "GET", "/api/v1/namespaces/default/pods", "", {}, std::chrono::seconds(60));
    bytes += r.body.size();
  }
  state.SetItemsProcessed(state.iterations() * kListPods);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

BENCHMARK(BM_WatchEvents_Double)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
BENCHMARK(BM_WatchEvents_PlainStreamBaseline)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
BENCHMARK(BM_ListPods_Double)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
BENCHMARK(BM_ListPods_Paged500_Double)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();
BENCHMARK(BM_ListPods_PlainDownloadBaseline)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true)->UseRealTime();

// Prints the console table and remembers each benchmark's median real time for the ratios.

}  // namespace
}  // namespace gangplank::apiserver_double

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gangplank::bench::MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double watch = reporter.Median("BM_WatchEvents_Double");
  const double stream = reporter.Median("BM_WatchEvents_PlainStreamBaseline");
  const double list = reporter.Median("BM_ListPods_Double");
  const double download = reporter.Median("BM_ListPods_PlainDownloadBaseline");
  const double paged = reporter.Median("BM_ListPods_Paged500_Double");
  if (watch > 0 && stream > 0) {
    std::printf("watch: %.0f events/s through the double vs %.0f lines/s plain stream; ratio double/plain time %.2f\n",
                gangplank::apiserver_double::kEventsPerIteration / (watch / 1e3),
                gangplank::apiserver_double::kEventsPerIteration / (stream / 1e3), watch / stream);
  }
  if (list > 0 && download > 0) {
    std::printf("list: %d pods in %.1f ms from the double vs %.1f ms plain download of the same bytes; ratio %.2f\n",
                gangplank::apiserver_double::kListPods, list, download, list / download);
  }
  if (paged > 0 && download > 0) {
    std::printf("paged list: %d pods in pages of 500 (10 requests) in %.1f ms; ratio to one plain download %.2f\n",
                gangplank::apiserver_double::kListPods, paged, paged / download);
  }
  benchmark::Shutdown();
  return 0;
}
