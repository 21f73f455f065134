// The Dockerfile, checked as text (tests/real-cluster/image_test.cc builds it and starts every binary
// inside): one Debian base for every stage that installs packages, pinned to a point release, and no
// package pinned to a version (the archive drops superseded versions); a source stage whose packages are
// the project's own and whose CMake configuration, on exactly the files .dockerignore lets through,
// defines both binaries; a prebuilt stage for the binaries the tests ran; a runtime root assembled with
// the package of every shared library the binaries built here link, nothing more; a final image from
// scratch that holds the binaries where the chart runs them and runs as the chart's non-root user;
// versions that agree with Chart.yaml and CMake.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/support/yaml_json.h"
#include "tests/support/subprocess.h"
#include "tests/helm/support/helm_tool.h"
#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {
namespace {

namespace fs = std::filesystem;
using gangplank::testing::run_process;


struct Instruction {
  std::string keyword;  // upper case
  std::string arguments;
};
struct Stage {
  std::string from;  // "${DEBIAN} AS source"
  std::vector<Instruction> instructions;
};
struct Dockerfile {
  std::map<std::string, std::string> args;  // ARGs before the first FROM, with their defaults
  std::vector<Stage> stages;
};

// Dockerfile syntax as far as this one uses it: comments, backslash continuations, one instruction a line.
Dockerfile parse_dockerfile(const std::string& text) {
  Dockerfile file;
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
      file.stages.push_back({args, {}});
    } else if (!file.stages.empty()) {
      file.stages.back().instructions.push_back({keyword, args});
    } else if (keyword == "ARG") {
      const auto eq = args.find('=');
      file.args[args.substr(0, eq)] = eq == std::string::npos ? "" : args.substr(eq + 1);
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
  return file;
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

// The image of a FROM line ("${DEBIAN}" of "${DEBIAN} AS source").
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
    file_ = parse_dockerfile(read_text_file(source_dir() + "/Dockerfile"));
    for (const char* name : {"source", "prebuilt", "binaries", "rootfs"}) ASSERT_NE(Named(name), nullptr) << "no stage " << name;
  }
  // The stage "FROM ... AS name", or nullptr.
  const Stage* Named(const std::string& name) const {
    for (const auto& stage : file_.stages) {
      if (stage.from.size() > name.size() + 4 && stage.from.compare(stage.from.size() - name.size() - 4, std::string::npos, " AS " + name) == 0) {
        return &stage;
      }
    }
    return nullptr;
  }
  const Stage& source() const { return *Named("source"); }
  const Stage& rootfs() const { return *Named("rootfs"); }
  const Stage& image() const { return file_.stages.back(); }
  Dockerfile file_;
};

TEST_F(DockerfileTest, BuildsOnDebian12WithTheProjectsPackages) {
  EXPECT_EQ(from_image(source()), "${DEBIAN}");
  const std::string deps = read_text_file(source_dir() + "/scripts/install-deps.sh");
  for (const auto& pkg : apt_packages(source())) {
    EXPECT_NE(deps.find(pkg), std::string::npos) << pkg << " is not one of scripts/install-deps.sh's packages";
  }
  EXPECT_EQ(cmake_flag(source(), "GANGPLANK_BUILD_TESTS"), "OFF");
  EXPECT_EQ(cmake_flag(source(), "GANGPLANK_BUILD_BENCH"), "OFF");
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
  const std::string components = cmake_flag(source(), "GANGPLANK_COMPONENTS");
  ASSERT_FALSE(components.empty());
  const fs::path dir = fs::temp_directory_path() / ("gangplank-docker-context-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  docker_context(dir / "src");
  EXPECT_FALSE(fs::exists(dir / "src" / ".tools"));
  EXPECT_FALSE(fs::exists(dir / "src" / "tests"));
  EXPECT_EQ(cmake_flag(source(), "CMAKE_BUILD_TYPE"), "RelWithDebInfo") << "the build type the tests' binaries have";
  const auto configured = run_process({GANGPLANK_CMAKE, "-S", (dir / "src").string(), "-B", (dir / "build").string(), "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
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

TEST_F(DockerfileTest, TheRuntimeRootInstallsExactlyTheLibrariesTheBinariesLink) {
  EXPECT_EQ(from_image(rootfs()), "${DEBIAN}");
  std::set<std::string> linked = needed_packages({GANGPLANK_EXTENDER_BINARY, GANGPLANK_OPERATOR_BINARY});
  // libc6, libgcc-s1 and libstdc++6 come with the base image (apt needs them).
  for (const char* base : {"libc6", "libgcc-s1", "libstdc++6"}) linked.erase(base);
  std::set<std::string> installed = apt_packages(rootfs());
  installed.erase("ca-certificates");  // for HTTPS to the API server's CA
  EXPECT_EQ(installed, linked);
}

// The Debian release of a pinned Debian base: "12.11" of debian:12.11-slim, "bookworm-20250520" of
// debian:bookworm-20250520; "" when the tag names no point release or date (debian:12, debian:bookworm-slim).
std::string pinned_release(const std::string& image) {
  std::smatch m;
  static const std::regex pinned("(docker\\.io/(library/)?)?debian:(12\\.[0-9]+|bookworm-[0-9]{8})(-slim)?(@sha256:[0-9a-f]{64})?");
  return std::regex_match(image, m, pinned) ? m[3].str() : "";
}

TEST(DockerfilePins, TheRecogniserAcceptsAPointReleaseOrADateOnly) {
  EXPECT_EQ(pinned_release("debian:12.11"), "12.11");
  EXPECT_EQ(pinned_release("docker.io/library/debian:12.11"), "12.11");
  EXPECT_EQ(pinned_release("debian:12.11-slim"), "12.11");
  EXPECT_EQ(pinned_release("debian:bookworm-20250520-slim"), "bookworm-20250520");
  EXPECT_EQ(pinned_release("debian:12.11-slim@sha256:" + std::string(64, 'a')), "12.11");
  for (const char* floating : {"debian:12", "debian:12-slim", "debian:bookworm", "debian:bookworm-slim", "debian:latest", "debian",
                               "docker.io/library/debian:12"}) {
    EXPECT_EQ(pinned_release(floating), "") << floating;
  }
  const auto file = parse_dockerfile("ARG DEBIAN=debian:12.11\nFROM ${DEBIAN} AS build\nRUN apt-get install -y --no-install-recommends \\\n"
                                     "  g++=4:12.2.0-3 cmake \\\n && rm -rf x\n");
  ASSERT_EQ(file.stages.size(), 1u);
  EXPECT_EQ(file.args.at("DEBIAN"), "debian:12.11");
  EXPECT_EQ(apt_pins(file.stages[0]), (std::map<std::string, std::string>{{"cmake", ""}, {"g++", "4:12.2.0-3"}}));
  EXPECT_EQ(from_image(file.stages[0]), "${DEBIAN}");
}

// One base for every stage that installs packages, pinned to a Debian point release (or a dated tag or a
// digest), so the runtime's libraries are the ones the binaries were compiled against; and no package
// pinned to a version: Debian's archive keeps only the newest version in a suite, so such a pin fails
// the build at the next security update.
TEST_F(DockerfileTest, TheBaseIsPinnedToAPointReleaseAndNoPackageToAVersion) {
  ASSERT_TRUE(file_.args.count("DEBIAN"));
  const std::string base = file_.args.at("DEBIAN");
  EXPECT_TRUE(!pinned_release(base).empty() || base.find("@sha256:") != std::string::npos)
      << "ARG DEBIAN=" << base << ": pin a Debian point release (debian:12.N), a dated tag (debian:bookworm-YYYYMMDD) or a digest";
  EXPECT_EQ(base.rfind("docker.io/", 0), 0u) << "a fully qualified name: Podman refuses short names without a terminal";
  for (const auto& stage : file_.stages) {
    const std::string image = from_image(stage);
    EXPECT_TRUE(image == "${DEBIAN}" || image == "scratch" || image == "${BINARIES}") << "FROM " << stage.from;
    if (!apt_packages(stage).empty()) {
      EXPECT_EQ(image, "${DEBIAN}") << "FROM " << stage.from;
    }
    for (const auto& [name, version] : apt_pins(stage)) {
      EXPECT_EQ(version, "") << "FROM " << stage.from << ": " << name << "=" << version
                             << " vanishes from the archive with the next update; pin the base instead";
    }
  }
  const std::string text = read_text_file(source_dir() + "/Dockerfile");
  EXPECT_NE(text.find("To refresh:"), std::string::npos) << "the Dockerfile says how a platform team refreshes the pin";
}

// Both ways to the binaries end in /out, which the runtime root puts where the chart runs them; the
// image itself is that root alone (no shell, no package manager) and runs as the chart's user.
TEST_F(DockerfileTest, TheImageRunsBothBinariesWhereTheChartLooksAsItsNonRootUser) {
  EXPECT_EQ(file_.args.at("BINARIES"), "source");
  const auto copies = [](const Stage& stage) {
    std::vector<std::string> out;
    for (const auto& i : stage.instructions) {
      if (i.keyword == "COPY") out.push_back(i.arguments);
    }
    return out;
  };
  const std::string source_run = [&] {
    std::string all;
    for (const auto& i : source().instructions) all += i.arguments + "\n";
    return all;
  }();
  EXPECT_EQ(copies(*Named("prebuilt")), std::vector<std::string>{"prebuilt/gangplank-extender prebuilt/gangplank-operator /out/"});
  EXPECT_EQ(from_image(*Named("binaries")), "${BINARIES}");
  EXPECT_EQ(copies(rootfs()), std::vector<std::string>{"--from=binaries /out/ /rootfs/usr/local/bin/"});
  EXPECT_EQ(from_image(image()), "scratch");
  EXPECT_EQ(copies(image()), std::vector<std::string>{"--from=rootfs /rootfs/ /"});
  std::string user;
  for (const auto& i : image().instructions) {
    if (i.keyword == "USER") user = i.arguments;
  }
  const RenderedObjects objects(helm3().render_ok({}));
  for (const char* container : {"extender", "operator"}) {
    const auto d = objects.deployment_with_container(container);
    ASSERT_TRUE(d);
    const json c = container_named((*d)["spec"]["template"]["spec"], container);
    const std::string command = c["command"][0];
    const std::string name = command.substr(command.rfind('/') + 1);
    EXPECT_EQ(command, "/usr/local/bin/" + name);
    EXPECT_NE(source_run.find("/out/" + name + " "), std::string::npos) << name << " is not built into /out";
  }
  EXPECT_TRUE(std::regex_match(user, std::regex("[1-9][0-9]*(:[0-9]+)?"))) << "USER " << user << " is not a numeric non-root user";
  const json values = gangplank::testing::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
  EXPECT_EQ(user.substr(0, user.find(':')), std::to_string(values["podSecurityContext"]["runAsUser"].get<int>()));
}

TEST_F(DockerfileTest, VersionsAgreeWithTheChartAndCMake) {
  std::string version;
  for (const auto& i : image().instructions) {
    std::smatch m;
    if (i.keyword == "LABEL" && std::regex_search(i.arguments, m, std::regex("org\\.opencontainers\\.image\\.version=\"([^\"]+)\""))) version = m[1];
  }
  const json chart = gangplank::testing::ParseYamlDocuments(read_text_file(chart_dir() + "/Chart.yaml")).front();
  EXPECT_EQ(version, chart["appVersion"]);
  EXPECT_NE(read_text_file(source_dir() + "/CMakeLists.txt").find("project(gangplank VERSION " + version), std::string::npos);
  const std::string header = read_text_file(source_dir() + "/Dockerfile");
  EXPECT_NE(header.find("ghcr.io/gangplank/gangplank:" + version), std::string::npos);
  const json values = gangplank::testing::ParseYamlDocuments(read_text_file(chart_dir() + "/values.yaml")).front();
  EXPECT_EQ(values["image"]["repository"], "ghcr.io/gangplank/gangplank");
}

}  // namespace
}  // namespace gangplank::helm_testing
