// Command-line flags that fall back to environment variables, as every gangplank binary takes its
// settings: --max-body-bytes is also GANGPLANK_EXTENDER_MAX_BODY_BYTES (the binary's prefix, then the flag
// name in upper snake case). A flag given on the command line wins over the environment.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace gangplank::process {

class EnvFlags {
 public:
  // Registers on `app`; `env_prefix` ends in '_', e.g. "GANGPLANK_OPERATOR_".
  EnvFlags(CLI::App& app, std::string env_prefix);

  // --<name> <value> into `target`; --help shows its environment variable and its default.
  template <typename T>
  CLI::Option* Option(const std::string& name, T& target, const std::string& help) {
    return app_.add_option("--" + name, target, help)->envname(EnvName(name))->capture_default_str();
  }
  // --<name> as a switch (--<name>=false also works); with `negation`, --<negation> sets it false.
  CLI::Option* Switch(const std::string& name, bool& target, const std::string& help, std::string_view negation = {});

  // The environment variable of --<flag>, for options registered on the app directly.
  std::string EnvName(std::string_view flag) const;

 private:
  CLI::App& app_;
  std::string env_prefix_;
};

}  // namespace gangplank::process
