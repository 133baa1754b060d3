// structtest: score LLM outputs with the StructTest rules. See README.md.
#include <malloc.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "structtest/checker.h"
#include "structtest/generate.h"
#include "structtest/sentences.h"
#include "structtest/suggest.h"
#include "structtest/version.h"

namespace structtest::cli {

void PrintError(std::string_view message) {
  std::fputs(fmt::format("structtest: error: {}\n", WithFlagNames(message)).c_str(), stderr);
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

CLI::Validator SeedValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return c >= '0' && c <= '9';
        });
        errno = 0;
        if (!digits || (std::strtoull(text.c_str(), nullptr, 10), errno == ERANGE)) {
          return "expected a whole number from 0 to 18446744073709551615, got '" + text + "'";
        }
        return "";
      },
      "");
}

CLI::Validator TaskListValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!SplitList(text).empty()) return "";
        // An unset shell variable ("--tasks $TASKS") must not become a run of everything.
        return "names no subtask or domain ('" + text +
               "'); leave --tasks out to choose the whole suite";
      },
      "");
}

void AddScoreJobsOption(CLI::App* cmd, int* jobs) {
  cmd->add_option(FlagNames("score_jobs"), *jobs,
                  "threads (and python3 workers) scoring the code subtasks, 1 to 1024; the "
                  "others are scored on the main thread (default: the number of cores)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            int n = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 1024) {
              return "expected a whole number from 1 to 1024, got '" + text + "'";
            }
            return "";
          },
          ""));
}

std::shared_ptr<const SentenceSplitter> LoadSentenceSplitter(const std::string& nltk_data) {
  auto loaded = LoadSentenceModel(nltk_data);
  if (!loaded.ok()) {
    PrintError(loaded.status().message());
    return nullptr;
  }
  return std::move(loaded).value();
}

std::optional<ReadRun> OpenRunToRead(const std::string& dir, const std::string& asked) {
  auto reader = RunReader::Open(dir);
  if (!reader.ok()) {
    PrintError(reader.status().message());
    return std::nullopt;
  }
  auto rules = (*reader)->ChooseRuleSet(asked);
  if (!rules.ok()) {
    PrintError(rules.status().message());
    return std::nullopt;
  }
  return ReadRun{std::move(reader).value(), *rules};
}

bool ApplySampleLimit(const std::optional<std::string>& limit, size_t* out) {
  if (!limit) return true;
  auto n = ParseSampleLimit(*limit);
  if (!n.ok()) {
    PrintError(n.status().message());
    return false;
  }
  *out = *n;
  return true;
}

bool ParseOptionalRules(const std::string& text, std::optional<RuleSet>* rules) {
  rules->reset();
  if (text.empty()) return true;
  auto parsed = ParseRuleSet(text);
  if (!parsed.ok()) {
    PrintError(parsed.status().message());
    return false;
  }
  *rules = *parsed;
  return true;
}

void PrintWarning(std::string_view message) {
  std::fputs(fmt::format("structtest: warning: {}\n", WithFlagNames(message)).c_str(), stderr);
}

void PrintNote(std::string_view message) {
  std::fputs(fmt::format("structtest: {}\n", WithFlagNames(message)).c_str(), stderr);
}

namespace {

// CLI11's help with every description wrapped at word boundaries to the terminal's
// width ($COLUMNS, else the terminal's, else 100 columns), continuation lines indented
// under the description's column.
class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter() {
    column_width(32);
    width_ = 100;
    if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0) {
      width_ = static_cast<size_t>(std::atoi(columns));
    } else if (winsize ws{}; isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
                             ws.ws_col > 0) {
      width_ = ws.ws_col;
    }
    width_ = std::max<size_t>(width_, 60);
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    return Wrap(opt->get_description(), width_ - column_width_);
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             Wrap(sub->get_description(), width_ - column_width_), column_width_);
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string text = CLI::Formatter::make_description(app);
    return Wrap(text, width_) + (text.ends_with('\n') ? "\n" : "");
  }

 private:
  // Greedy word wrap of `text` at `width` columns (existing newlines kept).
  static std::string Wrap(const std::string& text, size_t width) {
    std::string out;
    size_t line = 0;
    std::istringstream words(text);
    for (std::string paragraph; std::getline(words, paragraph, '\n');) {
      if (!out.empty()) out += '\n';
      line = 0;
      std::istringstream in(paragraph);
      for (std::string word; in >> word;) {
        // A word longer than a line (a URL, say) is cut where the line ends.
        while (word.size() > width) {
          if (line > 0) out += '\n';
          out += word.substr(0, width) + '\n';
          word.erase(0, width);
          line = 0;
        }
        if (line > 0 && line + 1 + word.size() > width) {
          out += '\n';
          line = 0;
        } else if (line > 0) {
          out += ' ';
          ++line;
        }
        out += word;
        line += word.size();
      }
    }
    return out;
  }
  size_t width_;
};

// `structtest --version`: the build's version (structtest/version.h), then each
// family's rules versions, paper and strict, in the registry's order: what a stored
// verdict names, so that a reader can tell which checkers this binary would use. A
// family whose subtasks differ lists each version once, in order ("-": none).
std::string VersionText() {
  struct Family {
    std::string domain;
    std::vector<std::string> paper, strict;
  };
  std::vector<Family> families;
  auto add = [](std::vector<std::string>& versions, const std::string& v) {
    const std::string shown = v.empty() ? "-" : v;
    if (std::find(versions.begin(), versions.end(), shown) == versions.end()) {
      versions.push_back(shown);
    }
  };
  for (const SubtaskInfo& t : Subtasks()) {
    if (families.empty() || families.back().domain != t.domain) families.push_back({t.domain});
    add(families.back().paper, t.paper_version);
    add(families.back().strict, t.strict_version);
  }
  std::string out = fmt::format("structtest {}\nrules versions:", kVersion);
  for (const Family& f : families) {
    out += fmt::format("\n  {:<14} paper {:<8} strict {}", f.domain, fmt::join(f.paper, "/"),
                       fmt::join(f.strict, "/"));
  }
  return out;
}

}  // namespace

}  // namespace structtest::cli

int main(int argc, char** argv) {
  using namespace structtest::cli;
  // Blocks of 256 KiB and more (read and write buffers, the page's chunks) are mapped
  // and given back when freed, always. glibc otherwise raises this threshold after the
  // first such block is freed, and the next ones land in the threads' heaps, which
  // then keep the space: a run's peak memory grew with its length (64-71 MB for
  // 84,000 samples where 8,400 took 57; 61-62 MB with the threshold fixed).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
  CLI::App app{"structtest: the StructTest benchmark, scored by deterministic rules",
               "structtest"};
  app.formatter(std::make_shared<WrappingFormatter>());
  app.set_version_flag("--version", VersionText());
  app.require_subcommand(1);
  int exit_code = kExitOk;
  SetupRun(app, &exit_code);
  SetupGenerate(app, &exit_code);
  SetupExport(app, &exit_code);
  SetupReport(app, &exit_code);
  SetupCompare(app, &exit_code);
  SetupCorrelate(app, &exit_code);
  SetupMerge(app, &exit_code);
  SetupRescore(app, &exit_code);
  SetupImport(app, &exit_code);
  SetupScore(app, &exit_code);
  SetupServe(app, &exit_code);
  SetupTasks(app, &exit_code);
  // A first word that is no subcommand: say so and suggest the nearest (CLI11 would
  // only say that a subcommand is required).
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    const std::string near = structtest::NearestName(argv[1], names);
    PrintError(fmt::format("unknown subcommand '{}'{}", argv[1],
                           near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
    std::fputs("run 'structtest --help' for the subcommands\n", stderr);
    return kExitFatal;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // An unknown flag: suggest the nearest flag of the subcommand it was given to.
    std::string hint;
    const std::vector<CLI::App*> used = app.get_subcommands();
    if (!used.empty() && argc > 1) {
      std::vector<std::string> flags;
      for (const CLI::Option* o : used.back()->get_options()) {
        for (const std::string& name : o->get_lnames()) flags.push_back("--" + name);
      }
      for (int i = 2; i < argc && hint.empty(); ++i) {
        const std::string arg = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
        if (!arg.starts_with("--")) continue;
        if (std::find(flags.begin(), flags.end(), arg) != flags.end()) continue;
        if (const std::string near = structtest::NearestName(arg, flags); !near.empty()) {
          hint = fmt::format(" ('{}': did you mean '{}'?)", arg, near);
        }
      }
    }
    PrintError(std::string(e.what()) + hint);
    std::fputs(fmt::format("run 'structtest {} --help' for its options\n",
                           used.empty() ? "" : used.back()->get_name())
                   .c_str(),
               stderr);
    return kExitFatal;
  } catch (const CLI::RequiredError& e) {
    const std::vector<CLI::App*> used = app.get_subcommands();
    const std::string sub = used.empty() ? "" : used.back()->get_name() + " ";
    PrintError(sub + e.what());
    std::fputs(fmt::format("run 'structtest {}--help' for its arguments\n", sub).c_str(), stderr);
    return kExitFatal;
  } catch (const CLI::ParseError& e) {
    PrintError(e.what());
    std::fputs("run 'structtest --help' for usage\n", stderr);
    return kExitFatal;
  }
  return exit_code;
}
