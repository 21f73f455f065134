// The Dockerfile, checked without a container engine (none runs on the build machines): a Debian 12 build
// stage whose packages are the project's own and whose CMake configuration, on exactly the files
// .dockerignore lets through, defines both binaries; a slim runtime stage that installs the package of
// every shared library the binaries built here link, nothing more, copies the binaries to the paths the
// chart runs, and runs as the chart's non-root user; both bases pinned to one Debian point release and
// every package to a version, the runtime libraries to the versions the build stage compiled against;
// versions that agree with Chart.yaml and CMake.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "apiserver-double/yaml_json.h"
#include "tests/apiserver-double/support/subprocess.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;
using apiserver_double::testing::run_process;


struct Instruction {
  std::string keyword;  // upper case
  std::string arguments;
};
struct Stage {
  std::string from;  // "debian:12 AS build"
  std::vector<Instruction> instructions;
};

// Dockerfile syntax as far as this one uses it: comments, backslash continuations, one instruction a line.
std::vector<Stage> parse_dockerfile(const std::string& text) {
  std::vector<Stage> stages;
  std::stringstream in(text);
  std::string line, logical;
  auto flush = [&] {
    const auto start = logical.find_first_not_of(" \t");
    if (start == std::string::npos) return;
    logical = logical.substr(start);
    const auto space = logical.find_first_of(" \t");
    std::string keyword = logical.substr(0, space);
    for (auto& c : keyword) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string args = space == std::string::npos ? "" : logical.substr(logical.find_first_not_of(" \t", space));
    if (keyword == "FROM") {
      stages.push_back({args, {}});
    } else if (!stages.empty()) {
      stages.back().instructions.push_back({keyword, args});
    }
    logical.clear();
  };
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') continue;
    if (!line.empty() && line.back() == '\\') {
      logical += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    logical += line;
    flush();
  }
  flush();
  return stages;
}

// Packages after "apt-get install ... " in a RUN (flags and shell operators left out), each with the
// version it is pinned to ("name=version"; "" when unpinned).
std::map<std::string, std::string> apt_pins(const Stage& stage) {
  std::map<std::string, std::string> out;
  for (const auto& i : stage.instructions) {
    if (i.keyword != "RUN") continue;
    const auto at = i.arguments.find("apt-get install");
    if (at == std::string::npos) continue;
    std::stringstream words(i.arguments.substr(at + 15));
    std::string w;
    while (words >> w) {
      if (w == "&&" || w == ";") break;
      if (w[0] == '-') continue;
      const auto eq = w.find('=');
      out[w.substr(0, eq)] = eq == std::string::npos ? "" : w.substr(eq + 1);
    }
  }
  return out;
}

// The package names alone.
std::set<std::string> apt_packages(const Stage& stage) {
  std::set<std::string> out;
  for (const auto& [name, version] : apt_pins(stage)) out.insert(name);
  return out;
}

// The image of a FROM line ("debian:12.11-slim" of "debian:12.11-slim AS runtime").
std::string from_image(const Stage& stage) { return stage.from.substr(0, stage.from.find(' ')); }

std::string cmake_flag(const Stage& stage, const std::string& name) {
  for (const auto& i : stage.instructions) {
    const std::regex flag("-D" + name + "=\"?([^\" ]*)\"?");
    std::smatch m;
    if (i.keyword == "RUN" && std::regex_search(i.arguments, m, flag)) return m[1];
  }
  return "";
}

class DockerfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stages_ = parse_dockerfile(read_text_file(source_dir() + "/Dockerfile"));
    ASSERT_EQ(stages_.size(), 2u);
  }
  const Stage& build() const { return stages_.front(); }
  const Stage& runtime() const { return stages_.back(); }
  std::vector<Stage> stages_;
};

TEST_F(DockerfileTest, BuildsOnDebian12WithTheProjectsPackages) {
  EXPECT_TRUE(std::regex_match(build().from, std::regex("debian:(12(\\.[0-9]+)?|bookworm(-[0-9]{8})?)(@sha256:[0-9a-f]{64})? AS build")))
      << build().from;
  const std::string deps = read_text_file(source_dir() + "/scripts/install-deps.sh");
  for (const auto& pkg : apt_packages(build())) {
    EXPECT_NE(deps.find(pkg), std::string::npos) << pkg << " is not one of scripts/install-deps.sh's packages";
  }
  EXPECT_EQ(cmake_flag(build(), "GANGPLANK_BUILD_TESTS"), "OFF");
  EXPECT_EQ(cmake_flag(build(), "GANGPLANK_BUILD_BENCH"), "OFF");
}

// The build context .dockerignore leaves, copied out of the source tree.
fs::path docker_context(const fs::path& into) {
  std::vector<std::string> ignored;
  std::stringstream lines(read_text_file(source_dir() + "/.dockerignore"));
  std::string l;
  while (std::getline(lines, l)) {
    if (!l.empty() && l[0] != '#') ignored.push_back(l);
  }
  auto is_ignored = [&](const std::string& top) {
    for (const auto& pattern : ignored) {
      if (pattern == top || (pattern.back() == '*' && top.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0)) return true;
    }
    return false;
  };
  for (const auto& entry : fs::directory_iterator(source_dir())) {
    const std::string top = entry.path().filename().string();
    if (is_ignored(top)) continue;
    fs::copy(entry.path(), into / top, fs::copy_options::recursive);
  }
  return into;
}

TEST_F(DockerfileTest, TheBuildStagesCMakeConfigurationDefinesBothBinariesFromTheDockerContext) {
  const std::string components = cmake_flag(build(), "GANGPLANK_COMPONENTS");
  ASSERT_FALSE(components.empty());
  const fs::path dir = fs::temp_directory_path() / ("gangplank-docker-context-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  docker_context(dir / "src");
  EXPECT_FALSE(fs::exists(dir / "src" / ".tools"));
  EXPECT_FALSE(fs::exists(dir / "src" / "tests"));
  const auto configured = run_process({GANGPLANK_CMAKE, "-S", (dir / "src").string(), "-B", (dir / "build").string(), "-DCMAKE_BUILD_TYPE=Release",
                                       "-DGANGPLANK_COMPONENTS=" + components, "-DGANGPLANK_BUILD_TESTS=OFF", "-DGANGPLANK_BUILD_BENCH=OFF"},
                                      "", std::chrono::seconds(120));
  ASSERT_EQ(configured.exit_code, 0) << configured.out << configured.err;
  const auto targets = run_process({GANGPLANK_CMAKE, "--build", (dir / "build").string(), "--target", "help"});
  EXPECT_NE(targets.out.find("gangplank-extender"), std::string::npos) << targets.out;
  EXPECT_NE(targets.out.find("gangplank-operator"), std::string::npos) << targets.out;
  fs::remove_all(dir);
}

// Debian packages of the libraries the binaries link directly (ELF NEEDED), each resolved to the file the
// dynamic linker loads (ldd) and looked up in dpkg's file index (one dpkg call for all of them).
std::set<std::string> needed_packages(const std::vector<std::string>& binaries) {
  std::map<std::string, std::string> paths;  // soname -> path
  for (const auto& binary : binaries) {
    std::map<std::string, std::string> resolved;
    const auto ldd = run_process({"/usr/bin/env", "ldd", binary});
    EXPECT_EQ(ldd.exit_code, 0) << ldd.err;
    const std::regex line("\\s*(\\S+) => (/\\S+) ");
    for (std::sregex_iterator it(ldd.out.begin(), ldd.out.end(), line), end; it != end; ++it) resolved[(*it)[1]] = (*it)[2];
    const auto dump = run_process({"/usr/bin/env", "objdump", "-p", binary});
    EXPECT_EQ(dump.exit_code, 0) << dump.err;
    const std::regex needed("NEEDED\\s+(\\S+)");
    for (std::sregex_iterator it(dump.out.begin(), dump.out.end(), needed), end; it != end; ++it) {
      EXPECT_TRUE(resolved.count((*it)[1])) << (*it)[1] << " is not resolved by ldd";
      paths[(*it)[1]] = resolved[(*it)[1]];
    }
  }
  // Debian 12 is /usr-merged: dpkg may know a file under /lib or under /usr/lib, so ask for both.
  std::vector<std::string> query = {"/usr/bin/env", "dpkg", "-S"};
  for (const auto& [soname, path] : paths) {
    query.push_back(path);
    query.push_back(path.rfind("/usr/", 0) == 0 ? path.substr(4) : "/usr" + path);
  }
  const auto owners = run_process(query, "", std::chrono::seconds(120));
  std::map<std::string, std::string> package_of;  // path -> package
  std::stringstream lines(owners.out);
  std::string l;
  while (std::getline(lines, l)) {
    const auto sep = l.find(": ");
    if (sep != std::string::npos) package_of[l.substr(sep + 2)] = l.substr(0, l.find(':'));
  }
  std::set<std::string> out;
  for (const auto& [soname, path] : paths) {
    const std::string other = path.rfind("/usr/", 0) == 0 ? path.substr(4) : "/usr" + path;
    const std::string pkg = package_of.count(path) ? package_of[path] : package_of[other];
    EXPECT_FALSE(pkg.empty()) << soname << " (" << path << ") belongs to no Debian package";
    out.insert(pkg);
  }
  return out;
}

TEST_F(DockerfileTest, TheRuntimeStageInstallsExactlyTheLibrariesTheBinariesLink) {
  EXPECT_TRUE(std::regex_match(runtime().from, std::regex("debian:(12(\\.[0-9]+)?|bookworm(-[0-9]{8})?)-slim(@sha256:[0-9a-f]{64})?|"
                                                           "gcr\\.io/distroless/cc-debian12(:[a-z0-9]+)?(@sha256:[0-9a-f]{64})?")))
      << runtime().from;
  std::set<std::string> linked = needed_packages({GANGPLANK_EXTENDER_BINARY, GANGPLANK_OPERATOR_BINARY});
  // libc6, libgcc-s1 and libstdc++6 come with the base image (apt needs them).
  for (const char* base : {"libc6", "libgcc-s1", "libstdc++6"}) linked.erase(base);
  std::set<std::string> installed = apt_packages(runtime());
  installed.erase("ca-certificates");  // for HTTPS to the API server's CA
  EXPECT_EQ(installed, linked);
}

// The Debian release of a pinned Debian base: "12.11" of debian:12.11-slim, "bookworm-20250520" of
// debian:bookworm-20250520; "" when the tag names no point release or date (debian:12, debian:bookworm-slim).
std::string pinned_release(const std::string& image) {
  std::smatch m;
  static const std::regex pinned("debian:(12\\.[0-9]+|bookworm-[0-9]{8})(-slim)?(@sha256:[0-9a-f]{64})?");
  return std::regex_match(image, m, pinned) ? m[1].str() : "";
}

// Debian's version syntax: [epoch:]upstream[-revision].
bool debian_version(const std::string& v) { return std::regex_match(v, std::regex("([0-9]+:)?[0-9]([A-Za-z0-9.+~-]*[A-Za-z0-9.+~])?")); }

TEST(DockerfilePins, TheRecognisersAcceptPinsOnly) {
  EXPECT_EQ(pinned_release("debian:12.11"), "12.11");
  EXPECT_EQ(pinned_release("debian:12.11-slim"), "12.11");
  EXPECT_EQ(pinned_release("debian:bookworm-20250520-slim"), "bookworm-20250520");
  EXPECT_EQ(pinned_release("debian:12.11-slim@sha256:" + std::string(64, 'a')), "12.11");
  for (const char* floating : {"debian:12", "debian:12-slim", "debian:bookworm", "debian:bookworm-slim", "debian:latest", "debian"}) {
    EXPECT_EQ(pinned_release(floating), "") << floating;
  }
  for (const char* v : {"4:12.2.0-3", "1.74.0.3", "3.0.22-1~deb12u2", "0.7.0+dfsg-8+b1", "1:1.10.0+ds-0.4", "20250419~deb12u2"}) {
    EXPECT_TRUE(debian_version(v)) << v;
  }
  for (const char* v : {"", "latest", "3.0.*", "=3.0", "1:", "1.0-"}) EXPECT_FALSE(debian_version(v)) << v;
  const auto stages = parse_dockerfile("FROM debian:12.11 AS build\nRUN apt-get install -y --no-install-recommends \\\n"
                                       "  g++=4:12.2.0-3 cmake \\\n && rm -rf x\n");
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(apt_pins(stages[0]), (std::map<std::string, std::string>{{"cmake", ""}, {"g++", "4:12.2.0-3"}}));
  EXPECT_EQ(from_image(stages[0]), "debian:12.11");
}

// No floating tag and no floating package: the image is rebuilt from the same Debian point release with
// the same package versions, or the build fails.
TEST_F(DockerfileTest, EveryBaseImageAndEveryPackageIsPinned) {
  for (const auto& stage : stages_) {
    const std::string image = from_image(stage);
    EXPECT_TRUE(!pinned_release(image).empty() || image.find("@sha256:") != std::string::npos)
        << "FROM " << stage.from << ": pin a Debian point release (debian:12.N), a dated tag (debian:bookworm-YYYYMMDD) or a digest";
    for (const auto& [name, version] : apt_pins(stage)) {
      EXPECT_TRUE(debian_version(version)) << "FROM " << stage.from << ": apt package " << name << " is not pinned to a version ("
                                           << name << "=<version>, from `apt-cache policy " << name << "`)";
    }
  }
  // One release for both stages: the runtime's libraries are the ones the build compiled against.
  EXPECT_EQ(pinned_release(from_image(build())), pinned_release(from_image(runtime())));
}

// A runtime library pinned to another version than its -dev package in the build stage would run the
// binaries against a library they were not built with. Packages of one Debian source package share a
// version; the source of each comes from dpkg on this machine (packages not installed here are skipped).
TEST_F(DockerfileTest, TheRuntimeLibrariesAreTheVersionsTheBuildCompiledAgainst) {
  const auto build_pins = apt_pins(build());
  const auto runtime_pins = apt_pins(runtime());
  std::vector<std::string> query = {"/usr/bin/env", "dpkg-query", "-W", "-f", "${Package} ${source:Package}\\n"};
  for (const auto& [name, version] : build_pins) query.push_back(name);
  for (const auto& [name, version] : runtime_pins) query.push_back(name);
  const auto r = run_process(query);  // exits 1 when a package is not installed; the rest is still printed
  std::map<std::string, std::string> source_of;
  std::stringstream lines(r.out);
  for (std::string package, source; lines >> package >> source;) source_of[package] = source;
  if (source_of.empty()) GTEST_SKIP() << "dpkg-query knows none of the packages: " << r.err;
  std::map<std::string, std::string> built;  // source package -> the version the build stage pins
  for (const auto& [name, version] : build_pins) {
    if (source_of.count(name)) built[source_of[name]] = version;
  }
  std::size_t compared = 0;
  for (const auto& [name, version] : runtime_pins) {
    if (!source_of.count(name) || !built.count(source_of[name])) continue;
    EXPECT_EQ(version, built[source_of[name]]) << name << " (source " << source_of[name] << ")";
    ++compared;
  }
  EXPECT_GE(compared, 6u) << "expected each runtime library's -dev package in the build stage";
}

TEST_F(DockerfileTest, TheImageRunsBothBinariesWhereTheChartLooksAsItsNonRootUser) {
  std::set<std::string> copied;
  std::string user;
  for (const auto& i : runtime().instructions) {
    if (i.keyword == "COPY" && i.arguments.rfind("--from=build", 0) == 0) copied.insert(i.arguments.substr(i.arguments.rfind(' ') + 1));
    if (i.keyword == "USER") user = i.arguments;
  }
  const RenderedObjects objects(helm3().render_ok({}));
  for (const char* container : {"extender", "operator"}) {
    const auto d = objects.deployment_with_container(container);
    ASSERT_TRUE(d);
    const json c = container_named((*d)["spec"]["template"]["spec"], container);
    EXPECT_TRUE(copied.count(c["command"][0].get<std::string>())) << c["command"][0] << " is not in the image";
  }
  EXPECT_TRUE(std::regex_match(user, std::regex("[1-9][0-9]*(:[0-9]+)?"))) << "USER " << user << " is not a numeric non-root user";
  const json values = apiserver_double::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
  EXPECT_EQ(user.substr(0, user.find(':')), std::to_string(values["podSecurityContext"]["runAsUser"].get<int>()));
}

TEST_F(DockerfileTest, VersionsAgreeWithTheChartAndCMake) {
  std::string version;
  for (const auto& i : runtime().instructions) {
    std::smatch m;
    if (i.keyword == "LABEL" && std::regex_search(i.arguments, m, std::regex("org\\.opencontainers\\.image\\.version=\"([^\"]+)\""))) version = m[1];
  }
  const json chart = apiserver_double::ParseYamlDocuments(read_text_file(chart_dir() + "/Chart.yaml")).front();
  EXPECT_EQ(version, chart["appVersion"]);
  EXPECT_NE(read_text_file(source_dir() + "/CMakeLists.txt").find("project(gangplank VERSION " + version), std::string::npos);
  const std::string header = read_text_file(source_dir() + "/Dockerfile");
  EXPECT_NE(header.find("ghcr.io/gangplank/gangplank:" + version), std::string::npos);
  const json values = apiserver_double::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
  EXPECT_EQ(values["image"]["repository"], "ghcr.io/gangplank/gangplank");
}

}  // namespace
}  // namespace gangplank::helm_testing
