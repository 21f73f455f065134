#include "cache/dra/device_selectors.h"

#include <optional>

#include "cel/dra_device.h"
#include "cel/program.h"
#include "cel/quantity.h"
#include "cel/semver.h"

namespace gangplank::cache::dra {
namespace {

cel::Value AttributeOf(const AttributeValue& a) {
  switch (a.kind) {
    case AttributeValue::Kind::kBool: return cel::Value(a.bool_value);
    case AttributeValue::Kind::kInt: return cel::Value(a.int_value);
    case AttributeValue::Kind::kVersion:
      if (std::optional<cel::Semver> v = cel::Semver::TryParse(a.text)) return cel::Value(std::move(*v));
      return cel::Value(a.text);  // The API server validates versions; a string is the best reading of one it did not.
    case AttributeValue::Kind::kString: return cel::Value(a.text);
    case AttributeValue::Kind::kList: return cel::Value(cel::List{});
  }
  return cel::Value();
}

cel::DraDevice DeviceOf(const std::string& driver, const Device& device) {
  cel::DraDevice d;
  d.driver = driver;
  for (const auto& [name, value] : device.attributes) d.attributes.emplace_back(name, AttributeOf(value));
  for (const auto& [name, milli] : device.capacity_milli) {
    d.capacity.emplace_back(name, cel::Quantity::Parse(std::to_string(milli) + "m"));
  }
  return d;
}

}  // namespace

struct DeviceSelectors::Compiled {
  std::optional<cel::Program> program;
  std::string error;  // Why it does not compile.
};

DeviceSelectors::DeviceSelectors() = default;
DeviceSelectors::~DeviceSelectors() = default;

const DeviceSelectors::Compiled& DeviceSelectors::Compile(const std::string& expression) {
  auto it = programs_.find(expression);
  if (it != programs_.end()) return *it->second;
  auto compiled = std::make_unique<Compiled>();
  try {
    compiled->program = cel::Program::Compile(expression, cel::DraSelectorOptions());
  } catch (const std::exception& e) {
    compiled->error = e.what();
  }
  return *programs_.emplace(expression, std::move(compiled)).first->second;
}

bool DeviceSelectors::Matches(const std::string& expression, const std::string& driver, const Device& device,
                              std::string* error) {
  const Compiled& c = Compile(expression);
  if (!c.program) {
    *error = c.error;
    return false;
  }
  try {
    return c.program->EvaluateBool(cel::DraActivation(DeviceOf(driver, device)));
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace gangplank::cache::dra
