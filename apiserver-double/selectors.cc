#include "apiserver-double/selectors.h"

#include <algorithm>
#include <cctype>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double {
namespace {

std::string Trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits on commas that are not inside parentheses ("a in (x,y),b").
std::vector<std::string> SplitTopLevel(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(Trim(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!Trim(current).empty() || !parts.empty()) parts.push_back(Trim(current));
  return parts;
}

bool ValidKey(const std::string& key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

std::string LabelValue(const nlohmann::json& labels, const std::string& key, bool& present) {
  present = labels.is_object() && labels.contains(key) && labels[key].is_string();
  return present ? labels[key].get<std::string>() : std::string();
}

std::string FieldValue(const nlohmann::json& object, const std::string& field) {
  nlohmann::json::json_pointer ptr("/" + [&] {
    std::string p = field;
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
  }());
  if (!object.contains(ptr)) return "";
  const auto& v = object[ptr];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  return "";
}

}  // namespace

LabelSelector LabelSelector::Parse(const std::string& text) {
  LabelSelector sel;
  for (const std::string& part : SplitTopLevel(text)) {
    if (part.empty()) throw BadRequest("unable to parse requirement: empty requirement in label selector \"" + text + "\"");
    Requirement r;
    if (part[0] == '!') {
      r.key = Trim(part.substr(1));
      r.op = Op::DoesNotExist;
    } else if (auto pos = part.find("!="); pos != std::string::npos) {
      r.key = Trim(part.substr(0, pos));
      r.op = Op::NotEquals;
      r.values = {Trim(part.substr(pos + 2))};
    } else if (auto pos2 = part.find("=="); pos2 != std::string::npos) {
      r.key = Trim(part.substr(0, pos2));
      r.op = Op::Equals;
      r.values = {Trim(part.substr(pos2 + 2))};
    } else if (auto pos3 = part.find('='); pos3 != std::string::npos) {
      r.key = Trim(part.substr(0, pos3));
      r.op = Op::Equals;
      r.values = {Trim(part.substr(pos3 + 1))};
    } else if (auto open = part.find('('); open != std::string::npos) {
      const auto close = part.rfind(')');
      if (close == std::string::npos || close < open) {
        throw BadRequest("unable to parse requirement: missing ')' in label selector \"" + text + "\"");
      }
      std::string head = Trim(part.substr(0, open));
      const auto space = head.find_last_of(" \t");
      if (space == std::string::npos) throw BadRequest("unable to parse requirement: \"" + part + "\"");
      const std::string op = Trim(head.substr(space + 1));
      r.key = Trim(head.substr(0, space));
      if (op == "in") {
        r.op = Op::In;
      } else if (op == "notin") {
        r.op = Op::NotIn;
      } else {
        throw BadRequest("unable to parse requirement: unknown operator \"" + op + "\" in \"" + part + "\"");
      }
      std::string list = part.substr(open + 1, close - open - 1);
      std::size_t start = 0;
      while (start <= list.size()) {
        auto comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        r.values.push_back(Trim(list.substr(start, comma - start)));
        start = comma + 1;
      }
    } else {
      r.key = part;
      r.op = Op::Exists;
    }
    if (!ValidKey(r.key)) throw BadRequest("unable to parse requirement: invalid label key \"" + r.key + "\"");
    sel.requirements_.push_back(std::move(r));
  }
  return sel;
}

LabelSelector LabelSelector::from_json(const nlohmann::json& selector) {
  LabelSelector sel;
  if (!selector.is_object()) return sel;
  if (selector.contains("matchLabels") && selector["matchLabels"].is_object()) {
    for (const auto& [k, v] : selector["matchLabels"].items()) {
      sel.requirements_.push_back({k, Op::Equals, {v.is_string() ? v.get<std::string>() : v.dump()}});
    }
  }
  if (selector.contains("matchExpressions") && selector["matchExpressions"].is_array()) {
    for (const auto& e : selector["matchExpressions"]) {
      Requirement r;
      r.key = e.value("key", std::string());
      const std::string op = e.value("operator", std::string());
      if (op == "In") r.op = Op::In;
      else if (op == "NotIn") r.op = Op::NotIn;
      else if (op == "Exists") r.op = Op::Exists;
      else if (op == "DoesNotExist") r.op = Op::DoesNotExist;
      else throw BadRequest("invalid label selector operator \"" + op + "\"");
      if (e.contains("values")) r.values = e["values"].get<std::vector<std::string>>();
      sel.requirements_.push_back(std::move(r));
    }
  }
  return sel;
}

bool LabelSelector::matches(const nlohmann::json& labels) const {
  for (const auto& r : requirements_) {
    bool present = false;
    const std::string value = LabelValue(labels, r.key, present);
    const bool listed = std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    switch (r.op) {
      case Op::Equals:
      case Op::In:
        if (!present || !listed) return false;
        break;
      case Op::NotEquals:
      case Op::NotIn:
        if (present && listed) return false;
        break;
      case Op::Exists:
        if (!present) return false;
        break;
      case Op::DoesNotExist:
        if (present) return false;
        break;
    }
  }
  return true;
}

FieldSelector FieldSelector::Parse(const std::string& text, const std::string& kind) {
  static const std::vector<std::string> common = {"metadata.name", "metadata.namespace"};
  std::vector<std::string> allowed = common;
  if (kind == "Pod") {
    allowed.insert(allowed.end(), {"spec.nodeName", "status.phase", "spec.schedulerName", "spec.serviceAccountName",
                                   "status.podIP", "spec.restartPolicy"});
  } else if (kind == "Node") {
    allowed.push_back("spec.unschedulable");
  } else if (kind == "Event") {
    allowed.insert(allowed.end(), {"involvedObject.kind", "involvedObject.name", "involvedObject.namespace",
                                   "involvedObject.uid", "reason", "type", "source"});
  } else if (kind == "Namespace") {
    allowed.push_back("status.phase");
  }
  FieldSelector sel;
  for (const std::string& part : SplitTopLevel(text)) {
    if (part.empty()) continue;
    Requirement r;
    if (auto pos = part.find("!="); pos != std::string::npos) {
      r = {Trim(part.substr(0, pos)), false, Trim(part.substr(pos + 2))};
    } else if (auto pos2 = part.find("=="); pos2 != std::string::npos) {
      r = {Trim(part.substr(0, pos2)), true, Trim(part.substr(pos2 + 2))};
    } else if (auto pos3 = part.find('='); pos3 != std::string::npos) {
      r = {Trim(part.substr(0, pos3)), true, Trim(part.substr(pos3 + 1))};
    } else {
      throw BadRequest("invalid selector: '" + text + "'; can't understand '" + part + "'");
    }
    if (std::find(allowed.begin(), allowed.end(), r.field) == allowed.end()) {
      throw BadRequest("field label not supported: " + r.field);
    }
    sel.requirements_.push_back(std::move(r));
  }
  return sel;
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  for (const auto& r : requirements_) {
    const std::string value = FieldValue(object, r.field);
    if ((value == r.value) != r.equals) return false;
  }
  return true;
}

std::string FieldSelector::RequiredName() const {
  for (const auto& r : requirements_) {
    if (r.field == "metadata.name" && r.equals) return r.value;
  }
  return "";
}

}  // namespace gangplank::apiserver_double
