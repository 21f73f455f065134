// The settings a what-if may change (`gangplank-sim what-if --set key=value`): every flag of the time replay
// that is a knob of the cluster or of gangplank's admission (reclaim, reservations, fair share, checkpoints,
// cluster size, ...), named as the flag without its dashes. Inputs, outputs and display flags (--jobs, --vcs,
// --max-jobs, --sample-seconds, --out, --progress) are not settings: they are the same for every run.
// A value is read and checked exactly as the time replay's flag reads it (replay_flags.h).
#pragma once

#include <string>
#include <vector>

#include "simulator/time_replay/options.h"

namespace gangplank::simulator {

struct WhatIfVariant {
  std::string label;            // "key=value", as the user wrote it.
  TimeReplayOptions options;    // The baseline with that one setting changed.
};

// The keys --set accepts, sorted.
std::vector<std::string> WhatIfSettingKeys();
// The same, comma-separated, for messages and --help.
std::string WhatIfSettingKeyList();

// The baseline with the setting `assignment` ("key=value") applied. Throws InputError naming the assignment
// and what is wrong (no '=', an unknown key, a value the flag refuses), with the list of valid keys.
WhatIfVariant ApplySetting(const TimeReplayOptions& baseline, const std::string& assignment);

}  // namespace gangplank::simulator
