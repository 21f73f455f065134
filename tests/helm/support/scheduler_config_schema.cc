#include "tests/helm/support/scheduler_config_schema.h"

#include <regex>
#include <set>

namespace gangplank::helm_testing {

using nlohmann::json;

bool is_go_duration(const std::string& text) {
  static const std::regex duration("([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+");
  return text == "0" || std::regex_match(text, duration);
}

double go_duration_seconds(const std::string& text) {
  static const std::regex part("([0-9]+(?:\\.[0-9]+)?)(ns|us|µs|ms|s|m|h)");
  double total = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), part), end; it != end; ++it) {
    const double v = std::stod((*it)[1]);
    const std::string unit = (*it)[2];
    total += unit == "h" ? v * 3600 : unit == "m" ? v * 60 : unit == "s" ? v : unit == "ms" ? v / 1e3 : unit == "ns" ? v / 1e9 : v / 1e6;
  }
  return total;
}

namespace {

class Checker {
 public:
  explicit Checker(const json& fields) : fields_(fields) {}

  void value(const json& v, const std::string& type, const std::string& path) {
    if (type.rfind("[]", 0) == 0) {
      if (!v.is_array()) return problem(path, "expected a list of " + type.substr(2) + ", got " + std::string(v.type_name()));
      for (std::size_t i = 0; i < v.size(); ++i) value(v[i], type.substr(2), path + "[" + std::to_string(i) + "]");
    } else if (type == "string") {
      if (!v.is_string()) problem(path, "expected a string, got " + v.dump());
    } else if (type == "bool") {
      if (!v.is_boolean()) problem(path, "expected a bool, got " + v.dump());
    } else if (type == "int32" || type == "int64") {
      const long long limit = type == "int32" ? 2147483647LL : 9223372036854775807LL;
      if (!v.is_number_integer() || v.get<long long>() > limit || v.get<long long>() < -limit - 1) {
        problem(path, "expected an " + type + ", got " + v.dump());
      }
    } else if (type == "float32") {
      if (!v.is_number()) problem(path, "expected a number, got " + v.dump());
    } else if (type == "Duration") {
      if (!v.is_string() || !is_go_duration(v.get<std::string>())) problem(path, "expected a Go duration such as \"5s\", got " + v.dump());
    } else if (type == "bytes") {
      static const std::regex base64("[A-Za-z0-9+/]*={0,2}");
      if (!v.is_string() || !std::regex_match(v.get<std::string>(), base64)) problem(path, "expected base64 bytes, got " + v.dump());
    } else if (type == "RawExtension") {
      if (!v.is_object()) problem(path, "expected an object, got " + v.dump());
    } else if (fields_["types"].contains(type)) {
      object(v, type, path);
    } else {
      problem(path, "unknown type " + type + " in the field list");
    }
  }

  void object(const json& v, const std::string& type, const std::string& path) {
    if (!v.is_object()) return problem(path, "expected an object (" + type + "), got " + v.dump());
    const json& known = fields_["types"][type];
    for (const auto& [key, child] : v.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      if (!known.contains(key)) {
        problem(at, "unknown field of " + type + " (kube-scheduler decodes strictly)");
        continue;
      }
      if (child.is_null()) continue;
      value(child, known[key], at);
    }
    if (fields_["required"].contains(type)) {
      for (const auto& key : fields_["required"][type]) {
        if (!v.contains(key.get<std::string>())) problem(path.empty() ? key.get<std::string>() : path + "." + key.get<std::string>(), "required");
      }
    }
  }

  void problem(const std::string& path, const std::string& what) { problems.push_back(path + ": " + what); }

  std::vector<std::string> problems;

 private:
  const json& fields_;
};

bool is_extended_resource_name(const std::string& name) {
  // A qualified name with a domain prefix outside kubernetes.io (IsExtendedResourceName).
  static const std::regex qualified("([a-z0-9]([-a-z0-9]*[a-z0-9])?\\.)+[a-z0-9]([-a-z0-9]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  if (!std::regex_match(name, qualified)) return false;
  const std::string domain = name.substr(0, name.find('/'));
  return domain != "kubernetes.io" && (domain.size() < 14 || domain.compare(domain.size() - 14, 14, ".kubernetes.io") != 0);
}

void validate(const json& c, Checker& out) {
  const json constants = {{"apiVersion", "kubescheduler.config.k8s.io/v1"}, {"kind", "KubeSchedulerConfiguration"}};
  for (const auto& [key, value] : constants.items()) {
    if (c.value(key, "") != value) out.problem(key, "must be " + value.get<std::string>());
  }
  const json le = c.value("leaderElection", json::object());
  if (le.value("leaderElect", true)) {  // defaulted to true
    if (le.value("resourceLock", "leases") != "leases") out.problem("leaderElection.resourceLock", "resourceLock value must be \"leases\"");
    if (le.value("resourceName", "kube-scheduler").empty()) out.problem("leaderElection.resourceName", "required");
    const double lease = go_duration_seconds(le.value("leaseDuration", "15s"));
    const double renew = go_duration_seconds(le.value("renewDeadline", "10s"));
    const double retry = go_duration_seconds(le.value("retryPeriod", "2s"));
    if (lease <= renew) out.problem("leaderElection.leaseDuration", "LeaseDuration must be greater than RenewDeadline");
    if (renew <= 0 || retry <= 0) out.problem("leaderElection", "renewDeadline and retryPeriod must be greater than zero");
  }
  if (c.contains("parallelism") && c["parallelism"].is_number_integer() && c["parallelism"].get<long long>() <= 0) {
    out.problem("parallelism", "should be an integer value greater than zero");
  }
  auto percentage = [&](const json& holder, const std::string& path) {
    if (holder.contains("percentageOfNodesToScore") && holder["percentageOfNodesToScore"].is_number_integer()) {
      const long long p = holder["percentageOfNodesToScore"];
      if (p < 0 || p > 100) out.problem(path + "percentageOfNodesToScore", "not in valid range [0-100]");
    }
  };
  percentage(c, "");
  const json profiles = c.value("profiles", json::array());
  if (profiles.empty()) out.problem("profiles", "Required value");
  std::set<std::string> names;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const std::string at = "profiles[" + std::to_string(i) + "].";
    const std::string name = profiles[i].value("schedulerName", "");
    if (name.empty()) out.problem(at + "schedulerName", "Required value");
    if (!names.insert(name).second) out.problem(at + "schedulerName", "Duplicate value");
    percentage(profiles[i], at);
  }
  int binders = 0;
  std::set<std::string> managed;
  const json extenders = c.value("extenders", json::array());
  for (std::size_t i = 0; i < extenders.size(); ++i) {
    const json& e = extenders[i];
    const std::string at = "extenders[" + std::to_string(i) + "].";
    if (!e.value("prioritizeVerb", "").empty() && e.value("weight", 0LL) <= 0) out.problem(at + "weight", "must have a positive weight applied to it");
    if (!e.value("bindVerb", "").empty()) ++binders;
    const json resources = e.value("managedResources", json::array());
    for (std::size_t j = 0; j < resources.size(); ++j) {
      const std::string name = resources[j].value("name", "");
      const std::string rat = at + "managedResources[" + std::to_string(j) + "].name";
      if (!is_extended_resource_name(name)) out.problem(rat, "is an invalid extended resource name");
      if (!managed.insert(name).second) out.problem(rat, "duplicate extender managed resource name");
    }
    // Not a validation rule of kube-scheduler, but what makes the entry work: an http(s) URL whose
    // scheme agrees with enableHTTPS, and a TLS config only for HTTPS.
    static const std::regex url("(https?)://[^/:]+:[0-9]+(/[^ ]*)?");
    std::smatch m;
    const std::string prefix = e.value("urlPrefix", "");
    if (!std::regex_match(prefix, m, url)) {
      out.problem(at + "urlPrefix", "not an http(s)://host:port[/path] URL: " + prefix);
    } else if ((m[1] == "https") != e.value("enableHTTPS", false)) {
      out.problem(at + "enableHTTPS", "disagrees with the scheme of " + prefix);
    }
    if (e.contains("tlsConfig") && !e.value("enableHTTPS", false)) out.problem(at + "tlsConfig", "set while enableHTTPS is false");
  }
  if (binders > 1) out.problem("extenders", "only one extender can implement bind");
}

}  // namespace

std::vector<std::string> check_scheduler_config(const json& config, const json& fields) {
  Checker checker(fields);
  checker.object(config, fields["root"], "");
  if (checker.problems.empty()) validate(config, checker);
  return checker.problems;
}

}  // namespace gangplank::helm_testing
