#include "simulator/time_replay/seeded_replays.h"

namespace gangplank::simulator {

std::vector<std::string> StudySetupLines(const TimeReplayOptions& replay, const Workload& workload,
                                         std::vector<std::string> study_lines, const std::vector<std::string>& notes) {
  std::vector<std::string> lines = DescribeReplaySetup(replay, workload);
  for (std::string& line : study_lines) lines.push_back(std::move(line));
  for (const std::string& note : notes) lines.push_back("Note: " + note);
  return lines;
}

}  // namespace gangplank::simulator
