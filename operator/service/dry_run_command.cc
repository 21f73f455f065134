#include "operator/service/dry_run_command.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include "net/http_client.h"

namespace gangplank::op {
namespace {

std::optional<std::string> ReadAll(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(file);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A token file ends with a newline more often than not; the header must not.
std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

CLI::App* AddDryRunCommand(CLI::App& app, DryRunCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "dry-run",
      "Ask a running operator where and when a gang would land, changing nothing. The file holds\n"
      "{\"pods\": [Pod, ...], \"minMembers\": n} (Pods as kubectl --dry-run=client -o json prints them). The\n"
      "operator answers on its TLS port to a bearer token the API server accepts, for namespaces where that\n"
      "user may create pods, e.g.:\n"
      "  kubectl -n gangplank-system port-forward svc/gangplank-operator 9444:8443 &\n"
      "  gangplank-operator dry-run -f gang.json --token \"$(kubectl create token default)\" \\\n"
      "    --ca-file ca.crt --server-name gangplank-operator.gangplank-system.svc");
  cmd->add_option("--url", o.url, "Base URL of the operator's TLS port (or its plain port with --dry-run-auth=none)")
      ->capture_default_str();
  cmd->add_option("-f,--filename", o.file, "JSON file, or - for standard input")->capture_default_str();
  cmd->add_option("--token", o.token, "Bearer token of the caller")->envname("GANGPLANK_DRY_RUN_TOKEN");
  cmd->add_option("--token-file", o.token_file, "File holding the bearer token (wins over --token)");
  cmd->add_option("--ca-file", o.ca_file, "PEM CA of the operator's certificate (empty: the system's roots)");
  cmd->add_option("--server-name", o.server_name,
                  "Verify the operator's certificate against this name (when the URL is a port-forward)");
  return cmd;
}

int RunDryRunCommand(const DryRunCommandOptions& o) {
  const std::optional<std::string> body = ReadAll(o.file);
  if (!body) {
    std::cerr << "dry-run: cannot read " << o.file << "\n";
    return 2;
  }
  std::string token = o.token;
  if (!o.token_file.empty()) {
    const std::optional<std::string> from_file = ReadAll(o.token_file);
    if (!from_file) {
      std::cerr << "dry-run: cannot read the token file " << o.token_file << "\n";
      return 2;
    }
    token = *from_file;
  }
  token = Trimmed(token);
  net::HttpClientOptions client{o.url, {}};
  client.tls.ca_file = o.ca_file;
  client.tls.server_name = o.server_name;
  auto http = net::MakeHttpClient(client);
  net::HttpClientRequest request;
  request.method = "POST";
  request.target = "/dry-run";
  request.headers = {{"Content-Type", "application/json"}};
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  request.body = *body;
  const net::HttpClientResponse response = http->Send(request);
  std::cout << response.body << (response.body.empty() || response.body.back() != '\n' ? "\n" : "");
  return response.status == 200 ? 0 : 1;
}

}  // namespace gangplank::op
