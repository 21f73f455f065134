// The project's own small HTTP server interface. Components (the scheduler extender's verbs, the
// operator's webhook and dry run, /metrics and /healthz endpoints) serve through this, never through a concrete HTTP library,
// so the stack behind it (Boost.Asio + Boost.Beast, net/asio_http_server.cc) can be replaced inside net/
// alone.
//
// Threading: handlers run on the server's io threads (HttpServerOptions::io_threads) and must return
// quickly. Long work (watch streams, delayed replies) keeps the HttpResponder or the HttpResponseStream
// and finishes later from any thread; no io thread is held while doing so. Requests on one connection
// are answered in the order they arrived: the next is not handled until the current answer is sent.
#pragma once

#include <any>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <utility>
#include <vector>

namespace gangplank::net {

// Header names are stored lower-cased so lookups are case-insensitive as HTTP requires.
using HttpHeaders = std::map<std::string, std::string>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ... as sent
  std::string path;    // percent-decoded path, e.g. "/api/v1/namespaces/default/pods"
  std::string query;   // raw query string without '?', still percent-encoded
  HttpHeaders headers; // lower-cased names
  std::string body;
  // What HttpServerOptions::head_check learnt about the request before its body was read (who sent it),
  // handed on to the handler; empty without a head check.
  std::any context;

  // Value of a header by (any-case) name, or nullopt.
  std::optional<std::string> header(std::string_view name) const;
  // Decoded value ('%XX' and '+' as space) of the first query parameter `name`, or nullopt when
  // absent. `a&b=` gives "" for a.
  std::optional<std::string> QueryParam(std::string_view name) const;
  // All query parameters, decoded, in order of appearance.
  std::vector<std::pair<std::string, std::string>> QueryParams() const;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  HttpResponse& SetHeader(std::string name, std::string value);
  static HttpResponse text(int status, std::string body);
  static HttpResponse json(int status, std::string body);
};

// A response whose body is produced over time and sent with chunked transfer encoding (watches).
// Thread-safe. Bytes are queued and sent asynchronously; a client that stops reading while more than
// HttpServerOptions::max_stream_buffer_bytes are queued is treated as gone (as the apiserver does with
// unresponsive watchers), so a slow reader can never grow the server's memory without bound.
class HttpResponseStream {
 public:
  virtual ~HttpResponseStream() = default;
  // Queues bytes for sending. Returns false (and sends nothing) once the stream is closed or the
  // client is known to be gone.
  virtual bool Write(std::string_view bytes) = 0;
  // Ends the body (final empty chunk). Idempotent.
  virtual void Close() = 0;
  // True once close() was called or the client went away. A client that hangs up is noticed at once
  // (the server keeps a read pending while a response streams) or, failing that, on a later write;
  // long-lived streams should still write something now and then (watches: bookmarks).
  virtual bool closed() const = 0;
  // Bytes queued and not yet taken by the connection (0 when closed or unknown). A producer with a long
  // backlog writes while this is small, so it streams at the client's pace instead of hitting the cap.
  virtual std::size_t BufferedBytes() const { return 0; }
  // Calls `callback` once when the stream ends for any reason (close(), client gone, server stop).
  // Called immediately if that has already happened. The callback must not block.
  virtual void OnClosed(std::function<void()> callback) = 0;
};

// Completes one request exactly once: either respond() or start_stream(). Movable, cheap; may be
// kept and completed later from another thread. A responder destroyed without answering sends 500.
// A moved-from responder reports answered() == true and ignores respond().
class HttpResponder {
 public:
  class Impl;
  explicit HttpResponder(std::shared_ptr<Impl> impl);
  HttpResponder(HttpResponder&&) noexcept;
  HttpResponder& operator=(HttpResponder&&) noexcept;
  HttpResponder(const HttpResponder&) = delete;
  HttpResponder& operator=(const HttpResponder&) = delete;
  ~HttpResponder();

  void Respond(HttpResponse response);
  // Sends status and headers now; the body follows through the returned stream.
  std::shared_ptr<HttpResponseStream> StartStream(int status, std::vector<std::pair<std::string, std::string>> headers);
  bool answered() const;

 private:
  std::shared_ptr<Impl> impl_;
};

// Asynchronous handler: answer through the responder now or later.
using HttpHandler = std::function<void(const HttpRequest&, HttpResponder)>;
// Convenience for handlers that always answer at once.
using HttpSyncHandler = std::function<HttpResponse(const HttpRequest&)>;
HttpHandler MakeSyncHandler(HttpSyncHandler handler);

struct HttpTlsFiles {
  std::string cert_file;  // PEM certificate chain
  std::string key_file;   // PEM private key
  // PEM bundle of the CAs whose client certificates are accepted (mutual TLS). When set, a client that
  // presents no certificate, or one no CA here signed, is refused at the handshake, before any byte of
  // a request is read. Re-read by ReloadTls() like the pair.
  std::string client_ca_file = {};
  // With client_ca_file: the names a client certificate must carry, one of them (a DNS subjectAltName,
  // or its common name when it has none). Empty: any certificate those CAs signed. A CA that signs
  // certificates for several services then admits only the one meant to call.
  std::vector<std::string> client_names = {};
};

// The largest body a request may carry, chosen per request from its method and path (the target
// without its query) once the headers are in; callers whose routes differ widely in size (a verb taking
// megabytes beside health checks taking nothing) set it so a small route cannot be sent a big body.
using HttpBodyLimit = std::function<std::size_t(std::string_view method, std::string_view path)>;

// What a head check (HttpServerOptions::head_check) decided about one request.
struct HttpHeadVerdict {
  // Set: sent instead of reading the request; its body is never read and the connection closes.
  std::optional<HttpResponse> refusal;
  // Otherwise the body is read and the request handled, carrying this as HttpRequest::context.
  std::any context;
};
using HttpHeadCheckDone = std::function<void(HttpHeadVerdict)>;
// Looks at a request whose headers are in and whose body is not (`head.body` is empty). It must return
// quickly, and call `done` exactly once, then or later from any thread (an authentication that asks
// another service). Later calls are ignored, as is a call after the connection closed.
using HttpHeadCheck = std::function<void(const HttpRequest& head, HttpHeadCheckDone done)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;                                  // 0 = pick a free ephemeral port
  std::size_t max_request_body_bytes = 16u << 20;     // larger bodies are answered 413
  HttpBodyLimit body_limit;                           // when set, replaces max_request_body_bytes per request
  std::size_t max_stream_buffer_bytes = 64u << 20;    // per streaming response, see HttpResponseStream
  std::optional<HttpTlsFiles> tls;                    // serve https when set (TLS 1.2 or newer)
  // Threads running all socket I/O and the handlers (0 counts as 1), each serving its own share of the
  // connections (assigned in turn). Two suit the 2-core target: handlers return quickly, and a second
  // thread keeps one slow handler from stalling the connections of the other.
  std::size_t io_threads = 2;
  // A keep-alive connection with no new request for this long is closed (clients reconnect). Also the
  // longest a client may take to read one whole (non-streamed) response.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(90);
  // Slowloris protection: a new connection's TLS handshake and the first byte of its first request
  // must arrive within this; once a request starts, its headers must arrive within this, then the head
  // check (if any) must decide within this, then its body must arrive within this again. Slower clients
  // are disconnected.
  std::chrono::milliseconds request_read_timeout = std::chrono::seconds(30);
  // Open connections at most (0: no limit). One more is accepted and closed at once, without a byte
  // read or written: a client told "no" at once retries or fails fast, where one left in the listen
  // backlog would wait out its own timeout. Bounds the memory that bodies being read can hold
  // (max_connections x body limit) and the descriptors idle connections can pin.
  std::size_t max_connections = 0;
  // At max_connections, first close the connection that has waited longest for a request (in its TLS
  // handshake, before its first request's headers are in, or idle between requests) and serve the
  // newcomer in its place; only when every connection is busy with a request is the newcomer refused.
  // Holding connections open then wins a client nothing: the next caller (a kubelet's probe, the API
  // server's webhook call) takes the slot of the one that waited longest.
  bool shed_waiting_at_limit = false;
  // Checks each request once its headers are in, before a byte of its body is read or a 100 Continue
  // is sent (authentication that must not cost the reading of a body). Unset: every request is read whole.
  HttpHeadCheck head_check;
  // A request body whose JSON nests deeper than this (net/json_nesting.h) is answered 400 before the
  // handler sees it, so no parser builds a level of it. 0: not checked (a listener of non-JSON bodies).
  std::size_t max_json_depth = 0;
};

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  // Starts listening; throws std::runtime_error naming the problem (address in use, bad cert, ...).
  virtual void Start(HttpHandler handler) = 0;
  // Port actually bound (useful when options.port was 0). Valid after start().
  virtual uint16_t port() const = 0;
  // "http://host:port" or "https://host:port". Valid after start().
  virtual std::string BaseUrl() const = 0;
  // Stops accepting, ends all open streams (their on_closed callbacks run), waits up to 5 s for
  // in-flight requests to be answered, then closes every connection and joins the io threads. No
  // handler runs after it returns; answers given later are dropped. Idempotent; also done by the
  // destructor.
  virtual void Stop() = 0;
  // Re-reads options.tls's certificate and key files and, if they load and match, serves them on new
  // connections (open ones keep theirs). Returns "" on success, else what is wrong; the current
  // certificate then stays in use.
  virtual std::string ReloadTls() = 0;
};

// The Boost.Asio/Beast implementation.
std::unique_ptr<HttpServer> MakeHttpServer(HttpServerOptions options);

}  // namespace gangplank::net
