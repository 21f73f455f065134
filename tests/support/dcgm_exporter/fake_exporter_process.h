// fake_dcgm_exporter (main.cc here) run as a child process by a test: started on a free port it reports
// itself, then told over HTTP which pods load its GPUs and whether /metrics should fail.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "net/http_client.h"
#include "tests/support/child_process.h"

namespace gangplank::testing {

class FakeDcgmExporter {
 public:
  // Starts `binary` (the build's fake_dcgm_exporter) with `flags`, logging to `log_path`, and waits for
  // the port on its first output line.
  FakeDcgmExporter(const std::string& binary, const std::string& log_path, std::vector<std::string> flags = {}) {
    std::vector<std::string> argv{binary, "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<ChildProcess>(argv, log_path);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((port_ = FirstLinePort()) == 0) {
      if (!process_->Running() || std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("fake_dcgm_exporter did not start:\n" + process_->Log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::uint16_t port() const { return port_; }
  std::string Target() const { return "127.0.0.1:" + std::to_string(port_); }

  // PUT /set with a JSON list of {"namespace","pod","gpus","util"}; the status code.
  int SetLoads(const std::string& json) { return Put("/set", json); }
  // PUT /mode: "ok", "garbage" or "error".
  int SetMode(const std::string& mode) { return Put("/mode", mode); }
  std::string Metrics() {
    net::HttpClientRequest request;
    request.target = "/metrics";
    return Client().Send(request).body;
  }

 private:
  std::uint16_t FirstLinePort() const {
    const std::string log = process_->Log();
    const auto end = log.find('\n');
    return end == std::string::npos ? 0 : static_cast<std::uint16_t>(std::stoi(log.substr(0, end)));
  }

  int Put(const std::string& target, const std::string& body) {
    net::HttpClientRequest request;
    request.method = "PUT";
    request.target = target;
    request.body = body;
    return Client().Send(request).status;
  }

  net::HttpClient& Client() {
    if (!client_) client_ = net::MakeHttpClient({"http://" + Target(), {}});
    return *client_;
  }

  std::unique_ptr<ChildProcess> process_;
  std::uint16_t port_ = 0;
  std::unique_ptr<net::HttpClient> client_;
};

}  // namespace gangplank::testing
