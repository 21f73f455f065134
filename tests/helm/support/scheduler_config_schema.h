// Checks a KubeSchedulerConfiguration against the v1 field list of tests/helm/testdata/
// kube-scheduler-config-v1.fields.json (every key known to its Go type, every value of that type, required
// fields present) and against kube-scheduler's validation rules for what the chart sets (leader election,
// profiles, percentages, extenders). Returns one line per problem, "path: what is wrong".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gangplank::helm_testing {

std::vector<std::string> check_scheduler_config(const nlohmann::json& config, const nlohmann::json& fields);

// Go's time.ParseDuration syntax ("5s", "1m30s", "500ms"); false for numbers and anything else.
bool is_go_duration(const std::string& text);
// Nanoseconds of a Go duration (is_go_duration must hold).
double go_duration_seconds(const std::string& text);

}  // namespace gangplank::helm_testing
