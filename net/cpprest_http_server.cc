// HttpServer on cpprestsdk's http_listener. Handlers never block a listener thread: the request body is
// extracted with a continuation, and streaming bodies are fed through a producer/consumer buffer that
// the listener drains asynchronously.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <condition_variable>
#include <cpprest/http_listener.h>
#include <cpprest/producerconsumerstream.h>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>

#include "net/http_server.h"

namespace gangplank::net {
namespace {

using web::http::http_request;
using web::http::http_response;
using web::http::experimental::listener::http_listener;
using web::http::experimental::listener::http_listener_config;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_as_space && c == '+' ? ' ' : c);
  }
  return out;
}

// Asks the kernel for a free port on `host`. cpprest's listener cannot report the port it bound, so
// an ephemeral port is chosen first and then handed to the listener (retried on a lost race).
uint16_t pick_free_port(const std::string& host) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("http server: cannot create a socket to pick a port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (::inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(), &addr.sin_addr) != 1) {
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
  }
  socklen_t len = sizeof(addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("http server: cannot bind an ephemeral port on " + host);
  return ntohs(addr.sin_port);
}

std::string read_file_or_throw(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("http server: cannot read TLS ") + what + " file '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Consumes the response: its body string becomes the stream cpprest sends from, without a copy.
http_response to_cpprest(HttpResponse&& response) {
  http_response out(static_cast<web::http::status_code>(response.status));
  out.set_body(std::move(response.body));
  bool has_type = false;
  for (const auto& [name, value] : response.headers) {
    if (lower(name) == "content-type") has_type = true;
    out.headers()[name] = value;
  }
  if (!has_type) out.headers().remove(web::http::header_names::content_type);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Streams

class CpprestResponseStream final : public HttpResponseStream {
 public:
  explicit CpprestResponseStream(std::size_t max_buffered) : max_buffered_(max_buffered) {}

  concurrency::streams::istream body() { return buffer_.create_istream(); }

  bool write(std::string_view bytes) override {
    std::unique_lock lock(mutex_);
    if (closed_) return false;
    if (buffer_.in_avail() > max_buffered_) {
      lock.unlock();
      finish(/*client_gone=*/true);
      return false;
    }
    try {
      buffer_.putn_nocopy(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).wait();
      // Without sync the listener's pending read waits for a full internal chunk before sending anything.
      buffer_.sync().wait();
      return true;
    } catch (...) {
      // The listener dropped its end of the buffer: the connection is gone.
    }
    lock.unlock();
    finish(/*client_gone=*/true);
    return false;
  }

  void close() override { finish(false); }

  std::size_t buffered_bytes() const override {
    std::lock_guard lock(mutex_);
    return closed_ ? 0 : buffer_.in_avail();
  }

  bool closed() const override {
    std::lock_guard lock(mutex_);
    return closed_;
  }

  void on_closed(std::function<void()> callback) override {
    {
      std::lock_guard lock(mutex_);
      if (!closed_) {
        callbacks_.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

  // The listener finished sending (or failed to): the client is gone or the body ended.
  void transport_done() { finish(true); }

 private:
  void finish(bool client_gone) {
    std::vector<std::function<void()>> callbacks;
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      closed_ = true;
      callbacks.swap(callbacks_);
    }
    // Outside the lock: closing may run listener continuations, and writes are already refused.
    try {
      buffer_.close(std::ios_base::out).wait();
      if (client_gone) buffer_.close(std::ios_base::in).wait();
    } catch (...) {
      // The buffer may already be closed by the listener; nothing more to release.
    }
    for (auto& callback : callbacks) {
      try {
        callback();
      } catch (...) {
        // A callback must not take the server down.
      }
    }
  }

  const std::size_t max_buffered_;
  mutable std::mutex mutex_;
  concurrency::streams::producer_consumer_buffer<uint8_t> buffer_;
  bool closed_ = false;
  std::vector<std::function<void()>> callbacks_;
};

// Tracks open streams so stop() can end them, and in-flight requests so stop() can wait for them.
struct ServerState {
  std::mutex mutex;
  std::condition_variable idle;
  std::size_t in_flight = 0;
  bool stopping = false;
  std::set<std::shared_ptr<CpprestResponseStream>> streams;
  std::size_t max_stream_buffer = 0;
};

class HttpResponder::Impl {
 public:
  Impl(http_request request, std::shared_ptr<ServerState> state)
      : request_(std::move(request)), state_(std::move(state)) {}

  ~Impl() {
    if (!answered_.exchange(true)) {
      send(HttpResponse::text(500, "handler did not answer the request\n"));
    }
    std::lock_guard lock(state_->mutex);
    --state_->in_flight;
    state_->idle.notify_all();
  }

  void respond(HttpResponse response) {
    if (answered_.exchange(true)) return;
    send(std::move(response));
  }

  std::shared_ptr<HttpResponseStream> start_stream(int status, std::vector<std::pair<std::string, std::string>> headers) {
    auto stream = std::make_shared<CpprestResponseStream>(state_->max_stream_buffer);
    if (answered_.exchange(true)) {
      stream->close();
      return stream;
    }
    {
      std::lock_guard lock(state_->mutex);
      if (state_->stopping) {
        stream->close();
      } else {
        state_->streams.insert(stream);
      }
    }
    http_response out(static_cast<web::http::status_code>(status));
    out.set_body(stream->body());
    out.headers().remove(web::http::header_names::content_type);
    for (const auto& [name, value] : headers) out.headers()[name] = value;
    std::weak_ptr<ServerState> weak_state = state_;
    std::weak_ptr<CpprestResponseStream> weak_stream = stream;
    stream->on_closed([weak_state, weak_stream] {
      auto state = weak_state.lock();
      auto s = weak_stream.lock();
      if (!state || !s) return;
      std::lock_guard lock(state->mutex);
      state->streams.erase(s);
    });
    request_.reply(out).then([weak_stream](pplx::task<void> done) {
      try {
        done.get();
      } catch (...) {
        // Client gone or connection error: reported through transport_done below.
      }
      if (auto s = weak_stream.lock()) s->transport_done();
    });
    return stream;
  }

  bool answered() const { return answered_.load(); }

 private:
  void send(HttpResponse&& response) {
    try {
      request_.reply(to_cpprest(std::move(response))).then([](pplx::task<void> done) {
        try {
          done.get();
        } catch (...) {
          // The client went away before the reply was written; nothing to do.
        }
      });
    } catch (...) {
      // Connection already closed.
    }
  }

  http_request request_;
  std::shared_ptr<ServerState> state_;
  std::atomic<bool> answered_{false};
};

HttpResponder::HttpResponder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpResponder::HttpResponder(HttpResponder&&) noexcept = default;
HttpResponder& HttpResponder::operator=(HttpResponder&&) noexcept = default;
HttpResponder::~HttpResponder() = default;
// A moved-from responder counts as answered: its request now belongs to the responder it moved to.
void HttpResponder::respond(HttpResponse response) {
  if (impl_) impl_->respond(std::move(response));
}
std::shared_ptr<HttpResponseStream> HttpResponder::start_stream(int status,
                                                                std::vector<std::pair<std::string, std::string>> headers) {
  if (!impl_) throw std::logic_error("HttpResponder::start_stream on a moved-from responder");
  return impl_->start_stream(status, std::move(headers));
}
bool HttpResponder::answered() const { return !impl_ || impl_->answered(); }

// ---------------------------------------------------------------------------------------------------
// Request / response helpers

std::optional<std::string> HttpRequest::header(std::string_view name) const {
  auto it = headers.find(lower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, std::string>> HttpRequest::query_params() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string_view part(query.data() + start, end - start);
    if (!part.empty()) {
      const auto eq = part.find('=');
      if (eq == std::string_view::npos) {
        out.emplace_back(percent_decode(part, true), "");
      } else {
        out.emplace_back(percent_decode(part.substr(0, eq), true), percent_decode(part.substr(eq + 1), true));
      }
    }
    start = end + 1;
  }
  return out;
}

std::optional<std::string> HttpRequest::query_param(std::string_view name) const {
  for (auto& [key, value] : query_params()) {
    if (key == name) return value;
  }
  return std::nullopt;
}

HttpResponse& HttpResponse::set_header(std::string name, std::string value) {
  for (auto& [n, v] : headers) {
    if (lower(n) == lower(name)) {
      v = std::move(value);
      return *this;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

HttpResponse HttpResponse::text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
  return r;
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Content-Type", "application/json");
  return r;
}

HttpHandler make_sync_handler(HttpSyncHandler handler) {
  return [handler = std::move(handler)](const HttpRequest& request, HttpResponder responder) {
    responder.respond(handler(request));
  };
}

// ---------------------------------------------------------------------------------------------------
// Server

namespace {

class CpprestHttpServer final : public HttpServer {
 public:
  explicit CpprestHttpServer(HttpServerOptions options) : options_(std::move(options)) {}
  ~CpprestHttpServer() override { stop(); }

  void start(HttpHandler handler) override {
    if (listener_) throw std::runtime_error("http server: already started");
    handler_ = std::make_shared<HttpHandler>(std::move(handler));
    state_ = std::make_shared<ServerState>();
    state_->max_stream_buffer = options_.max_stream_buffer_bytes;
    const std::string scheme = options_.tls ? "https" : "http";
    std::string last_error;
    for (int attempt = 0; attempt < 8; ++attempt) {
      port_ = options_.port != 0 ? options_.port : pick_free_port(options_.host);
      auto listener = std::make_unique<http_listener>(
          web::uri(scheme + "://" + options_.host + ":" + std::to_string(port_)), make_config());
      listener->support([handler = handler_, state = state_, limit = options_.max_request_body_bytes](http_request request) {
        dispatch(std::move(request), handler, state, limit);
      });
      try {
        listener->open().wait();
        listener_ = std::move(listener);
        return;
      } catch (const std::exception& e) {
        last_error = e.what();
        if (options_.port != 0) break;
      }
    }
    throw std::runtime_error("http server: cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port) + ": " + last_error);
  }

  uint16_t port() const override { return port_; }

  std::string base_url() const override {
    return std::string(options_.tls ? "https" : "http") + "://" + options_.host + ":" + std::to_string(port_);
  }

  void stop() override {
    if (!listener_) return;
    std::set<std::shared_ptr<CpprestResponseStream>> streams;
    {
      std::lock_guard lock(state_->mutex);
      state_->stopping = true;
      streams = state_->streams;
    }
    for (auto& s : streams) s->close();
    try {
      listener_->close().wait();
    } catch (...) {
      // Closing a listener whose connections already failed can throw; it is closed either way.
    }
    {
      std::unique_lock lock(state_->mutex);
      state_->idle.wait_for(lock, std::chrono::seconds(5), [&] { return state_->in_flight == 0; });
    }
    listener_.reset();
  }

 private:
  http_listener_config make_config() const {
    http_listener_config config;
    if (options_.tls) {
      // Read now so a missing file is reported by start(), not by the first handshake.
      const std::string cert = read_file_or_throw(options_.tls->cert_file, "certificate");
      const std::string key = read_file_or_throw(options_.tls->key_file, "key");
      config.set_ssl_context_callback([cert, key](boost::asio::ssl::context& ctx) {
        ctx.set_options(boost::asio::ssl::context::default_workarounds | boost::asio::ssl::context::no_sslv2 |
                        boost::asio::ssl::context::no_sslv3 | boost::asio::ssl::context::no_tlsv1 |
                        boost::asio::ssl::context::no_tlsv1_1);
        ctx.use_certificate_chain(boost::asio::buffer(cert.data(), cert.size()));
        ctx.use_private_key(boost::asio::buffer(key.data(), key.size()), boost::asio::ssl::context::pem);
      });
    }
    return config;
  }

  static void dispatch(http_request request, const std::shared_ptr<HttpHandler>& handler,
                       const std::shared_ptr<ServerState>& state, std::size_t limit) {
    {
      std::lock_guard lock(state->mutex);
      ++state->in_flight;
    }
    auto impl = std::make_shared<HttpResponder::Impl>(request, state);
    HttpRequest req;
    req.method = request.method();
    const auto& uri = request.request_uri();
    req.path = percent_decode(uri.path(), false);
    req.query = uri.query();
    for (const auto& [name, value] : request.headers()) req.headers[lower(name)] = value;
    const auto declared = request.headers().content_length();
    if (declared > limit) {
      impl->respond(HttpResponse::text(413, "request body of " + std::to_string(declared) +
                                                " bytes exceeds the limit of " + std::to_string(limit) + "\n"));
      return;
    }
    // Once the whole body has arrived it is read from cpprest's buffer straight into req.body: one
    // copy, no intermediate vector (bodies are up to tens of MB on the extender's hot path).
    request.content_ready().then([impl, handler, req = std::move(req), limit](pplx::task<http_request> ready) mutable {
      try {
        http_request full = ready.get();
        auto buffer = full.body().streambuf();
        const std::size_t size = buffer.in_avail();
        if (size > limit) {
          impl->respond(HttpResponse::text(413, "request body exceeds the limit of " + std::to_string(limit) + "\n"));
          return;
        }
        req.body.resize(size);
        if (size > 0 && buffer.getn(reinterpret_cast<uint8_t*>(req.body.data()), size).get() != size) {
          throw std::runtime_error("body shorter than announced");
        }
      } catch (const std::exception& e) {
        impl->respond(HttpResponse::text(400, std::string("cannot read request body: ") + e.what() + "\n"));
        return;
      }
      try {
        (*handler)(req, HttpResponder(impl));
      } catch (const std::exception& e) {
        impl->respond(HttpResponse::text(500, std::string("internal error: ") + e.what() + "\n"));
      } catch (...) {
        impl->respond(HttpResponse::text(500, "internal error\n"));
      }
    });
  }

  HttpServerOptions options_;
  std::shared_ptr<HttpHandler> handler_;
  std::shared_ptr<ServerState> state_;
  std::unique_ptr<http_listener> listener_;
  uint16_t port_ = 0;
};

}  // namespace

std::unique_ptr<HttpServer> make_http_server(HttpServerOptions options) {
  return std::make_unique<CpprestHttpServer>(std::move(options));
}

}  // namespace gangplank::net
