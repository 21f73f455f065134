// The HTTP client's TLS options against a real HTTPS listener on loopback (the project's net server),
// with a throwaway CA and server certificate generated here with OpenSSL.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <filesystem>
#include <fstream>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/http_client.h"
#include "net/http_server.h"

namespace gangplank::net {
namespace {

template <class T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;

KeyPtr make_key() { return KeyPtr(EVP_EC_gen("prime256v1")); }

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  ASSERT_NE(ext, nullptr);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

CertPtr make_cert(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, const char* san, bool ca) {
  CertPtr cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), ca ? 1 : 2);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (ca) {
    add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_ext(cert.get(), signer, NID_subject_alt_name, san);
    add_ext(cert.get(), signer, NID_ext_key_usage, "serverAuth");
  }
  X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256());
  return cert;
}

std::string pem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

std::string pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

class HttpsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gangplank-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    KeyPtr ca_key = make_key();
    CertPtr ca = make_cert(ca_key.get(), "gangplank-test-ca", nullptr, nullptr, nullptr, true);
    KeyPtr server_key = make_key();
    // Valid only for the in-cluster service name, NOT for 127.0.0.1.
    CertPtr server = make_cert(server_key.get(), "apiserver", ca.get(), ca_key.get(), "DNS:kubernetes.default", false);
    ca_pem_ = pem(ca.get());
    std::ofstream(dir_ / "server.crt") << pem(server.get());
    std::ofstream(dir_ / "server.key") << pem(server_key.get());
    std::ofstream(dir_ / "ca.crt") << ca_pem_;
    HttpServerOptions options;
    options.tls = HttpTlsFiles{(dir_ / "server.crt").string(), (dir_ / "server.key").string()};
    server_ = MakeHttpServer(options);
    server_->Start(MakeSyncHandler([](const HttpRequest& req) { return HttpResponse::text(200, "hello " + req.path); }));
  }
  void TearDown() override {
    server_->Stop();
    std::filesystem::remove_all(dir_);
  }

  HttpClientResponse get(const ClientTlsOptions& tls) {
    auto client = MakeHttpClient({server_->BaseUrl(), tls});
    HttpClientRequest request;
    request.target = "/x";
    request.timeout = std::chrono::seconds(5);
    return client->Send(request);
  }

  std::filesystem::path dir_;
  std::string ca_pem_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpsClientTest, VerifiesTheServerAgainstTheConfiguredCaAndName) {
  ASSERT_EQ(server_->BaseUrl().rfind("https://127.0.0.1:", 0), 0u);
  ClientTlsOptions tls;
  tls.ca_data = ca_pem_;
  // Right CA, but the certificate does not name 127.0.0.1: must be refused.
  EXPECT_THROW(get(tls), TransportError);
  // tls-server-name makes the client verify against the name the certificate carries.
  tls.server_name = "kubernetes.default";
  EXPECT_EQ(get(tls).body, "hello /x");
  // The same with the CA from a file.
  ClientTlsOptions from_file;
  from_file.ca_file = (dir_ / "ca.crt").string();
  from_file.server_name = "kubernetes.default";
  EXPECT_EQ(get(from_file).status, 200);
}

TEST_F(HttpsClientTest, UnknownCaIsRefusedUnlessVerificationIsSkipped) {
  ClientTlsOptions tls;
  tls.server_name = "kubernetes.default";
  EXPECT_THROW(get(tls), TransportError);  // system trust store does not know our CA
  ClientTlsOptions insecure;
  insecure.insecure_skip_verify = true;
  EXPECT_EQ(get(insecure).status, 200);
}

TEST(HttpClientOptionsTest, BadUrlsAndTlsMaterialAreClearErrors) {
  EXPECT_THROW(MakeHttpClient({"ftp://x:1", {}}), std::invalid_argument);
  EXPECT_THROW(MakeHttpClient({"not a url", {}}), std::invalid_argument);
  ClientTlsOptions bad_ca;
  bad_ca.ca_data = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  try {
    MakeHttpClient({"https://127.0.0.1:1", bad_ca});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("certificate-authority"), std::string::npos) << e.what();
  }
  ClientTlsOptions missing;
  missing.ca_file = "/nonexistent/ca.crt";
  EXPECT_THROW(MakeHttpClient({"https://127.0.0.1:1", missing}), std::invalid_argument);
  ClientTlsOptions cert_without_key;
  cert_without_key.client_cert_data = "x";
  EXPECT_THROW(MakeHttpClient({"https://127.0.0.1:1", cert_without_key}), std::invalid_argument);
}

TEST(HttpClientStreamTest, StreamsChunksAndHonoursIdleTimeoutAndCancel) {
  auto server = MakeHttpServer({});
  std::mutex writers_mutex;
  std::vector<std::thread> writers;  // joined before the server goes away
  std::atomic<bool> finish{false};
  server->Start([&](const HttpRequest& req, HttpResponder responder) {
    auto stream = responder.StartStream(200, {{"Content-Type", "application/json"}});
    std::lock_guard lock(writers_mutex);
    writers.emplace_back([stream, path = req.path, &finish] {
      stream->Write("{\"a\":1}\n{\"b\"");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      stream->Write(":2}\n");
      // "/stall": go silent and keep the connection open until the test ends.
      while (path != "/end" && !finish) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stream->Close();
    });
  });
  auto client = MakeHttpClient({server->BaseUrl(), {}});
  HttpClientRequest request;
  request.target = "/end";
  std::string received;
  CancelToken cancel;
  auto response = client->stream(request, std::chrono::seconds(5), [&](std::string_view b) { received += b; }, cancel);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(received, "{\"a\":1}\n{\"b\":2}\n");

  request.target = "/stall";
  received.clear();
  auto start = std::chrono::steady_clock::now();
  try {
    client->stream(request, std::chrono::milliseconds(500), [&](std::string_view b) { received += b; }, cancel);
    FAIL() << "idle stream must time out";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kTimeout) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(received, "{\"a\":1}\n{\"b\":2}\n");

  CancelToken cancel2;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel2.cancel();
  });
  start = std::chrono::steady_clock::now();
  try {
    client->stream(request, std::chrono::seconds(30), [](std::string_view) {}, cancel2);
    FAIL() << "cancelled stream must throw";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::kCancelled) << e.what();
  }
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  finish = true;
  {
    std::lock_guard lock(writers_mutex);
    for (auto& t : writers) t.join();
  }
  server->Stop();
}

}  // namespace
}  // namespace gangplank::net
