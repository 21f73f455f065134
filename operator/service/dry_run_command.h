// `gangplank-operator dry-run`: asks a running operator where and when a gang would land, over the
// operator's TLS port with a bearer token (what POST /dry-run requires unless the operator runs with
// --dry-run-auth=none, when it is served on the plain port).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gangplank::op {

struct DryRunCommandOptions {
  std::string url = "https://127.0.0.1:9444";
  std::string file = "-";        // JSON file, or - for standard input.
  std::string token;             // Bearer token (e.g. kubectl create token).
  std::string token_file;        // File holding the token (wins over --token when set).
  std::string ca_file;           // CA of the operator's certificate (empty: the system's roots).
  std::string server_name;       // Name to verify the certificate against (e.g. through a port-forward).
};

// Adds the `dry-run` subcommand to `app`, writing into `options`.
CLI::App* AddDryRunCommand(CLI::App& app, DryRunCommandOptions& options);
// Sends the request and prints the answer; the exit code: 0 answered, 1 refused or failed, 2 bad input.
int RunDryRunCommand(const DryRunCommandOptions& options);

}  // namespace gangplank::op
