#include "net/asio_connection.h"

#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <any>
#include <array>
#include <atomic>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include "net/asio_exchange.h"
#include "net/asio_response_stream.h"
#include "net/asio_server_core.h"
#include "net/http_text.h"
#include "net/json_nesting.h"

namespace gangplank::net::asio_server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// Kubernetes clients send small headers (a bearer token is the largest); anything bigger is an attack.
constexpr std::uint32_t kHeaderLimit = 64 * 1024;
// After the last response on a connection, unread request bytes are drained this long before the
// socket closes, so the client reads the answer instead of a reset.
constexpr std::chrono::seconds kLingerTime{1};
constexpr std::size_t kReadChunk = 16 * 1024;
const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

bool IsHttpError(const error_code& ec) { return ec.category() == http::make_error_code(http::error::bad_target).category(); }

// Statuses whose responses never carry a body (RFC 9110).
bool BodilessStatus(int status) { return status / 100 == 1 || status == 204 || status == 304; }

// Copies handler headers onto `header`. Framing headers are the server's; "Connection: close" asks for
// the connection to end after this response.
template <class Header>
void CopyHeaders(const std::vector<std::pair<std::string, std::string>>& headers, Header& header, bool& close_after) {
  for (const auto& [name, value] : headers) {
    const std::string key = AsciiLower(name);
    if (key == "content-length" || key == "transfer-encoding") continue;
    if (key == "connection") {
      if (AsciiLower(value).find("close") != std::string::npos) close_after = true;
      continue;
    }
    header.insert(name, value);
  }
}

unsigned ValidStatus(int status) { return status >= 100 && status <= 999 ? static_cast<unsigned>(status) : 500u; }

// An HttpRequest of a parsed Beast request's start line and headers, without its body.
HttpRequest HeadOf(const http::request<http::string_body>& message) {
  HttpRequest request;
  request.method = std::string(message.method_string());
  std::string_view target(message.target().data(), message.target().size());
  // Absolute form ("http://host/path") is allowed by HTTP/1.1; only the path and query matter here.
  if (const auto scheme_end = target.find("://"); scheme_end != std::string_view::npos && target.front() != '/') {
    const auto path_start = target.find('/', scheme_end + 3);
    target = path_start == std::string_view::npos ? std::string_view("/") : target.substr(path_start);
  }
  const auto question = target.find('?');
  request.path = PercentDecode(target.substr(0, question), false);
  if (question != std::string_view::npos) request.query = std::string(target.substr(question + 1));
  for (const auto& field : message) {
    std::string name = AsciiLower(std::string_view(field.name_string().data(), field.name_string().size()));
    const std::string_view value(field.value().data(), field.value().size());
    auto [it, inserted] = request.headers.try_emplace(std::move(name), value);
    if (!inserted) it->second.append(", ").append(value);  // repeated fields combine (RFC 9110 5.3)
  }
  return request;
}

template <class Socket>
class Connection final : public ConnectionBase {
 public:
  Connection(std::shared_ptr<Core> core, tcp::socket socket)
      : core_(std::move(core)), socket_(std::move(socket)), timer_(socket_.get_executor()) {}
  Connection(std::shared_ptr<Core> core, tcp::socket socket, std::shared_ptr<asio::ssl::context> context)
      : core_(std::move(core)), tls_context_(std::move(context)), socket_(std::move(socket), *tls_context_),
        timer_(socket_.get_executor()) {}

  ~Connection() override {
    core_->RemoveConnection(id_);
    if (exchange_open_) core_->ExchangeFinished();
  }

  void Start(uint64_t id) {
    id_ = id;
    if constexpr (kTls) {
      arm(core_->options().request_read_timeout);
      // The first request's first byte is due within the same deadline (WaitForRequest keeps it).
      socket_.async_handshake(asio::ssl::stream_base::server, [self = self()](const error_code& ec) {
        if (self->closed_) return;
        if (ec) return self->CloseNow();
        self->WaitForRequest();
      });
    } else {
      WaitForRequest();
    }
  }

  asio::any_io_executor executor() override { return socket_.get_executor(); }

  void SendResponse(HttpResponse response) override {
    if (closed_ || !exchange_open_ || stream_) return;
    WriteResponse(std::move(response), !keep_alive_ || core_->stopping());
  }

  void SendStreamHead(int status, std::vector<std::pair<std::string, std::string>> headers,
                        std::shared_ptr<AsioResponseStream> stream) override {
    if (closed_ || !exchange_open_ || stream_) {
      stream->ClientGone();
      return;
    }
    stream_ = std::move(stream);
    // HTTP/1.0 has no chunked encoding: the body runs until the connection closes.
    chunked_ = version_ >= 11;
    close_after_ = !keep_alive_ || !chunked_ || core_->stopping();
    http::response<http::empty_body> head;
    head.version(version_);
    head.result(ValidStatus(status));
    CopyHeaders(headers, head, close_after_);
    if (chunked_) head.set(http::field::transfer_encoding, "chunked");
    head.keep_alive(!close_after_);
    std::ostringstream text;
    text << head.base();
    stream_head_ = std::move(text).str();
    // The socket is otherwise not read while a response streams; a pending read notices a client that
    // hangs up at once (and keeps a pipelined request's bytes for later).
    if (!reading_) StartRead();
    FlushStream();
  }

  void FlushStream() override {
    if (closed_ || !stream_ || writing_) return;
    AsioResponseStream::Batch batch = stream_->Take();
    stream_body_ = std::move(batch.bytes);
    chunk_prefix_ = std::move(stream_head_);
    stream_head_.clear();
    chunk_suffix_.clear();
    if (!stream_body_.empty() && chunked_) {
      std::ostringstream size;
      size << std::hex << stream_body_.size() << "\r\n";
      chunk_prefix_ += size.str();
      chunk_suffix_ = "\r\n";
    }
    if (batch.last && chunked_) chunk_suffix_ += "0\r\n\r\n";
    last_in_flight_ = batch.last;
    if (chunk_prefix_.empty() && stream_body_.empty() && chunk_suffix_.empty()) {
      if (batch.last) EndStream();
      return;
    }
    writing_ = true;
    const std::array<asio::const_buffer, 3> buffers{asio::buffer(chunk_prefix_), asio::buffer(stream_body_),
                                                    asio::buffer(chunk_suffix_)};
    asio::async_write(socket_, buffers, [self = self()](const error_code& ec, std::size_t) { self->OnStreamWritten(ec); });
  }

  void ForceClose() override { CloseNow(); }

 private:
  static constexpr bool kTls = !std::is_same_v<Socket, tcp::socket>;

  std::shared_ptr<Connection> self() { return std::static_pointer_cast<Connection>(shared_from_this()); }

  tcp::socket& TcpSocket() {
    if constexpr (kTls) {
      return socket_.next_layer();
    } else {
      return socket_;
    }
  }

  // --- Timer: one deadline at a time, kept lazily ---------------------------------------------------
  // arm() only records the deadline; the connection's one timer wait wakes at least every shortest
  // limit (idle or request read) to check it. Re-arming the timer itself on each step of each request
  // (wait, header, body, write: six timer operations, each an update of the io thread's timerfd) cost
  // more than a small request's handling.

  using Clock = std::chrono::steady_clock;

  void arm(std::chrono::milliseconds limit) {
    deadline_ = Clock::now() + limit;
    if (!timer_waiting_) WaitTimer(std::min<Clock::duration>(limit, ShortestLimit()));
  }

  void disarm() { deadline_ = Clock::time_point::max(); }

  // A deadline sooner than a pending wait could see (the linger before closing): the timer is reset.
  void ArmExactly(std::chrono::milliseconds limit) {
    deadline_ = Clock::now() + limit;
    WaitTimer(limit);
  }

  Clock::duration ShortestLimit() const {
    return std::min(core_->options().idle_timeout, core_->options().request_read_timeout);
  }

  void WaitTimer(Clock::duration wait) {
    timer_waiting_ = true;
    timer_.expires_after(wait);  // Cancels a pending wait: its completion sees a newer generation.
    timer_.async_wait([self = self(), generation = ++timer_generation_](const error_code& ec) {
      if (generation != self->timer_generation_) return;
      self->timer_waiting_ = false;
      if (ec || self->closed_) return;
      self->OnTimer();
    });
  }

  void OnTimer() {
    if (deadline_ == Clock::time_point::max()) return;  // Nothing to watch: the next arm() waits again.
    const auto now = Clock::now();
    if (now >= deadline_) return CloseNow();  // Too slow: pending operations finish with an error.
    WaitTimer(std::min(deadline_ - now, ShortestLimit()));
  }

  // --- Reading -------------------------------------------------------------------------------------

  // Between requests: wait (up to the idle timeout) for the first bytes of the next one. A new
  // connection's first request is due sooner: within the request read timeout of its accept, so a
  // client that connects and sends nothing holds its slot no longer than a slow one.
  void WaitForRequest() {
    if (closed_) return;
    if (core_->stopping()) return GracefulClose();
    core_->SetWaiting(id_, true);
    if (reading_) return arm(core_->options().idle_timeout);  // its completion goes on from here
    if (buffer_.size() > 0) return ReadHeader();
    if (requests_ > 0) {
      arm(core_->options().idle_timeout);
    } else if (deadline_ == Clock::time_point::max()) {
      arm(core_->options().request_read_timeout);
    }
    StartRead();
  }

  void StartRead() {
    reading_ = true;
    auto target = buffer_.prepare(kReadChunk);
    auto done = [self = self()](const error_code& ec, std::size_t n) { self->OnRead(ec, n); };
    if (draining_) {
      TcpSocket().async_read_some(target, std::move(done));
    } else {
      socket_.async_read_some(target, std::move(done));
    }
  }

  // Completion of the raw read used between requests, while streaming, and while draining.
  void OnRead(const error_code& ec, std::size_t n) {
    reading_ = false;
    if (closed_) return;
    if (draining_) {
      buffer_.consume(buffer_.size());
      if (ec) return CloseNow();
      return StartRead();
    }
    if (ec) {
      if (stream_) stream_->ClientGone();
      return CloseNow();
    }
    buffer_.commit(n);
    if (exchange_open_) return;  // a request's answer is still going out; it resumes reading after
    ReadHeader();
  }

  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    // Checked against Content-Length below, then set for the body. (Not boost::none: Beast 1.74 compares
    // the length against the optional, and every length is "greater" than none.)
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    arm(core_->options().request_read_timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = self()](const error_code& ec, std::size_t) { self->OnHeader(ec); });
  }

  void OnHeader(const error_code& ec) {
    if (closed_) return;
    if (ec) return OnReadError(ec);
    ++requests_;
    core_->SetWaiting(id_, false);
    const auto& message = parser_->get();
    version_ = message.version();
    keep_alive_ = message.keep_alive();
    context_.reset();
    if (core_->options().head_check) return CheckHead();
    ReadAfterHead();
  }

  // HttpServerOptions::head_check: asked before a byte of the body is read; its verdict comes back on
  // this connection's strand. The check holds the connection only weakly: one that closed meanwhile (the
  // deadline passed) drops the verdict.
  void CheckHead() {
    arm(core_->options().request_read_timeout);
    auto decided = std::make_shared<std::atomic<bool>>(false);
    HttpHeadCheckDone done = [core = core_, weak = std::weak_ptr<Connection>(self()), decided](HttpHeadVerdict verdict) {
      if (decided->exchange(true)) return;
      auto connection = weak.lock();
      if (!connection) return;
      const auto executor = connection->executor();
      core->Post(executor, [connection = std::move(connection), verdict = std::move(verdict)]() mutable {
        connection->OnHeadChecked(std::move(verdict));
      });
    };
    try {
      core_->options().head_check(HeadOf(parser_->get()), done);
    } catch (const std::exception& e) {
      done(HttpHeadVerdict{HttpResponse::text(500, std::string("internal error: ") + e.what() + "\n"), {}});
    } catch (...) {
      done(HttpHeadVerdict{HttpResponse::text(500, "internal error\n"), {}});
    }
  }

  void OnHeadChecked(HttpHeadVerdict verdict) {
    if (closed_) return;
    if (verdict.refusal) {
      // Answered without reading the body; what the client still sends is drained and dropped.
      disarm();
      keep_alive_ = false;
      return WriteResponse(std::move(*verdict.refusal), true);
    }
    context_ = std::move(verdict.context);
    ReadAfterHead();
  }

  // The body, within its limit (413 before reading when Content-Length says it is too large).
  void ReadAfterHead() {
    const auto& message = parser_->get();
    const std::size_t limit = BodyLimit(message);
    if (const auto length = parser_->content_length(); length && *length > limit) {
      return Reject(413, "request body of " + std::to_string(*length) + " bytes exceeds the limit of " +
                             std::to_string(limit) + " bytes\n");
    }
    parser_->body_limit(limit);
    if (parser_->is_done()) return Dispatch();
    const auto expect = message[http::field::expect];
    if (version_ >= 11 && beast::iequals(expect, "100-continue")) {
      writing_ = true;
      asio::async_write(socket_, asio::buffer(kContinue), [self = self()](const error_code& error, std::size_t) {
        self->writing_ = false;
        if (self->closed_) return;
        if (error) return self->CloseNow();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  // The body limit of this request (HttpServerOptions::body_limit, else max_request_body_bytes); kept
  // for the 413 a body that grows past it gets.
  std::size_t BodyLimit(const http::request<http::string_body>& message) {
    const auto& options = core_->options();
    body_limit_ = options.max_request_body_bytes;
    if (options.body_limit) {
      const std::string_view target(message.target().data(), message.target().size());
      // Decoded as the handler will see it, so an encoded path cannot pick another route's limit.
      const std::string path = PercentDecode(target.substr(0, target.find('?')), false);
      body_limit_ = options.body_limit(std::string_view(message.method_string().data(), message.method_string().size()), path);
    }
    return body_limit_;
  }

  void ReadBody() {
    arm(core_->options().request_read_timeout);
    http::async_read(socket_, buffer_, *parser_, [self = self()](const error_code& ec, std::size_t) {
      if (self->closed_) return;
      if (ec) return self->OnReadError(ec);
      self->Dispatch();
    });
  }

  void OnReadError(const error_code& ec) {
    if (ec == http::error::body_limit) {
      return Reject(413, "request body exceeds the limit of " + std::to_string(body_limit_) + " bytes\n");
    }
    if (ec == http::error::header_limit) {
      return Reject(431, "request header exceeds the limit of " + std::to_string(kHeaderLimit) + " bytes\n");
    }
    // end_of_stream and partial_message: the client hung up; anything else from the parser is bad input.
    if (IsHttpError(ec) && ec != http::error::end_of_stream && ec != http::error::partial_message) {
      version_ = 11;
      return Reject(400, "malformed request: " + ec.message() + "\n");
    }
    CloseNow();
  }

  // --- Handling ------------------------------------------------------------------------------------

  void Dispatch() {
    disarm();
    // A request completed during stop()'s last drain of the io_context is not handled.
    if (core_->gate_closed()) return CloseNow();
    const std::size_t max_depth = core_->options().max_json_depth;
    if (max_depth > 0 && JsonNestsDeeperThan(parser_->get().body(), max_depth)) {
      return Reject(400, "request body nests deeper than " + std::to_string(max_depth) + " levels of JSON\n");
    }
    head_request_ = parser_->get().method() == http::verb::head;
    HttpRequest request = HeadOf(parser_->get());
    request.body = std::move(parser_->get().body());
    request.context = std::move(context_);
    parser_.reset();
    exchange_open_ = true;
    core_->ExchangeStarted();
    auto exchange = std::make_shared<AsioExchange>(core_, shared_from_this());
    try {
      core_->handler()(request, HttpResponder(exchange));
    } catch (const std::exception& e) {
      exchange->Respond(HttpResponse::text(500, std::string("internal error: ") + e.what() + "\n"));
    } catch (...) {
      exchange->Respond(HttpResponse::text(500, "internal error\n"));
    }
  }

  // Answers a request that never reaches the handler, then closes.
  void Reject(int status, std::string message) {
    disarm();
    keep_alive_ = false;
    WriteResponse(HttpResponse::text(status, std::move(message)), true);
  }

  // --- Writing -------------------------------------------------------------------------------------

  void WriteResponse(HttpResponse&& source, bool close_after) {
    response_ = {};
    response_.version(version_);
    response_.result(ValidStatus(source.status));
    CopyHeaders(source.headers, response_, close_after);
    if (!BodilessStatus(source.status)) {
      response_.content_length(source.body.size());
      if (!head_request_) response_.body() = std::move(source.body);
    }
    response_.keep_alive(!close_after);
    writing_ = true;
    arm(core_->options().idle_timeout);  // a client that never reads its answer is dropped
    // Beast gathers header and body into one write.
    http::async_write(socket_, response_, [self = self(), close_after](const error_code& ec, std::size_t) {
      self->writing_ = false;
      if (self->closed_) return;
      if (ec) return self->CloseNow();
      self->disarm();
      self->response_ = {};
      self->FinishExchange(close_after);
    });
  }

  void OnStreamWritten(const error_code& ec) {
    writing_ = false;
    if (closed_) return;
    if (ec) {
      stream_->ClientGone();
      return CloseNow();
    }
    stream_->sent();
    stream_body_.clear();
    if (last_in_flight_) return EndStream();
    FlushStream();  // more may have been queued meanwhile
  }

  void EndStream() {
    stream_.reset();
    FinishExchange(close_after_);
  }

  void FinishExchange(bool close_after) {
    if (exchange_open_) {
      exchange_open_ = false;
      core_->ExchangeFinished();
    }
    head_request_ = false;
    if (close_after) return GracefulClose();
    WaitForRequest();
  }

  // --- Closing -------------------------------------------------------------------------------------

  // Ends our side, then drains what the client still sends for a moment before closing.
  void GracefulClose() {
    if (closed_) return;
    core_->SetWaiting(id_, true);  // nothing more to serve: the first to give way to a newcomer
    draining_ = true;
    error_code ignored;
    TcpSocket().shutdown(tcp::socket::shutdown_send, ignored);
    ArmExactly(std::chrono::duration_cast<std::chrono::milliseconds>(kLingerTime));
    if (!reading_) StartRead();
  }

  void CloseNow() {
    if (closed_) return;
    closed_ = true;
    disarm();
    timer_.cancel();  // Its pending wait holds this connection.
    error_code ignored;
    TcpSocket().shutdown(tcp::socket::shutdown_both, ignored);
    TcpSocket().close(ignored);
    if (stream_) {
      auto stream = std::move(stream_);
      stream->ClientGone();
    }
    if (exchange_open_) {
      exchange_open_ = false;
      core_->ExchangeFinished();
    }
  }

  const std::shared_ptr<Core> core_;
  const std::shared_ptr<asio::ssl::context> tls_context_;  // the one this connection handshook with
  Socket socket_;
  asio::steady_timer timer_;
  uint64_t timer_generation_ = 0;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool timer_waiting_ = false;
  uint64_t id_ = 0;

  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  unsigned version_ = 11;
  std::size_t body_limit_ = 0;
  std::size_t requests_ = 0;  // requests whose headers came in on this connection
  std::any context_;          // the head check's, for the request being read
  bool keep_alive_ = true;
  bool head_request_ = false;

  std::shared_ptr<AsioResponseStream> stream_;
  std::string stream_head_;
  std::string chunk_prefix_;
  std::string stream_body_;
  std::string chunk_suffix_;
  bool chunked_ = true;
  bool close_after_ = false;
  bool last_in_flight_ = false;

  bool exchange_open_ = false;  // a request was handed to the handler and is not fully answered
  bool reading_ = false;        // a raw read (between requests, while streaming, or draining) is pending
  bool writing_ = false;
  bool draining_ = false;
  bool closed_ = false;
};

template <class Socket, class... Args>
void Serve(const std::shared_ptr<Core>& core, Args&&... args) {
  auto connection = std::make_shared<Connection<Socket>>(core, std::forward<Args>(args)...);
  const uint64_t id = core->AddConnection(connection);
  connection->Start(id);
}

}  // namespace

void ServePlain(const std::shared_ptr<Core>& core, tcp::socket socket) {
  Serve<tcp::socket>(core, std::move(socket));
}

void ServeTls(const std::shared_ptr<Core>& core, tcp::socket socket, std::shared_ptr<asio::ssl::context> context) {
  Serve<asio::ssl::stream<tcp::socket>>(core, std::move(socket), std::move(context));
}

}  // namespace gangplank::net::asio_server
