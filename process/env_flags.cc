#include "process/env_flags.h"

#include <cctype>
#include <utility>

namespace gangplank::process {

EnvFlags::EnvFlags(CLI::App& app, std::string env_prefix) : app_(app), env_prefix_(std::move(env_prefix)) {}

CLI::Option* EnvFlags::Switch(const std::string& name, bool& target, const std::string& help,
                              std::string_view negation) {
  std::string names = "--" + name;
  if (!negation.empty()) names += ",!--" + std::string(negation);
  return app_.add_flag(names, target, help)->envname(EnvName(name))->capture_default_str();
}

std::string EnvFlags::EnvName(std::string_view flag) const {
  std::string env = env_prefix_;
  for (char c : flag) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

}  // namespace gangplank::process
