// structtest: score LLM outputs with the StructTest rules. See README.md.
#include <malloc.h>

#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "tasks/suite.h"

namespace structtest::cli {

void PrintError(std::string_view message) {
  std::fputs(fmt::format("structtest: error: {}\n", message).c_str(), stderr);
}

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

bool ApplySampleLimit(const std::optional<std::string>& limit, SuiteOptions* suite) {
  if (!limit) return true;
  auto n = ParseSampleLimit(*limit);
  if (!n.ok()) {
    PrintError(n.status().message());
    return false;
  }
  suite->limit = *n;
  return true;
}

void PrintWarning(std::string_view message) {
  std::fputs(fmt::format("structtest: warning: {}\n", message).c_str(), stderr);
}

void PrintNote(std::string_view message) {
  std::fputs(fmt::format("structtest: {}\n", message).c_str(), stderr);
}

}  // namespace structtest::cli

int main(int argc, char** argv) {
  using namespace structtest::cli;
  // Blocks of 256 KiB and more (read and write buffers, the page's chunks) are mapped
  // and given back when freed, always. glibc otherwise raises this threshold after the
  // first such block is freed, and the next ones land in the threads' heaps, which
  // then keep the space: a run's peak memory grew with its length (64-71 MB for
  // 84,000 samples where 8,400 took 57; 61-62 MB with the threshold fixed).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
  CLI::App app{"structtest: the StructTest benchmark, scored by deterministic rules"};
  app.set_version_flag("--version", std::string("structtest ") + STRUCTTEST_VERSION);
  app.require_subcommand(1);
  int exit_code = kExitOk;
  SetupRun(app, &exit_code);
  SetupGenerate(app, &exit_code);
  SetupExport(app, &exit_code);
  SetupReport(app, &exit_code);
  SetupCompare(app, &exit_code);
  SetupCorrelate(app, &exit_code);
  SetupMerge(app, &exit_code);
  SetupScore(app, &exit_code);
  SetupTasks(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    PrintError(e.what());
    std::fputs("run 'structtest --help' for usage\n", stderr);
    return kExitFatal;
  }
  return exit_code;
}
