#include "tests/support/fault_proxy/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "tests/support/fault_proxy/http_framing.h"

namespace gangplank::testing {
namespace {

using fault_proxy::ChunkTracker;
using fault_proxy::RequestHead;

constexpr std::size_t kMaxHead = 1 << 20;
constexpr int kPollMs = 50;

std::string ReasonOf(int status) {
  switch (status) {
    case 400: return "BadRequest";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "InternalError";
  }
}

// The Status body kube-apiserver sends with an error.
std::string StatusBody(const ProxyFault& fault) {
  nlohmann::json status = {{"kind", "Status"},
                           {"apiVersion", "v1"},
                           {"metadata", nlohmann::json::object()},
                           {"status", "Failure"},
                           {"message", "fault proxy: injected " + std::to_string(fault.status)},
                           {"reason", ReasonOf(fault.status)},
                           {"code", fault.status}};
  if (fault.retry_after_seconds) status["details"] = {{"retryAfterSeconds", *fault.retry_after_seconds}};
  return status.dump();
}

std::string FaultResponse(const ProxyFault& fault, bool watch) {
  if (watch && fault.in_stream) {
    const std::string event = R"({"type":"ERROR","object":)" + StatusBody(fault) + "}\n";
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
           "Connection: close\r\n\r\n" +
           fault_proxy::ChunkOf(event) + std::string(fault_proxy::kLastChunk);
  }
  const std::string body = StatusBody(fault);
  std::string head = "HTTP/1.1 " + std::to_string(fault.status) + " " + ReasonOf(fault.status) +
                     "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\nConnection: close\r\n";
  if (fault.retry_after_seconds) head += "Retry-After: " + std::to_string(*fault.retry_after_seconds) + "\r\n";
  return head + "\r\n" + body;
}

bool SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool Matches(const ProxyFault& fault, const RequestHead& head) {
  const bool watch = head.IsWatch();
  if (watch && !fault.include_watches) return false;
  if (!watch && fault.watches_only) return false;
  if (!fault.method.empty() && fault.method != head.method) return false;
  if (!fault.query_contains.empty() && head.query.find(fault.query_contains) == std::string::npos) return false;
  return fault.path_contains.empty() || head.path.find(fault.path_contains) != std::string::npos;
}

}  // namespace

// One client connection, served by a thread of its own: one request, relayed or answered.
struct ProxyConnection {
  explicit ProxyConnection(int fd) : client_fd(fd) {}
  ~ProxyConnection() { ::close(client_fd); }
  int client_fd;
  std::atomic<bool> watch{false};
  std::atomic<int> drop{0};  // 0 none, 1 clean end, 2 mid-event cut
  std::atomic<bool> aborted{false};
  std::atomic<bool> done{false};
  std::mutex upstream_mu;
  fault_proxy::TlsConnection* upstream = nullptr;  // Guarded by upstream_mu; owned by the thread.
  std::thread thread;
  void Abort() {
    aborted = true;
    ::shutdown(client_fd, SHUT_RDWR);
    std::lock_guard lock(upstream_mu);
    if (upstream != nullptr) upstream->Shutdown();
  }
};

class FaultProxy::Impl {
 public:
  Impl(fault_proxy::UpstreamOptions upstream, std::uint16_t port) : upstream_(std::move(upstream)), port_(port) {}

  void Start();
  void Stop();
  void Serve(ProxyConnection& connection);

  fault_proxy::UpstreamTls upstream_;
  std::uint16_t port_;
  mutable std::mutex mu_;
  int listen_fd_ = -1;
  std::thread acceptor_;
  std::list<std::unique_ptr<ProxyConnection>> connections_;
  std::vector<ProxyFault> faults_;
  std::chrono::milliseconds delay_{0};
  std::vector<ProxiedRequest> requests_;

 private:
  void AcceptLoop(int listen_fd);
  void ReapFinished();
  std::optional<ProxyFault> TakeFault(const RequestHead& head);
  bool ReadRequest(ProxyConnection& connection, RequestHead& head, std::string& body);
  void Hold(const ProxyConnection& connection) const;
  void Relay(ProxyConnection& connection, fault_proxy::TlsConnection& upstream);
};

void FaultProxy::Impl::Start() {
  std::lock_guard lock(mu_);
  if (listen_fd_ >= 0) return;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port_);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 128) != 0) {
    ::close(fd);
    throw std::runtime_error("fault proxy: cannot listen on 127.0.0.1:" + std::to_string(port_));
  }
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  listen_fd_ = fd;
  acceptor_ = std::thread([this, fd] { AcceptLoop(fd); });
}

void FaultProxy::Impl::Stop() {
  std::list<std::unique_ptr<ProxyConnection>> connections;
  {
    std::lock_guard lock(mu_);
    if (listen_fd_ < 0) return;
    ::shutdown(listen_fd_, SHUT_RDWR);  // Wakes accept().
  }
  acceptor_.join();
  {
    std::lock_guard lock(mu_);
    ::close(listen_fd_);
    listen_fd_ = -1;
    connections.swap(connections_);
  }
  for (auto& connection : connections) connection->Abort();
  for (auto& connection : connections) connection->thread.join();
}

void FaultProxy::Impl::AcceptLoop(int listen_fd) {
  for (;;) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // Stop() shut the listener down.
    }
    ReapFinished();
    std::lock_guard lock(mu_);
    auto& connection = connections_.emplace_back(std::make_unique<ProxyConnection>(fd));
    connection->thread = std::thread([this, c = connection.get()] {
      // OpenSSL writes to the upstream socket with write(): a peer gone must be EPIPE for this thread,
      // not a SIGPIPE that ends the test binary.
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      try {
        Serve(*c);
      } catch (const std::exception&) {
        // A request the proxy cannot parse ends its connection; the client sees a transport error.
      }
      ::shutdown(c->client_fd, SHUT_RDWR);
      c->done = true;
    });
  }
}

void FaultProxy::Impl::ReapFinished() {
  std::list<std::unique_ptr<ProxyConnection>> finished;
  {
    std::lock_guard lock(mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      auto next = std::next(it);
      if ((*it)->done) finished.splice(finished.end(), connections_, it);
      it = next;
    }
  }
  for (auto& connection : finished) connection->thread.join();
}

std::optional<ProxyFault> FaultProxy::Impl::TakeFault(const RequestHead& head) {
  std::lock_guard lock(mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!Matches(*it, head)) continue;
    ProxyFault fault = *it;
    if (--it->count <= 0) faults_.erase(it);
    return fault;
  }
  return std::nullopt;
}

// Reads the request head and its body (Content-Length or chunked) from the client.
bool FaultProxy::Impl::ReadRequest(ProxyConnection& connection, RequestHead& head, std::string& body) {
  std::string buffer;
  char chunk[16384];
  std::size_t head_end = std::string::npos;
  while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    if (buffer.size() > kMaxHead) return false;
    const ssize_t n = ::recv(connection.client_fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  auto parsed = fault_proxy::ParseRequestHead(std::string_view(buffer).substr(0, head_end + 4));
  if (!parsed) return false;
  head = std::move(*parsed);
  body = buffer.substr(head_end + 4);
  const auto length = head.Header("Content-Length");
  const auto encoding = head.Header("Transfer-Encoding");
  if (encoding && encoding->find("chunked") != std::string::npos) {
    ChunkTracker tracker;
    tracker.Feed(body);
    while (!tracker.Finished()) {
      const ssize_t n = ::recv(connection.client_fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      body.append(chunk, static_cast<std::size_t>(n));
      tracker.Feed(std::string_view(chunk, static_cast<std::size_t>(n)));
    }
    return true;
  }
  const std::size_t expected = length ? std::stoul(*length) : 0;
  while (body.size() < expected) {
    const ssize_t n = ::recv(connection.client_fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    body.append(chunk, static_cast<std::size_t>(n));
  }
  return true;
}

void FaultProxy::Impl::Hold(const ProxyConnection& connection) const {
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mu_);
    delay = delay_;
  }
  const auto until = std::chrono::steady_clock::now() + delay;
  while (!connection.aborted && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void FaultProxy::Impl::Serve(ProxyConnection& connection) {
  RequestHead head;
  std::string body;
  if (!ReadRequest(connection, head, body)) return;
  {
    std::lock_guard lock(mu_);
    requests_.push_back({head.method, head.path, head.query, head.Header("User-Agent").value_or("")});
  }
  connection.watch = head.IsWatch();
  if (auto fault = TakeFault(head)) {
    Hold(connection);
    SendAll(connection.client_fd, FaultResponse(*fault, connection.watch));
    return;
  }
  // A request that brings a token is judged as that token's user: no certificate of the proxy's.
  auto upstream = upstream_.Connect(!head.Header("Authorization").has_value());
  if (!upstream || !upstream->WriteAll(head.ForUpstream() + body)) {
    SendAll(connection.client_fd, FaultResponse(ProxyFault::Status(503), false));
    return;
  }
  {
    std::lock_guard lock(connection.upstream_mu);
    connection.upstream = upstream.get();
  }
  Relay(connection, *upstream);
  std::lock_guard lock(connection.upstream_mu);
  connection.upstream = nullptr;
}

// Copies the answer to the client as it comes; a dropped watch ends at the next event boundary (the
// chunked body's end written by the proxy) or is cut in the middle of its next event.
void FaultProxy::Impl::Relay(ProxyConnection& connection, fault_proxy::TlsConnection& upstream) {
  char buffer[16384];
  std::string response_head;
  bool head_done = false;
  bool chunked = false;
  ChunkTracker tracker;
  while (!connection.aborted) {
    const int drop = connection.drop;
    if (drop == 1 && head_done && (!chunked || tracker.AtEventBoundary())) {
      if (chunked) SendAll(connection.client_fd, fault_proxy::kLastChunk);
      break;
    }
    const int n = upstream.ReadSome(buffer, sizeof buffer, kPollMs);
    if (n < 0) break;
    if (n == 0) continue;
    std::string_view bytes(buffer, static_cast<std::size_t>(n));
    if (!head_done) {
      const std::size_t before = response_head.size();
      response_head.append(bytes);
      const std::size_t end = response_head.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      head_done = true;
      chunked = response_head.find("Transfer-Encoding: chunked") != std::string::npos ||
                response_head.find("transfer-encoding: chunked") != std::string::npos;
      Hold(connection);
      if (!SendAll(connection.client_fd, std::string_view(response_head).substr(0, end + 4))) break;
      bytes.remove_prefix(end + 4 - before);
      if (bytes.empty()) continue;
    }
    if (drop == 2 && !bytes.empty()) {
      SendAll(connection.client_fd, bytes.substr(0, bytes.size() / 2));
      break;
    }
    if (chunked) tracker.Feed(bytes);
    if (!SendAll(connection.client_fd, bytes)) break;
    if (chunked && tracker.Finished()) break;
  }
  ::shutdown(connection.client_fd, SHUT_RDWR);
}

FaultProxy::FaultProxy(fault_proxy::UpstreamOptions upstream, std::uint16_t port)
    : impl_(std::make_unique<Impl>(std::move(upstream), port)) {}
FaultProxy::~FaultProxy() { Stop(); }

void FaultProxy::Start() { impl_->Start(); }
void FaultProxy::Stop() { impl_->Stop(); }
bool FaultProxy::running() const {
  std::lock_guard lock(impl_->mu_);
  return impl_->listen_fd_ >= 0;
}
std::uint16_t FaultProxy::port() const {
  std::lock_guard lock(impl_->mu_);
  return impl_->port_;
}
std::string FaultProxy::url() const { return "http://127.0.0.1:" + std::to_string(port()); }

std::string FaultProxy::KubeconfigYaml(const std::string& token, const std::string& default_namespace) const {
  std::string user = token.empty() ? "{}" : "\n    token: " + token;
  return "apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster:\n    server: " + url() +
         "\nusers:\n- name: proxy\n  user: " + user + "\ncontexts:\n- name: proxy\n  context:\n    cluster: proxy\n" +
         "    user: proxy\n    namespace: " + default_namespace + "\ncurrent-context: proxy\n";
}

void FaultProxy::FailNext(ProxyFault fault) {
  std::lock_guard lock(impl_->mu_);
  impl_->faults_.push_back(std::move(fault));
}
void FaultProxy::ClearFaults() {
  std::lock_guard lock(impl_->mu_);
  impl_->faults_.clear();
}
void FaultProxy::SetResponseDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(impl_->mu_);
  impl_->delay_ = delay;
}
void FaultProxy::DropWatches(WatchEnd how) {
  std::lock_guard lock(impl_->mu_);
  for (auto& connection : impl_->connections_) {
    if (connection->watch && !connection->done) connection->drop = how == WatchEnd::kClean ? 1 : 2;
  }
}
std::size_t FaultProxy::OpenWatches() const {
  std::lock_guard lock(impl_->mu_);
  std::size_t open = 0;
  for (const auto& connection : impl_->connections_) open += connection->watch && !connection->done ? 1 : 0;
  return open;
}
std::size_t FaultProxy::RequestCount() const {
  std::lock_guard lock(impl_->mu_);
  return impl_->requests_.size();
}
std::vector<ProxiedRequest> FaultProxy::Requests() const {
  std::lock_guard lock(impl_->mu_);
  return impl_->requests_;
}

}  // namespace gangplank::testing
