// HttpServer on Boost.Asio + Boost.Beast: one acceptor and a small fixed pool of io threads, each running
// its own io_context; new connections go to the contexts in turn, and every connection lives on its own
// strand (net/asio_connection.h).
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "net/asio_connection.h"
#include "net/asio_response_stream.h"
#include "net/asio_server_core.h"
#include "net/http_server.h"
#include "net/tls_server_context.h"

namespace gangplank::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using asio_server::Core;

// How long stop() lets in-flight requests finish, and then lets closed connections wind down.
constexpr std::chrono::seconds kStopGrace{5};
constexpr std::chrono::seconds kWindDown{2};
// Accept failures such as running out of file descriptors are retried after this pause.
constexpr std::chrono::milliseconds kAcceptRetry{50};

// Accepts connections until the acceptor closes. Owned by shared_ptr so pending accepts keep it alive.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(std::shared_ptr<Core> core, tcp::acceptor acceptor)
      : core_(std::move(core)), acceptor_(std::move(acceptor)), retry_(acceptor_.get_executor()) {}

  void Accept() {
    acceptor_.async_accept(asio::make_strand(core_->next_io()), [self = shared_from_this()](const error_code& ec, tcp::socket socket) {
      self->OnAccept(ec, std::move(socket));
    });
  }

  // Runs on the listener's strand.
  void Close() {
    error_code ignored;
    acceptor_.close(ignored);
    retry_.cancel();
  }

  asio::any_io_executor executor() { return acceptor_.get_executor(); }

 private:
  void OnAccept(const error_code& ec, tcp::socket socket) {
    if (!acceptor_.is_open() || ec == asio::error::operation_aborted) return;
    if (ec) {
      retry_.expires_after(kAcceptRetry);
      retry_.async_wait([self = shared_from_this()](const error_code& error) {
        if (!error) self->Accept();
      });
      return;
    }
    if (core_->AtConnectionLimit() && !MakeRoom()) {
      // Refused before any byte is read: see HttpServerOptions::max_connections.
      error_code ignored;
      socket.close(ignored);
    } else if (!core_->stopping()) {
      error_code ignored;
      // Replies go out in one write, but streams and 100-continue do not: never wait for Nagle.
      socket.set_option(tcp::no_delay(true), ignored);
      if (auto tls = core_->tls_context()) {
        asio_server::ServeTls(core_, std::move(socket), std::move(tls));
      } else {
        asio_server::ServePlain(core_, std::move(socket));
      }
    }
    Accept();
  }

  // HttpServerOptions::shed_waiting_at_limit: closes the connection that waited longest, if any waits.
  bool MakeRoom() {
    std::shared_ptr<asio_server::ConnectionBase> victim;
    if (!core_->options().shed_waiting_at_limit || !core_->ShedLongestWaiting(victim)) return false;
    if (victim) asio::post(victim->executor(), [victim] { victim->ForceClose(); });
    return true;
  }

  const std::shared_ptr<Core> core_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_;
};

class AsioHttpServer final : public HttpServer {
 public:
  explicit AsioHttpServer(HttpServerOptions options) : options_(std::move(options)) {}
  ~AsioHttpServer() override { Stop(); }

  void Start(HttpHandler handler) override {
    if (core_) throw std::runtime_error("http server: already started");
    auto core = std::make_shared<Core>(options_, std::move(handler));
    // Read now so a missing or bad file is reported by start(), not by the first handshake.
    if (options_.tls) core->SetTlsContext(LoadServerTlsContext(*options_.tls));
    auto listener = std::make_shared<Listener>(core, OpenAcceptor(*core));
    core_ = std::move(core);
    listener_ = std::move(listener);
    for (std::size_t i = 0; i < core_->IoCount(); ++i) work_.emplace_back(core_->io(i).get_executor());
    listener_->Accept();
    running_threads_ = core_->IoCount();
    for (std::size_t i = 0; i < core_->IoCount(); ++i) threads_.emplace_back([this, i] { RunIo(core_->io(i)); });
  }

  uint16_t port() const override { return port_; }

  std::string BaseUrl() const override {
    const bool v6 = options_.host.find(':') != std::string::npos;
    return std::string(options_.tls ? "https" : "http") + "://" + (v6 ? "[" + options_.host + "]" : options_.host) + ":" +
           std::to_string(port_);
  }

  void Stop() override {
    if (!core_ || stopped_) return;
    stopped_ = true;
    core_->BeginStop();
    CloseListener();
    for (auto& stream : core_->OpenStreams()) stream->Close();
    core_->WaitForExchanges(kStopGrace);
    // From here on answers given late (on other threads) are dropped rather than queued.
    core_->CloseGate();
    for (auto& connection : core_->connections()) {
      asio::post(connection->executor(), [connection] { connection->ForceClose(); });
    }
    listener_.reset();
    work_.clear();
    // With every socket closed the io_contexts run out of work and the threads return by themselves.
    {
      std::unique_lock lock(threads_mutex_);
      if (!threads_done_.wait_for(lock, kWindDown, [&] { return running_threads_ == 0; })) {
        for (std::size_t i = 0; i < core_->IoCount(); ++i) core_->io(i).stop();
      }
    }
    for (auto& thread : threads_) thread.join();
    threads_.clear();
    // Handlers still queued (only after a forced stop) hold connections, which hold the core: run them
    // out, so nothing is left to reference the io_contexts.
    for (std::size_t i = 0; i < core_->IoCount(); ++i) {
      core_->io(i).restart();
      core_->io(i).run_for(kWindDown);
    }
    core_->ReleaseHandler();
  }

  std::string ReloadTls() override {
    if (!options_.tls) return "http server: TLS is not enabled";
    if (!core_ || stopped_) return "http server: not running";
    try {
      core_->SetTlsContext(LoadServerTlsContext(*options_.tls));
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }

 private:
  tcp::acceptor OpenAcceptor(Core& core) {
    const std::string where = options_.host + ":" + std::to_string(options_.port);
    error_code ec;
    tcp::resolver resolver(core.io(0));
    const auto endpoints = resolver.resolve(options_.host, std::to_string(options_.port),
                                            tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec || endpoints.empty()) {
      throw std::runtime_error("http server: cannot listen on " + where + ": cannot resolve host: " + ec.message());
    }
    // "localhost" may resolve to ::1 first, while clients are told host:port and usually try IPv4.
    tcp::endpoint endpoint = endpoints.begin()->endpoint();
    for (const auto& entry : endpoints) {
      if (entry.endpoint().address().is_v4()) {
        endpoint = entry.endpoint();
        break;
      }
    }
    tcp::acceptor acceptor(asio::make_strand(core.io(0)));
    auto fail = [&](const char* step) {
      return std::runtime_error("http server: cannot listen on " + where + ": " + step + ": " + ec.message());
    };
    if (acceptor.open(endpoint.protocol(), ec)) throw fail("open");
    // Lets a restarted server bind the port again while old connections sit in TIME_WAIT.
    if (acceptor.set_option(tcp::acceptor::reuse_address(true), ec)) throw fail("set SO_REUSEADDR");
    if (acceptor.bind(endpoint, ec)) throw fail("bind");
    if (acceptor.listen(asio::socket_base::max_listen_connections, ec)) throw fail("listen");
    port_ = acceptor.local_endpoint(ec).port();
    if (ec) throw fail("read the bound port");
    return acceptor;
  }

  void CloseListener() {
    std::promise<void> closed;
    auto done = closed.get_future();
    asio::post(listener_->executor(), [listener = listener_, &closed] {
      listener->Close();
      closed.set_value();
    });
    done.wait();
  }

  void RunIo(asio::io_context& io) {
    for (;;) {
      try {
        io.run();
        break;
      } catch (...) {
        // Handlers catch their own errors; should one escape anyway, keep serving.
      }
    }
    std::lock_guard lock(threads_mutex_);
    --running_threads_;
    threads_done_.notify_all();
  }

  const HttpServerOptions options_;
  std::shared_ptr<Core> core_;
  std::shared_ptr<Listener> listener_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
  std::mutex threads_mutex_;
  std::condition_variable threads_done_;
  std::size_t running_threads_ = 0;
  uint16_t port_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::unique_ptr<HttpServer> MakeHttpServer(HttpServerOptions options) {
  return std::make_unique<AsioHttpServer>(std::move(options));
}

}  // namespace gangplank::net
