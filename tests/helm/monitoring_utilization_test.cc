// The chart's monitoring of GPU utilization and usage (issue 20): the dashboard row "GPU utilization and
// usage" reads exactly the operator's utilization, idle-gang and usage metrics; every PromQL expression of
// the PrometheusRule and of the dashboard parses (the real promtool, `promtool check rules`); and
// GangplankGangsIdle and GangplankUtilizationUnavailable fire after their `for` and not before
// (`promtool test rules` with input series). Without promtool the promtool tests skip, unless CI is set.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;

// The metrics the operator exports for issue 20 (operator/metrics), by the names the dashboard must use.
const std::set<std::string> kUtilizationMetrics = {
    "gangplank_operator_gpu_seconds_total",    "gangplank_operator_busy_gpu_seconds_total",
    "gangplank_operator_idle_gangs",           "gangplank_operator_idle_gang_actions_total",
    "gangplank_operator_utilization_up",       "gangplank_operator_utilization_query_failures_total",
    "gangplank_operator_queue_used_gpu_hours", "gangplank_operator_queue_decayed_usage_gpus",
};
const char kRowTitle[] = "GPU utilization and usage";

RenderedObjects render(const std::vector<std::string>& values, const std::vector<std::string>& sets = {}) {
  RenderOptions options;
  for (const auto& v : values) options.values_files.push_back(chart_dir() + "/ci/" + v + "-values.yaml");
  options.sets = sets;
  return RenderedObjects(helm3().render_ok(options));
}

json dashboard_of(const RenderedObjects& objects) {
  const json cm = objects.get("ConfigMap", "gangplank-dashboard");
  return json::parse(cm.value("/data/gangplank.json"_json_pointer, std::string("{}")));
}

// The panels of the row titled `title`: those after it up to the next row (Grafana's flat layout).
std::vector<json> row_panels(const json& dashboard, const std::string& title) {
  std::vector<json> out;
  bool in_row = false;
  for (const auto& p : dashboard.value("panels", json::array())) {
    if (p.value("type", "") == "row") {
      in_row = p.value("title", "") == title;
      continue;
    }
    if (in_row) out.push_back(p);
  }
  return out;
}

std::set<std::string> metrics_in(const std::string& expression) {
  std::set<std::string> out;
  const std::regex series("gangplank_[a-z_]+");
  for (std::sregex_iterator it(expression.begin(), expression.end(), series), end; it != end; ++it)
    out.insert(it->str());
  return out;
}

// Grafana's variables replaced by what they stand for at query time, so Prometheus' parser can read it.
std::string as_promql(std::string expr) {
  for (const auto& [var, value] : std::vector<std::pair<std::string, std::string>>{{"$__rate_interval", "2m"},
                                                                                   {"$__interval", "30s"},
                                                                                   {"$__range", "6h"},
                                                                                   {"${pool}", ".*"},
                                                                                   {"$pool", ".*"}}) {
    for (auto at = expr.find(var); at != std::string::npos; at = expr.find(var, at + value.size()))
      expr.replace(at, var.size(), value);
  }
  return expr;
}

std::string promtool_path() {
  if (const char* p = std::getenv("GANGPLANK_PROMTOOL"); p && *p) return p;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "promtool";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

ProcessResult promtool(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {promtool_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return gangplank::testing::run_process(argv, "", std::chrono::seconds(60));
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// The PrometheusRule's rule groups as a Prometheus rules file (JSON is YAML).
json rules_file_of(const RenderedObjects& objects) {
  const json rule = objects.get("PrometheusRule", "gangplank");
  return json{{"groups", rule.value("/spec/groups"_json_pointer, json::array())}};
}

// Skips the test (or, with CI set, fails it) when promtool is not installed.
#define REQUIRE_PROMTOOL()                                                                                       \
  do {                                                                                                           \
    if (promtool_path().empty()) {                                                                               \
      if (std::getenv("CI"))                                                                                     \
        FAIL() << "promtool is not on PATH (Debian/Ubuntu: apt-get install prometheus); CI needs it";            \
      GTEST_SKIP() << "promtool is not on PATH (Debian/Ubuntu: apt-get install prometheus): PromQL not checked"; \
    }                                                                                                            \
  } while (false)

class MonitoringUtilizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = helm3().unavailable_reason();
    if (!why.empty()) FAIL() << why;
    dir_ = fs::temp_directory_path() / ("gangplank-monitoring-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

TEST_F(MonitoringUtilizationTest, DashboardRowShowsExactlyTheUtilizationAndUsageMetrics) {
  const json dashboard = dashboard_of(render({"monitoring"}));
  const std::vector<json> panels = row_panels(dashboard, kRowTitle);
  ASSERT_FALSE(panels.empty()) << "no row \"" << kRowTitle << "\"";

  std::set<std::string> used;
  std::map<std::string, std::vector<std::string>> exprs;  // panel title -> its expressions
  for (const auto& p : panels) {
    const std::string title = p.value("title", "");
    EXPECT_EQ(p.value("/datasource/uid"_json_pointer, std::string()), "${datasource}") << title;
    ASSERT_FALSE(p.value("targets", json::array()).empty()) << title;
    for (const auto& t : p["targets"]) {
      const std::string expr = t.value("expr", "");
      EXPECT_EQ(t.value("/datasource/uid"_json_pointer, std::string()), "${datasource}") << title;
      EXPECT_NE(expr.find("{pool=~\"$pool\"}"), std::string::npos)
          << title << ": " << expr << " ignores the pool variable";
      const auto m = metrics_in(expr);
      EXPECT_EQ(m.size(), 1u) << title << ": " << expr;
      for (const auto& name : m)
        EXPECT_TRUE(kUtilizationMetrics.count(name)) << title << " reads " << name << ", not an issue 20 metric";
      used.insert(m.begin(), m.end());
      exprs[title].push_back(expr);
    }
  }
  for (const auto& name : kUtilizationMetrics) EXPECT_TRUE(used.count(name)) << "the row shows no " << name;
  // ... and the operator registers each of them by that name (operator/metrics/*.cc).
  std::string sources;
  for (const auto& entry : fs::directory_iterator(source_dir() + "/operator/metrics")) {
    if (entry.path().extension() == ".cc") sources += read_text_file(entry.path().string());
  }
  for (const auto& name : kUtilizationMetrics) {
    EXPECT_NE(sources.find("\"" + name + "\""), std::string::npos) << "operator/metrics registers no " << name;
  }

  const auto has = [&](const std::string& title, const std::string& expr) {
    const auto& e = exprs[title];
    return std::find(e.begin(), e.end(), expr) != e.end();
  };
  const std::string allocated_vs_busy = "Allocated vs busy GPUs per queue";
  EXPECT_TRUE(has(allocated_vs_busy,
                  "sum by (queue) (rate(gangplank_operator_gpu_seconds_total{pool=~\"$pool\"}[$__rate_interval]))"));
  EXPECT_TRUE(
      has(allocated_vs_busy,
          "sum by (queue) (rate(gangplank_operator_busy_gpu_seconds_total{pool=~\"$pool\"}[$__rate_interval]))"));
  EXPECT_TRUE(has("Idle gangs per queue and policy",
                  "sum by (queue, policy) (gangplank_operator_idle_gangs{pool=~\"$pool\"})"));
  const std::string hours = "GPU-hours per queue over the dashboard range";
  EXPECT_TRUE(
      has(hours, "sum by (queue) (increase(gangplank_operator_gpu_seconds_total{pool=~\"$pool\"}[$__range])) / 3600"));
  EXPECT_TRUE(
      has("Decayed usage per queue", "sum by (queue) (gangplank_operator_queue_decayed_usage_gpus{pool=~\"$pool\"})"));
  EXPECT_TRUE(
      has("Utilization data available per pool", "max by (pool) (gangplank_operator_utilization_up{pool=~\"$pool\"})"));
  for (const auto& p : panels) {
    if (p.value("title", "") == hours) {
      for (const auto& t : p["targets"]) EXPECT_TRUE(t.value("instant", false)) << "one value for the whole range";
    }
  }

  // The row fits the dashboard: unique ids, no two panels overlapping, none wider than the grid.
  std::set<int> ids;
  for (const auto& p : dashboard["panels"])
    EXPECT_TRUE(ids.insert(p.value("id", -1)).second) << "duplicate panel id " << p.value("id", -1);
  const auto& all = dashboard["panels"];
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) {
      const json& a = all[i]["gridPos"];
      const json& b = all[j]["gridPos"];
      const bool apart = a["x"].get<int>() + a["w"].get<int>() <= b["x"].get<int>() ||
                         b["x"].get<int>() + b["w"].get<int>() <= a["x"].get<int>() ||
                         a["y"].get<int>() + a["h"].get<int>() <= b["y"].get<int>() ||
                         b["y"].get<int>() + b["h"].get<int>() <= a["y"].get<int>();
      EXPECT_TRUE(apart) << all[i]["title"] << " overlaps " << all[j]["title"];
    }
    EXPECT_LE(all[i]["gridPos"]["x"].get<int>() + all[i]["gridPos"]["w"].get<int>(), 24) << all[i]["title"];
  }
}

TEST_F(MonitoringUtilizationTest, IdleAndUtilizationAlertsHaveTheRulesShape) {
  const json rules = rules_file_of(render({"monitoring"}));
  std::map<std::string, json> alerts;
  for (const auto& group : rules["groups"]) {
    for (const auto& r : group["rules"]) alerts[r.value("alert", "")] = r;
  }
  ASSERT_TRUE(alerts.count("GangplankGangsIdle"));
  ASSERT_TRUE(alerts.count("GangplankUtilizationUnavailable"));
  const json& idle = alerts["GangplankGangsIdle"];
  EXPECT_EQ(metrics_in(idle["expr"]), std::set<std::string>{"gangplank_operator_idle_gangs"});
  EXPECT_EQ(idle["for"], "15m");
  EXPECT_EQ(idle["labels"]["severity"], "warning");
  const std::string idle_description = idle["annotations"].value("description", "");
  for (const char* hint : {"Events", "spec.idlePolicy", "gangplank.io/idle-exempt", "Reclaim"}) {
    EXPECT_NE(idle_description.find(hint), std::string::npos)
        << "GangplankGangsIdle's description does not mention " << hint;
  }
  const json& up = alerts["GangplankUtilizationUnavailable"];
  EXPECT_EQ(metrics_in(up["expr"]), std::set<std::string>{"gangplank_operator_utilization_up"});
  EXPECT_EQ(up["for"], "10m");
  EXPECT_EQ(up["labels"]["severity"], "warning");
  EXPECT_NE(up["annotations"].value("summary", "").find("idle policies are not acting"), std::string::npos);
  for (const char* hint :
       {"gangplank_operator_utilization_query_failures_total", "spec.utilization", "--prometheus-url"}) {
    EXPECT_NE(up["annotations"].value("description", "").find(hint), std::string::npos) << hint;
  }
  for (const auto& [name, r] : alerts) {
    EXPECT_FALSE(r["annotations"].value("summary", "").empty()) << name;
    EXPECT_FALSE(r["annotations"].value("description", "").empty()) << name;
  }
}

TEST_F(MonitoringUtilizationTest, EveryRuleAndDashboardExpressionParsesWithPromtool) {
  REQUIRE_PROMTOOL();
  // The rules as rendered with the defaults and with ci/monitoring-values.yaml's thresholds.
  for (const auto& [name, objects] : std::vector<std::pair<std::string, RenderedObjects>>{
           {"default", render({}, {"monitoring.prometheusRule.enabled=true"})},
           {"monitoring", render({"monitoring"})}}) {
    const fs::path file = dir_ / ("rules-" + name + ".json");
    const json rules = rules_file_of(objects);
    size_t count = 0;
    for (const auto& g : rules["groups"]) count += g["rules"].size();
    ASSERT_GE(count, 7u) << name;
    write_file(file, rules.dump(2));
    const ProcessResult r = promtool({"check", "rules", file.string()});
    EXPECT_EQ(r.exit_code, 0) << name << ":\n" << r.out << r.err;
    EXPECT_NE(r.out.find("SUCCESS: " + std::to_string(count) + " rules found"), std::string::npos) << r.out << r.err;
  }

  // Each dashboard query as a recording rule, Grafana's variables replaced: promtool parses every one.
  const json dashboard = dashboard_of(render({"monitoring"}));
  json recorded = json::array();
  for (const auto& p : dashboard["panels"]) {
    for (const auto& t : p.value("targets", json::array())) {
      const std::string record =
          "gangplank_dashboard:panel_" + std::to_string(p.value("id", 0)) + "_" + t.value("refId", "");
      recorded.push_back({{"record", record}, {"expr", as_promql(t.value("expr", ""))}});
    }
  }
  ASSERT_GE(recorded.size(), 30u);
  const fs::path file = dir_ / "dashboard-queries.json";
  write_file(file, json{{"groups", json::array({{{"name", "gangplank.dashboard"}, {"rules", recorded}}})}}.dump(2));
  const ProcessResult r = promtool({"check", "rules", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS: " + std::to_string(recorded.size()) + " rules found"), std::string::npos)
      << r.out << r.err;
}

json alert(const std::string& summary, const std::map<std::string, std::string>& labels) {
  json l = {{"severity", "warning"}};
  for (const auto& [k, v] : labels) l[k] = v;
  return {{"exp_labels", l}, {"exp_annotations", {{"summary", summary}}}};
}

TEST_F(MonitoringUtilizationTest, IdleAndUtilizationAlertsFireAfterTheirForDurationNotBefore) {
  REQUIRE_PROMTOOL();
  // The two groups' rules as rendered, each annotation but the summary dropped (promtool compares every
  // annotation; `check rules` above already parses the description templates).
  json rules = rules_file_of(render({"monitoring"}));
  json groups = json::array();
  for (auto group : rules["groups"]) {
    json kept = json::array();
    for (auto r : group["rules"]) {
      const std::string name = r.value("alert", "");
      if (name != "GangplankGangsIdle" && name != "GangplankUtilizationUnavailable") continue;
      r["annotations"] = {{"summary", r["annotations"].value("summary", "")}};
      kept.push_back(r);
    }
    if (!kept.empty()) groups.push_back({{"name", group["name"]}, {"rules", kept}});
  }
  ASSERT_FALSE(groups.empty());
  write_file(dir_ / "rules.json", json{{"groups", groups}}.dump(2));

  const std::string idle = "gangplank_operator_idle_gangs";
  const std::string up = "gangplank_operator_utilization_up";
  const json input_series = json::array({
      // research: 2 gangs idle past the limit from minute 1 on (both operator replicas export; only the
      // leader knows): pending from 1m, firing from 16m.
      {{"series", idle + "{pool=\"a100\",queue=\"research\",policy=\"Report\",instance=\"op-0\"}"},
       {"values", "0 2x40"}},
      {{"series", idle + "{pool=\"a100\",queue=\"research\",policy=\"Report\",instance=\"op-1\"}"}, {"values", "0x40"}},
      // vision: idle 0m..9m, not at 10m, idle again from 11m: the 15 minutes start over and end at 26m.
      {{"series", idle + "{pool=\"a100\",queue=\"vision\",policy=\"Reclaim\",instance=\"op-0\"}"},
       {"values", "1x9 0 1x30"}},
      // batch: never idle.
      {{"series", idle + "{pool=\"h100\",queue=\"batch\",policy=\"Preemptible\",instance=\"op-0\"}"},
       {"values", "0x40"}},
      // a100: its queries fail from minute 1 on: firing from 11m.
      {{"series", up + "{pool=\"a100\",instance=\"op-0\"}"}, {"values", "1 0x40"}},
      // h100: the leader reads it, the other replica does not query: never fires.
      {{"series", up + "{pool=\"h100\",instance=\"op-0\"}"}, {"values", "1x40"}},
      {{"series", up + "{pool=\"h100\",instance=\"op-1\"}"}, {"values", "0x40"}},
      // l40s: fails 0m..4m, one success at 5m, fails from 6m: firing from 16m.
      {{"series", up + "{pool=\"l40s\",instance=\"op-0\"}"}, {"values", "0x4 1 0x30"}},
  });

  const json research =
      alert("Queue research has 2 gang(s) in pool a100 holding GPUs idle past its limit (idle policy Report).",
            {{"pool", "a100"}, {"queue", "research"}, {"policy", "Report"}});
  const json vision =
      alert("Queue vision has 1 gang(s) in pool a100 holding GPUs idle past its limit (idle policy Reclaim).",
            {{"pool", "a100"}, {"queue", "vision"}, {"policy", "Reclaim"}});
  const auto unavailable = [](const std::string& pool) {
    return alert("The operator cannot read GPU utilization for pool " + pool + "; idle policies are not acting.",
                 {{"pool", pool}});
  };
  json tests = json::array();
  const auto at = [&](const std::string& eval_time, const std::string& name, json expected) {
    tests.push_back({{"eval_time", eval_time}, {"alertname", name}, {"exp_alerts", std::move(expected)}});
  };
  at("1m", "GangplankGangsIdle", json::array());
  at("15m", "GangplankGangsIdle", json::array());  // research pending for 14m
  at("16m", "GangplankGangsIdle", json::array({research}));
  at("25m", "GangplankGangsIdle", json::array({research}));  // vision pending for 14m since its gap
  at("26m", "GangplankGangsIdle", json::array({research, vision}));
  at("40m", "GangplankGangsIdle", json::array({research, vision}));
  at("1m", "GangplankUtilizationUnavailable", json::array());
  at("10m", "GangplankUtilizationUnavailable", json::array());  // a100 pending for 9m, l40s for 4m
  at("11m", "GangplankUtilizationUnavailable", json::array({unavailable("a100")}));
  at("15m", "GangplankUtilizationUnavailable", json::array({unavailable("a100")}));
  at("16m", "GangplankUtilizationUnavailable", json::array({unavailable("a100"), unavailable("l40s")}));
  at("40m", "GangplankUtilizationUnavailable", json::array({unavailable("a100"), unavailable("l40s")}));

  const json unit_tests = {
      {"rule_files", json::array({"rules.json"})},
      {"evaluation_interval", "1m"},
      {"tests", json::array({{{"interval", "1m"}, {"input_series", input_series}, {"alert_rule_test", tests}}})}};
  write_file(dir_ / "alerts-test.json", unit_tests.dump(2));
  const ProcessResult r = promtool({"test", "rules", (dir_ / "alerts-test.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace gangplank::helm_testing
