#include "simulator/what_if/what_if_settings.h"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "simulator/csv_table.h"
#include "simulator/time_replay/replay_flags.h"

namespace gangplank::simulator {
namespace {

// Flags of the time replay that say what is replayed, where it goes or how it is shown: not settings.
bool IsSetting(const std::string& name) {
  static const std::vector<std::string> kNotSettings = {"jobs", "vcs", "out", "max-jobs", "sample-seconds", "progress"};
  return name != "help" && std::find(kNotSettings.begin(), kNotSettings.end(), name) == kNotSettings.end();
}

// A parser of the time replay's flags writing into `options`, deaf to the environment (the baseline has read it
// already; a variant changes only the setting it names).
void AddFlagsWithoutEnvironment(CLI::App& app, TimeReplayOptions& options) {
  AddReplayFlags(app, options);
  for (CLI::Option* option : app.get_options()) option->envname("");
}

[[noreturn]] void Refuse(const std::string& assignment, const std::string& why) {
  throw InputError("--set " + assignment + ": " + why + ". Valid keys (the time replay's flags without --): " +
                   WhatIfSettingKeyList());
}

}  // namespace

std::vector<std::string> WhatIfSettingKeys() {
  TimeReplayOptions scratch;
  CLI::App app;
  AddReplayFlags(app, scratch);
  std::vector<std::string> keys;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) {
      if (IsSetting(name)) keys.push_back(name);
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string WhatIfSettingKeyList() {
  std::string list;
  for (const std::string& key : WhatIfSettingKeys()) list += (list.empty() ? "" : ", ") + key;
  return list;
}

WhatIfVariant ApplySetting(const TimeReplayOptions& baseline, const std::string& assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) Refuse(assignment, "expected key=value");
  const std::string key = assignment.substr(0, equals);
  const std::vector<std::string> keys = WhatIfSettingKeys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) Refuse(assignment, "unknown key '" + key + "'");
  if (equals + 1 == assignment.size()) Refuse(assignment, "no value for '" + key + "'");

  WhatIfVariant variant{assignment, baseline};
  CLI::App app;
  AddFlagsWithoutEnvironment(app, variant.options);
  try {
    app.parse(std::vector<std::string>{"--" + assignment});  // One argument: CLI11's reversed order is moot.
  } catch (const CLI::ParseError& e) {
    Refuse(assignment, e.what());
  }
  return variant;
}

}  // namespace gangplank::simulator
