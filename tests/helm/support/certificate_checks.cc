#include "tests/helm/support/certificate_checks.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "base/time_format.h"
#include "tests/support/subprocess.h"

namespace gangplank::helm_testing {
namespace {

using gangplank::testing::ProcessResult;
using gangplank::testing::run_process;

ProcessResult openssl(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), {"/usr/bin/env", "openssl"});
  return run_process(args, stdin_text);
}

// A PEM text as a file for as long as it is in scope (openssl takes a CA only from a file).
class TempPem {
 public:
  explicit TempPem(const std::string& pem) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gangplank-pem-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".pem");
    std::ofstream(path_) << pem;
  }
  ~TempPem() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempPem(const TempPem&) = delete;
  TempPem& operator=(const TempPem&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::string openssl_unavailable_reason() {
  const ProcessResult r = openssl({"version"});
  return r.exit_code == 0 ? "" : "openssl is not installed: " + r.err;
}

bool chains_to(const std::string& cert_pem, const std::string& ca_pem, const std::string& hostname) {
  if (cert_pem.empty() || ca_pem.empty()) return false;
  const TempPem ca(ca_pem);
  std::vector<std::string> args = {"verify", "-CAfile", ca.path()};
  if (!hostname.empty()) args.insert(args.end(), {"-verify_hostname", hostname});
  return openssl(args, cert_pem).exit_code == 0;  // the certificate from stdin
}

bool is_ca(const std::string& cert_pem) {
  const ProcessResult r = openssl({"x509", "-noout", "-ext", "basicConstraints"}, cert_pem);
  return r.exit_code == 0 && r.out.find("CA:TRUE") != std::string::npos;
}

bool key_matches(const std::string& cert_pem, const std::string& key_pem) {
  const ProcessResult cert = openssl({"x509", "-noout", "-pubkey"}, cert_pem);
  const ProcessResult key = openssl({"pkey", "-pubout"}, key_pem);
  return cert.exit_code == 0 && key.exit_code == 0 && !cert.out.empty() && cert.out == key.out;
}

std::optional<std::time_t> not_after(const std::string& cert_pem) {
  const ProcessResult r = openssl({"x509", "-noout", "-enddate", "-dateopt", "iso_8601"}, cert_pem);  // notAfter=2027-11-26 20:12:30Z
  std::smatch m;
  if (r.exit_code != 0 || !std::regex_search(r.out, m, std::regex("notAfter=(\\S+) (\\S+)"))) return std::nullopt;
  return parse_utc_time(m[1].str() + "T" + m[2].str());
}

std::optional<std::time_t> parse_utc_time(const std::string& text) {
  // The shape the chart writes, exactly; then base's reading of it.
  if (!std::regex_match(text, std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"))) return std::nullopt;
  const auto at = base::ParseTime(text);
  if (!at) return std::nullopt;
  return std::chrono::system_clock::to_time_t(*at);
}

std::string sha256_hex(const std::string& text) {
  const ProcessResult r = openssl({"dgst", "-sha256", "-r"}, text);  // "<hex> *stdin"
  return r.exit_code == 0 ? r.out.substr(0, r.out.find(' ')) : "";
}

}  // namespace gangplank::helm_testing
