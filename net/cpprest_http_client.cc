// HttpClient on cpprestsdk (Boost.Asio underneath). Only this file sees cpprest types.
//
// Why one cpprest http_client per timeout value: cpprest's timeout is a per-client inactivity timer, so
// requests with different timeouts need different clients. Streams get a client of their own so that a
// long watch never holds a pooled connection another request is waiting for.
#include <cpprest/http_client.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "net/http_client.h"

namespace gangplank::net {
namespace {

namespace http = web::http;
namespace client = web::http::client;

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(std::string("cannot read ") + what + " file '" + path + "'");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// TLS material resolved to PEM bytes once, so file errors surface at construction, not mid-request.
struct TlsMaterial {
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
};

TlsMaterial LoadTlsMaterial(const ClientTlsOptions& tls) {
  TlsMaterial m;
  m.ca_pem = !tls.ca_data.empty() ? tls.ca_data
             : !tls.ca_file.empty() ? ReadFile(tls.ca_file, "certificate-authority")
                                    : std::string();
  m.cert_pem = !tls.client_cert_data.empty() ? tls.client_cert_data
               : !tls.client_cert_file.empty() ? ReadFile(tls.client_cert_file, "client-certificate")
                                               : std::string();
  m.key_pem = !tls.client_key_data.empty() ? tls.client_key_data
              : !tls.client_key_file.empty() ? ReadFile(tls.client_key_file, "client-key")
                                             : std::string();
  if (m.cert_pem.empty() != m.key_pem.empty()) {
    throw std::invalid_argument("a client certificate needs a client key and vice versa");
  }
  return m;
}

void ApplyTlsMaterial(const TlsMaterial& m, boost::asio::ssl::context& ctx) {
  if (!m.ca_pem.empty()) {
    // cpprest has loaded the system's roots into the context: a client given a CA (a cluster's) trusts
    // that CA alone, so a certificate a public root signed cannot pass for the API server's.
    SSL_CTX_set_cert_store(ctx.native_handle(), X509_STORE_new());
    ctx.add_certificate_authority(boost::asio::buffer(m.ca_pem));
  }
  if (!m.cert_pem.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(m.cert_pem));
    ctx.use_private_key(boost::asio::buffer(m.key_pem), boost::asio::ssl::context::pem);
  }
}

// Loads the material into a scratch context so that bad PEM is reported with a clear message now.
void ValidateTlsMaterial(const TlsMaterial& m) {
  boost::asio::ssl::context ctx(boost::asio::ssl::context::sslv23);
  try {
    if (!m.ca_pem.empty()) ctx.add_certificate_authority(boost::asio::buffer(m.ca_pem));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("bad certificate-authority PEM: ") + e.what());
  }
  try {
    if (!m.cert_pem.empty()) ctx.use_certificate_chain(boost::asio::buffer(m.cert_pem));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("bad client-certificate PEM: ") + e.what());
  }
  try {
    if (!m.key_pem.empty()) ctx.use_private_key(boost::asio::buffer(m.key_pem), boost::asio::ssl::context::pem);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("bad client-key PEM: ") + e.what());
  }
}

bool IsSuccess(int status) { return status >= 200 && status < 300; }

class CpprestHttpClient final : public HttpClient {
 public:
  explicit CpprestHttpClient(const HttpClientOptions& options) : options_(options) {
    try {
      base_ = web::uri(options.base_url);
    } catch (const std::exception& e) {
      throw std::invalid_argument("bad server URL '" + options.base_url + "': " + e.what());
    }
    if (base_.scheme() != "http" && base_.scheme() != "https") {
      throw std::invalid_argument("server URL '" + options.base_url + "' must start with http:// or https://");
    }
    if (base_.host().empty()) throw std::invalid_argument("server URL '" + options.base_url + "' has no host");
    if (base_.scheme() == "https") {
      tls_ = LoadTlsMaterial(options.tls);
      ValidateTlsMaterial(tls_);
    }
  }

  HttpClientResponse Send(const HttpClientRequest& request) override {
    auto& cli = PooledClient(request.timeout);
    try {
      http::http_response response = cli.request(ToCpprest(request)).get();
      HttpClientResponse out = FromCpprestHeaders(response);
      out.body = response.extract_utf8string(true).get();
      return out;
    } catch (const http::http_exception& e) {
      throw Classify(e, request.timeout, std::chrono::steady_clock::now() - std::chrono::steady_clock::now());
    }
  }

  HttpClientResponse stream(const HttpClientRequest& request, std::chrono::milliseconds idle_timeout,
                      const std::function<void(std::string_view)>& on_bytes, CancelToken& cancel) override {
    client::http_client cli(base_, MakeConfig(idle_timeout));
    pplx::cancellation_token_source source;
    cancel.OnCancel([source] { source.cancel(); });
    struct ClearOnExit {
      CancelToken& token;
      ~ClearOnExit() { token.ClearOnCancel(); }
    } clear{cancel};
    auto last_byte = std::chrono::steady_clock::now();
    std::exception_ptr callback_error;
    try {
      http::http_response response = cli.request(ToCpprest(request), source.get_token()).get();
      HttpClientResponse out = FromCpprestHeaders(response);
      if (!IsSuccess(out.status)) {
        out.body = response.extract_utf8string(true).get();
        return out;
      }
      // The callback's own exceptions (e.g. a decode error) belong to the caller, unchanged.
      try {
        on_bytes(std::string_view());
      } catch (...) {
        callback_error = std::current_exception();
        source.cancel();
      }
      auto buf = response.body().streambuf();
      std::string chunk;
      chunk.resize(64 * 1024);
      while (!callback_error) {
        if (cancel.cancelled()) throw TransportError(TransportError::Kind::kCancelled, "stream cancelled");
        // Block for one byte (the buffer only hands out partial reads that way), then drain what is there.
        auto first = buf.bumpc().get();
        if (first == std::char_traits<char>::eof()) break;
        last_byte = std::chrono::steady_clock::now();
        chunk[0] = static_cast<char>(first);
        size_t n = 1;
        size_t avail = buf.in_avail();
        if (avail > 0) {
          n += buf.getn(reinterpret_cast<uint8_t*>(chunk.data() + 1), std::min(avail, chunk.size() - 1)).get();
        }
        try {
          on_bytes(std::string_view(chunk.data(), n));
        } catch (...) {
          callback_error = std::current_exception();
          source.cancel();
          break;
        }
      }
      if (!callback_error) return out;
    } catch (const TransportError&) {
      throw;
    } catch (const pplx::task_canceled&) {
      throw TransportError(TransportError::Kind::kCancelled, "stream cancelled");
    } catch (const http::http_exception& e) {
      if (cancel.cancelled()) throw TransportError(TransportError::Kind::kCancelled, "stream cancelled");
      throw Classify(e, idle_timeout, std::chrono::steady_clock::now() - last_byte);
    } catch (const std::exception& e) {
      if (cancel.cancelled()) throw TransportError(TransportError::Kind::kCancelled, "stream cancelled");
      throw TransportError(TransportError::Kind::kProtocol, std::string("stream failed: ") + e.what());
    }
    std::rethrow_exception(callback_error);
  }

 private:
  client::http_client_config MakeConfig(std::chrono::milliseconds timeout) const {
    client::http_client_config config;
    config.set_timeout(timeout);
    if (base_.scheme() == "https") {
      config.set_validate_certificates(!options_.tls.insecure_skip_verify);
      TlsMaterial material = tls_;
      config.set_ssl_context_callback([material](boost::asio::ssl::context& ctx) {
        // cpprest calls this on its own thread; an exception here must not escape into asio.
        try {
          ApplyTlsMaterial(material, ctx);
        } catch (...) {
        }
      });
    }
    return config;
  }

  client::http_client& PooledClient(std::chrono::milliseconds timeout) {
    std::lock_guard lock(mutex_);
    auto it = clients_.find(timeout.count());
    if (it == clients_.end()) {
      it = clients_.emplace(timeout.count(), std::make_unique<client::http_client>(base_, MakeConfig(timeout))).first;
    }
    return *it->second;
  }

  http::http_request ToCpprest(const HttpClientRequest& request) const {
    http::http_request out(request.method);
    try {
      out.set_request_uri(web::uri(request.target));
    } catch (const std::exception& e) {
      throw std::invalid_argument("bad request target '" + request.target + "': " + e.what());
    }
    std::string content_type = "application/json";
    for (const auto& [name, value] : request.headers) {
      if (iequals(name, "Content-Type")) {
        content_type = value;
      } else {
        out.headers().add(name, value);
      }
    }
    // The certificate is checked against the Host header's name, so tls-server-name travels as Host.
    if (!options_.tls.server_name.empty()) out.headers()["Host"] = options_.tls.server_name;
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
      out.set_body(request.body, content_type);
    }
    return out;
  }

  static HttpClientResponse FromCpprestHeaders(const http::http_response& response) {
    HttpClientResponse out;
    out.status = response.status_code();
    for (const auto& [name, value] : response.headers()) out.headers.emplace_back(name, value);
    return out;
  }

  static TransportError Classify(const http::http_exception& e, std::chrono::milliseconds timeout,
                                 std::chrono::steady_clock::duration since_last_byte) {
    std::string what = e.what();
    if (e.error_code() == std::errc::timed_out || since_last_byte >= timeout ||
        what.find("timed out") != std::string::npos) {
      return TransportError(TransportError::Kind::kTimeout, "HTTP timeout: " + what);
    }
    if (what.find("connect") != std::string::npos || e.error_code() == std::errc::connection_refused) {
      return TransportError(TransportError::Kind::kConnect, "HTTP connect failed: " + what);
    }
    return TransportError(TransportError::Kind::kProtocol, "HTTP failure: " + what);
  }

  HttpClientOptions options_;
  web::uri base_;
  TlsMaterial tls_;
  std::mutex mutex_;
  std::map<long long, std::unique_ptr<client::http_client>> clients_;
};

}  // namespace

std::unique_ptr<HttpClient> MakeHttpClient(const HttpClientOptions& options) {
  return std::make_unique<CpprestHttpClient>(options);
}

}  // namespace gangplank::net
