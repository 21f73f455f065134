// The HTTP server's own cost per request: 4 keep-alive clients POST a 7 KB body (an extender call's
// size) and get a fixed reply of 10 B, 16 KB or 64 KB. Figures are process CPU per call (server and
// clients together: CPU time does not grow when other processes take the cores) and calls per second;
// each size is measured right after the 10 B baseline, and the ratio is printed.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/process_cpu.h"
#include "net/http_server.h"

namespace {

using namespace gangplank;

constexpr int kClients = 4;
constexpr int kCallsPerClient = 2000;

using gangplank::bench::ProcessCpuSeconds;

// Blocking keep-alive client that understands exactly the replies this benchmark's server sends
// (Content-Length framing).
class Client {
 public:
  explicit Client(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) throw std::runtime_error("connect failed");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends `request` and returns the reply body's size.
  std::size_t Call(const std::string& request) {
    for (std::size_t sent = 0; sent < request.size();) {
      const ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      sent += static_cast<std::size_t>(n);
    }
    std::size_t head_end;
    while ((head_end = in_.find("\r\n\r\n")) == std::string::npos) Fill();
    const auto at = in_.find("Content-Length: ");
    if (at == std::string::npos || at > head_end) throw std::runtime_error("reply without Content-Length");
    const std::size_t length = std::stoul(in_.substr(at + 16));
    while (in_.size() < head_end + 4 + length) Fill();
    in_.erase(0, head_end + 4 + length);
    return length;
  }

 private:
  void Fill() {
    char buffer[65536];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) throw std::runtime_error("connection closed");
    in_.append(buffer, static_cast<std::size_t>(n));
  }

  int fd_;
  std::string in_;
};

struct Figures {
  double calls_per_s = 0;
  double cpu_us_per_call = 0;
};

Figures Load(std::size_t reply_bytes) {
  const std::string reply(reply_bytes, 'r');
  auto server = net::MakeHttpServer({});
  server->Start(net::MakeSyncHandler([&reply](const net::HttpRequest&) { return net::HttpResponse::json(200, reply); }));
  const std::string body(7 * 1024, 'b');
  const std::string request = "POST /filter HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  std::atomic<int> failures{0};
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      try {
        Client client(server->port());
        for (int i = 0; i < kCallsPerClient; ++i) {
          if (client.Call(request) != reply_bytes) ++failures;
        }
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& t : clients) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = ProcessCpuSeconds() - cpu_start;
  server->Stop();
  if (failures.load() > 0) throw std::runtime_error("calls failed");
  const double calls = static_cast<double>(kClients) * kCallsPerClient;
  return {calls / seconds, cpu * 1e6 / calls};
}

void BM_Reply(benchmark::State& bench, std::size_t reply_bytes) {
  Figures baseline, measured;
  for (auto _ : bench) {
    try {
      baseline = Load(10);
      measured = Load(reply_bytes);
    } catch (const std::exception& e) {
      bench.SkipWithError(e.what());
      return;
    }
  }
  bench.counters["calls_per_s"] = measured.calls_per_s;
  bench.counters["cpu_us_per_call"] = measured.cpu_us_per_call;
  bench.counters["base10B_calls_per_s"] = baseline.calls_per_s;
  bench.counters["base10B_cpu_us_per_call"] = baseline.cpu_us_per_call;
  bench.counters["cpu_ratio_vs_10B"] = measured.cpu_us_per_call / baseline.cpu_us_per_call;
}

BENCHMARK_CAPTURE(BM_Reply, 10B, 10)->Name("Reply/10B")->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reply, 16KB, 16 * 1024)->Name("Reply/16KB")->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reply, 64KB, 64 * 1024)->Name("Reply/64KB")->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
