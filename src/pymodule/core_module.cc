// structtest._core: the C++ side of `import structtest`. Samples cross the boundary as
// the JSON text `structtest generate` writes (json.loads / json.dumps on the Python
// side, in __init__.py), so a sample means the same bytes here as in a file, and the
// field checks and their messages are the CLI's. Scoring and generating release the
// GIL; score_batch spreads the records over threads and answers structtest.Verdict
// objects, defined here.
#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "structtest/checker.h"
#include "structtest/generate.h"
#include "structtest/sample.h"
#include "structtest/scoring_pool.h"
#include "structtest/version.h"

namespace py = pybind11;

namespace structtest {
namespace {

// The checker of every call, made on first need and kept for the life of the process
// (its sentence model and python3 workers too): never destroyed, as worker threads may
// outlive main.
Checker& TheChecker() {
  static Checker* checker = new Checker;
  return *checker;
}

RuleSet RulesOrThrow(const std::string& rules) {
  auto parsed = ParseRuleSet(rules);
  if (!parsed.ok()) {
    throw py::value_error(fmt::format("rules='{}': {}", rules, parsed.status().message()));
  }
  return *parsed;
}

// structtest.Verdict: one response's verdict, as the C++ scorer gave it. Its rules are
// made into Python tuples only when asked for, so that a batch of verdicts costs one
// Python object each (a reward loop reads .passed or .score and nothing else).
struct PyVerdict {
  bool passed = false;
  std::string reason;
  std::string rules_version;
  std::optional<bool> format, accuracy;
  std::vector<RuleCheck> checks;
  double score = 0;
};

PyVerdict FromVerdict(Verdict&& v) {
  PyVerdict out;
  out.passed = v.pass;
  out.score = v.score();
  out.reason = std::move(v.reason);
  out.rules_version = std::string(v.rules_version);
  out.format = v.format;
  out.accuracy = v.accuracy;
  out.checks = std::move(v.checks);
  return out;
}

// (name, result, detail) as the JSON verdict's checks: result "pass", "fail" or
// "not-checked".
py::tuple CheckTuple(const RuleCheck& c) {
  return py::make_tuple(c.name, RuleResultName(c.result), c.detail);
}

py::list CheckList(const PyVerdict& v) {
  py::list out(v.checks.size());
  for (size_t i = 0; i < v.checks.size(); ++i) out[i] = CheckTuple(v.checks[i]);
  return out;
}

// The rule set of a verdict, as the JSON's "rules": its rules version's name ("strict"
// of "strict-3").
std::string RuleSetOf(const PyVerdict& v) {
  return v.rules_version.substr(0, v.rules_version.rfind('-'));
}

// A Verdict made in Python: checks as (name, result, detail) items.
PyVerdict MakeVerdict(bool passed, std::string reason, std::string rules_version,
                      std::optional<bool> format, std::optional<bool> accuracy,
                      const py::iterable& checks, std::optional<double> score) {
  PyVerdict v;
  v.passed = passed;
  v.reason = std::move(reason);
  v.rules_version = std::move(rules_version);
  v.format = format;
  v.accuracy = accuracy;
  for (const py::handle item : checks) {
    std::tuple<std::string, std::string, std::string> t;
    try {
      t = py::cast<std::tuple<std::string, std::string, std::string>>(item);
    } catch (const py::cast_error&) {
      throw py::type_error(fmt::format("checks: expected (name, result, detail) items, got {}",
                                       py::repr(item).cast<std::string>()));
    }
    const std::string& result = std::get<1>(t);
    RuleCheck::Result r;
    if (result == "pass") {
      r = RuleCheck::Result::kPass;
    } else if (result == "fail") {
      r = RuleCheck::Result::kFail;
    } else if (result == "not-checked") {
      r = RuleCheck::Result::kNotChecked;
    } else {
      throw py::value_error(fmt::format(
          "checks: the result of {} is '{}', not pass, fail or not-checked", std::get<0>(t),
          result));
    }
    v.checks.push_back({std::get<0>(t), r, std::get<2>(t)});
  }
  v.score = score ? *score : (passed ? 1.0 : 0.0);
  return v;
}

bool SameChecks(const PyVerdict& a, const PyVerdict& b) {
  if (a.checks.size() != b.checks.size()) return false;
  for (size_t i = 0; i < a.checks.size(); ++i) {
    const RuleCheck& x = a.checks[i];
    const RuleCheck& y = b.checks[i];
    if (x.name != y.name || x.result != y.result || x.detail != y.detail) return false;
  }
  return true;
}

// *out = the UTF-8 Python keeps with `o` (an exact str); false when it is not a str or
// holds a lone surrogate.
bool Utf8(PyObject* o, std::string_view* out) {
  if (!PyUnicode_CheckExact(o)) return false;
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(o, &size);
  if (text == nullptr) {
    PyErr_Clear();
    return false;
  }
  *out = std::string_view(text, static_cast<size_t>(size));
  return true;
}

// *out = `o` as JSON, for the plain values json.dumps writes as they are: dict (str
// keys), list, tuple, str, int (64 bits), finite float, bool, None. False for anything
// else (another type or a subclass, a key that is not a str, a string that is not
// UTF-8, a huge int, NaN, nesting past 256): such a sample goes through json.dumps, as
// every sample once did, so that its text and its errors are what they were. With
// `out` null, only says whether it could.
bool PlainJson(PyObject* o, nlohmann::json* out, int depth = 0) {
  if (depth > 256) return false;
  if (o == Py_None) {
    if (out) *out = nullptr;
  } else if (o == Py_True || o == Py_False) {
    if (out) *out = o == Py_True;
  } else if (PyUnicode_CheckExact(o)) {
    std::string_view text;
    if (!Utf8(o, &text)) return false;
    if (out) *out = std::string(text);
  } else if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (out) *out = static_cast<int64_t>(v);
    } else {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (out) *out = static_cast<uint64_t>(u);
    }
  } else if (PyFloat_CheckExact(o)) {
    const double v = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(v)) return false;
    if (out) *out = v;
  } else if (PyDict_CheckExact(o)) {
    if (out) *out = nlohmann::json::object();
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &key, &value)) {
      std::string_view name;
      if (!Utf8(key, &name) ||
          !PlainJson(value, out ? &(*out)[std::string(name)] : nullptr, depth + 1)) {
        return false;
      }
    }
  } else if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (out) {
      *out = nlohmann::json::array();
      out->get_ref<nlohmann::json::array_t&>().resize(static_cast<size_t>(n));
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!PlainJson(PySequence_Fast_GET_ITEM(o, i),
                     out ? &(*out)[static_cast<size_t>(i)] : nullptr, depth + 1)) {
        return false;
      }
    }
  } else {
    return false;
  }
  return true;
}

// *out = the sample a plain dict holds, read field by field as SampleFromJson reads its
// JSON, without building the JSON of the whole dict first. Its target is only checked
// to be JSON, as the fields a sample does not have are (no checker reads it), and so
// are its messages (the prompt, most of a summarization sample) unless `with_prompt`:
// only strict checkers read them (strict summarization compares the answer with the
// document), as SampleFromJsonText's `with_prompt` says. False (and *out to be thrown
// away) on anything SampleFromJson would refuse or json.dumps would have to write:
// that sample takes the way that names the problem.
bool SampleFromDict(PyObject* dict, bool with_prompt, Sample* out) {
  const auto text = [](PyObject* o, std::string* to) {
    std::string_view t;
    if (!Utf8(o, &t)) return false;
    to->assign(t);
    return true;
  };
  const auto object = [](PyObject* o, nlohmann::json* to) {
    if (o == Py_None) return true;  // as a missing one: {}
    return PyDict_CheckExact(o) && PlainJson(o, to, 1);
  };
  bool id = false, domain = false, subtask = false;
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    std::string_view name;
    if (!Utf8(key, &name)) return false;
    bool ok = true;
    if (name == "id") {
      ok = id = text(value, &out->id);
    } else if (name == "domain") {
      ok = domain = text(value, &out->domain);
    } else if (name == "subtask") {
      ok = subtask = text(value, &out->subtask);
    } else if (name == "params") {
      ok = object(value, &out->params);
    } else if (name == "context") {
      ok = object(value, &out->context);
    } else if (name == "messages") {
      if (value == Py_None) continue;
      if (!PyList_CheckExact(value)) return false;
      const Py_ssize_t n = PyList_GET_SIZE(value);
      if (with_prompt) out->messages.resize(static_cast<size_t>(n));
      for (Py_ssize_t i = 0; i < n && ok; ++i) {
        PyObject* m = PyList_GET_ITEM(value, i);
        if (!PyDict_CheckExact(m) || !PlainJson(m, nullptr, 2)) return false;
        PyObject* role = PyDict_GetItemString(m, "role");
        PyObject* content = PyDict_GetItemString(m, "content");
        if (role == nullptr || content == nullptr) return false;
        if (with_prompt) {
          Message& msg = out->messages[static_cast<size_t>(i)];
          ok = text(role, &msg.role) && text(content, &msg.content);
        } else {
          ok = PyUnicode_CheckExact(role) && PyUnicode_CheckExact(content);
        }
      }
    } else {
      ok = PlainJson(value, nullptr, 1);
    }
    if (!ok) return false;
  }
  return id && domain && subtask;
}

// The verdicts of (samples[i], responses[i]), in order, on up to `threads` threads (0:
// every core) without the GIL, and the index and error of the first record that could
// not be scored (-1 and "" when none). A sample is its JSON text or a dict; a dict is read as
// it is when PlainJson can, else as json.dumps writes it; None when json.dumps cannot
// (the caller's careful path names the sample and the problem).
//
// The calling thread reads the samples a chunk at a time (it needs the GIL for that)
// while the other threads score what is read; then it scores too. Reading them all
// first, before any was scored, made glibc's malloc spend 40% of the time consolidating
// the nodes freed after scoring (perf, math_easy).
py::object ScoreBatch(const py::list& samples, const py::list& responses,
                      const std::string& rules, int threads) {
  const size_t n = samples.size();
  if (n != responses.size()) {
    throw py::value_error(fmt::format("{} samples but {} responses: one response per sample",
                                      n, responses.size()));
  }
  if (threads < 0) throw py::value_error(fmt::format("threads={}: expected 0 (every core) or more", threads));
  const RuleSet rule_set = RulesOrThrow(rules);
  constexpr size_t kChunk = 64;
  // A record as read: its sample from its dict (SampleFromDict), or its JSON, or its
  // text when it came (or had to go) as text; then its verdict or its error. Texts are
  // the UTF-8 that Python keeps with each str (the lists hold them meanwhile): copying
  // them made malloc's work a third of the time. What a record holds in itself is kept
  // small (pointers): the slots of a large batch are new memory at every call, and each
  // page of it costs a page fault (a third of the time, by perf, when the samples and
  // verdicts were held in the slots themselves).
  struct Slot {
    std::unique_ptr<Sample> sample;       // read from its dict
    std::unique_ptr<nlohmann::json> json;  // its JSON, read from a dict
    std::string_view text;                // its text, when text.data() != nullptr
    std::string_view answer;
    std::unique_ptr<PyVerdict> verdict;
    std::unique_ptr<std::string> error;
  };
  std::vector<Slot> slots(n);
  // Threads take the records a block at a time, so that the counters and flags they
  // share are touched once a block rather than once a record.
  constexpr size_t kBlock = 16;
  static_assert(kChunk % kBlock == 0);
  const size_t blocks = (n + kBlock - 1) / kBlock;
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[blocks]());  // scored
  std::vector<std::string> dumped;  // the texts json.dumps wrote
  dumped.reserve(n);
  const auto score_one = [&](size_t i) {
    Slot& r = slots[i];
    if (r.error) return;  // found while reading
    bool not_json = false;
    std::optional<StatusOr<Sample>> parsed;  // a sample not read from its dict
    if (!r.sample) {
      parsed.emplace(r.text.data() != nullptr
                         ? SampleFromJsonText(r.text, &not_json, /*with_prompt=*/true)
                         : SampleFromJson(std::move(*r.json)));
    }
    std::string error;
    if (not_json) {
      error = "the sample is not JSON";
    } else if (parsed && !parsed->ok()) {
      error = parsed->status().message();
    } else if (auto v = TheChecker().Check(parsed ? **parsed : *r.sample, r.answer, rule_set);
               !v.ok()) {
      error = v.status().message();
    } else {
      r.verdict = std::make_unique<PyVerdict>(FromVerdict(std::move(v).value()));
    }
    if (!r.verdict) r.error = std::make_unique<std::string>(std::move(error));
  };
  const auto block_end = [&](size_t b) { return std::min(n, (b + 1) * kBlock); };
  const auto score = [&](size_t b) {
    for (size_t i = b * kBlock; i < block_end(b); ++i) score_one(i);
    done[b].store(true, std::memory_order_release);
  };
  // The samples read from dicts are freed by the thread that made them (this one), as
  // soon as they are scored: freed by the scoring threads, or all at the end, the
  // memory they held came back slowly and new memory was faulted in (threads=2 ran at
  // a third of threads=1's rate on math_easy, perf: malloc and page faults).
  size_t reclaimed = 0;  // blocks
  const auto reclaim = [&] {
    for (; reclaimed < blocks && done[reclaimed].load(std::memory_order_acquire); ++reclaimed) {
      for (size_t i = reclaimed * kBlock; i < block_end(reclaimed); ++i) slots[i].sample.reset();
    }
  };
  size_t workers = threads == 0 ? static_cast<size_t>(DefaultScoreJobs())
                                : static_cast<size_t>(threads);
  workers = std::max<size_t>(1, std::min(workers, blocks));
  // The other threads (a ScoringPool of workers - 1, this thread being the last) start
  // once scoring has taken longer than reading (which only this thread can do, holding
  // the GIL): before, the calling thread scores each chunk itself. Records that score in
  // a microsecond or two (math) are then never handed over, which cost more than it
  // saved (threads=2 at 0.7 of threads=1 on math_easy); summarization, HTML and code
  // records are. Once it has started, each chunk read is a batch of the pool, a block
  // a record of it.
  std::chrono::steady_clock::duration reading{}, scoring{};
  std::optional<ScoringPool> pool;  // after what its threads use: it goes first
  std::vector<ScoringPool::Batch> chunks;  // the chunks read once the pool started
  size_t helped = 0;  // chunks[0, helped) have no block left to take
  const auto finish = [&](bool all_read) {
    py::gil_scoped_release release;
    for (const ScoringPool::Batch& chunk : chunks) {
      if (!all_read) pool->Cancel(chunk);
      pool->Wait(chunk, ScoringPool::Clock::time_point::max(), /*help=*/all_read);
    }
    pool.reset();
  };
  py::object dumps;
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t end = std::min(n, begin + kChunk);
    const auto read_start = std::chrono::steady_clock::now();
    for (size_t i = begin; i < end; ++i) {
      Slot& r = slots[i];
      if (!Utf8(PyList_GET_ITEM(responses.ptr(), static_cast<Py_ssize_t>(i)), &r.answer)) {
        r.error = std::make_unique<std::string>(
            "the response is not text that UTF-8 can carry (a lone surrogate?)");
        continue;
      }
      PyObject* item = PyList_GET_ITEM(samples.ptr(), static_cast<Py_ssize_t>(i));
      const bool dict = PyDict_CheckExact(item);
      if (dict) {
        r.sample = std::make_unique<Sample>();
        if (SampleFromDict(item, /*with_prompt=*/rule_set == RuleSet::kStrict, r.sample.get())) {
          continue;
        }
        r.sample.reset();
      }
      if (PyUnicode_CheckExact(item)) {
        if (!Utf8(item, &r.text)) {
          r.error = std::make_unique<std::string>(
              "the sample text is not text that UTF-8 can carry (a lone surrogate?)");
        }
      } else {
        if (dict) {
          r.json = std::make_unique<nlohmann::json>();
          if (PlainJson(item, r.json.get())) continue;
          r.json.reset();
        }
        try {
          if (!dumps) dumps = py::module_::import("json").attr("dumps");
          r.text = dumped.emplace_back(
              dumps(py::reinterpret_borrow<py::object>(item)).cast<std::string>());
        } catch (const py::error_already_set&) {
          finish(/*all_read=*/false);
          return py::none();
        }
      }
    }
    if (!pool) {  // no other thread: score the chunk here
      const auto score_start = std::chrono::steady_clock::now();
      py::gil_scoped_release release;
      for (size_t b = begin / kBlock; b * kBlock < end; ++b) score(b);
      const auto scored = std::chrono::steady_clock::now();
      reading += score_start - read_start;
      scoring += scored - score_start;
      if (workers > 1 && end < n && scoring > reading) {
        pool.emplace(ScoringPoolOptions{.threads = static_cast<int>(workers - 1)});
      }
    } else {
      const size_t first = begin / kBlock;
      auto chunk = pool->Submit((end - begin + kBlock - 1) / kBlock,
                                [&score, first](size_t b) { score(first + b); });
      assert(chunk.ok() && "an unbounded pool refused a chunk");
      chunks.push_back(std::move(chunk).value());
      // Scores what the other threads have not taken of the chunks before this one,
      // so that reading never runs far ahead of scoring (every sample read and not
      // scored holds memory).
      py::gil_scoped_release release;
      for (; helped + 1 < chunks.size(); ++helped) pool->Help(chunks[helped]);
    }
    reclaim();
  }
  finish(/*all_read=*/true);
  for (size_t i = 0; i < n; ++i) {
    if (slots[i].error) return py::make_tuple(py::none(), i, *slots[i].error);
  }
  py::list out(n);
  for (size_t i = 0; i < n; ++i) out[i] = py::cast(std::move(slots[i].verdict));
  return py::make_tuple(out, -1, "");
}

std::vector<std::string> Generate(const std::string& suite, uint64_t seed, double size,
                                  std::vector<std::string> tasks, std::optional<size_t> limit,
                                  const std::string& split, int rules_per_sample,
                                  const std::string& difficulty) {
  GenerateOptions options;
  options.rules_per_sample = rules_per_sample;
  options.difficulty = difficulty;
  options.split = split;
  options.suite = suite;
  options.seed = seed;
  options.size = size;
  options.tasks = std::move(tasks);
  if (limit) {
    if (*limit == 0) throw py::value_error("limit=0: expected a positive number of samples");
    options.limit = *limit;
  }
  std::vector<std::string> lines;
  std::optional<std::string> error;
  {
    py::gil_scoped_release release;
    auto samples = GenerateSuite(options);
    if (!samples.ok()) {
      error = samples.status().message();
    } else {
      lines.reserve(samples->size());
      for (const Sample& sample : *samples) {
        std::string line;
        AppendSampleJson(sample, &line);
        lines.push_back(std::move(line));
      }
    }
  }
  if (error) throw py::value_error(*error);
  return lines;
}

py::list SubtaskList() {
  py::list out;
  for (const SubtaskInfo& info : Subtasks()) {
    py::dict d;
    d["domain"] = info.domain;
    d["name"] = info.name;
    d["split"] = info.split;
    d["description"] = info.description;
    d["params"] = info.params;
    d["paper_version"] = info.paper_version;
    d["strict_version"] = info.strict_version;
    d["counts_sentences"] = info.counts_sentences;
    d["runs_python"] = info.runs_python;
    d["paper_rules"] = info.paper_rules;
    d["strict_rules"] = info.strict_rules;
    out.append(d);
  }
  return out;
}

}  // namespace
}  // namespace structtest

PYBIND11_MODULE(_core, m) {
  m.doc() = "structtest's C++ core; use the structtest package, not this module";
  m.attr("__version__") = structtest::kVersion;
  using structtest::PyVerdict;
  py::class_<PyVerdict>(m, "Verdict", R"(One response's verdict under one rule set.

passed: whether the response follows every rule; reason: why, for a person; rules: the
rule set ("paper" or "strict"); rules_version: the checker version that decided (e.g.
"strict-3"); checks: every rule of the subtask as (name, result, detail), result "pass",
"fail" or "not-checked" (a rule the checker did not reach after a failed one), the rules
decided first, as the JSON verdict's "checks"; score: rules passed / rules listed (1.0 on
a pass), the partial credit; format and accuracy: math only, the paper's two halves of a
pass (None elsewhere).)")
      .def(py::init(&structtest::MakeVerdict), py::arg("passed"), py::arg("reason"),
           py::arg("rules_version"), py::arg("format") = py::none(),
           py::arg("accuracy") = py::none(), py::arg("checks") = py::tuple(),
           py::arg("score") = py::none())
      .def_readonly("passed", &PyVerdict::passed)
      .def_readonly("reason", &PyVerdict::reason)
      .def_readonly("rules_version", &PyVerdict::rules_version)
      .def_readonly("format", &PyVerdict::format)
      .def_readonly("accuracy", &PyVerdict::accuracy)
      .def_readonly("score", &PyVerdict::score)
      .def_property_readonly("rules", &structtest::RuleSetOf)
      .def_property_readonly("checks", &structtest::CheckList)
      .def("__bool__", [](const PyVerdict& v) { return v.passed; })
      .def("__eq__",
           [](const PyVerdict& a, const py::object& other) -> py::object {
             if (!py::isinstance<PyVerdict>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             const PyVerdict& b = other.cast<const PyVerdict&>();
             return py::bool_(a.passed == b.passed && a.reason == b.reason &&
                              a.rules_version == b.rules_version && a.format == b.format &&
                              a.accuracy == b.accuracy && a.score == b.score &&
                              structtest::SameChecks(a, b));
           })
      .def("__repr__",
           [](const PyVerdict& v) {
             return fmt::format("Verdict(passed={}, reason={}, rules_version={}, score={})",
                                v.passed ? "True" : "False",
                                py::repr(py::str(v.reason)).cast<std::string>(),
                                py::repr(py::str(v.rules_version)).cast<std::string>(),
                                py::repr(py::float_(v.score)).cast<std::string>());
           })
      .def(py::pickle(
          [](const PyVerdict& v) {
            return py::make_tuple(v.passed, v.reason, v.rules_version, v.format, v.accuracy,
                                  structtest::CheckList(v), v.score);
          },
          [](const py::tuple& t) {
            if (t.size() != 7) throw std::runtime_error("Verdict: a pickled state of 7 fields expected");
            return structtest::MakeVerdict(t[0].cast<bool>(), t[1].cast<std::string>(),
                                           t[2].cast<std::string>(),
                                           t[3].cast<std::optional<bool>>(),
                                           t[4].cast<std::optional<bool>>(),
                                           t[5].cast<py::iterable>(),
                                           t[6].cast<std::optional<double>>());
          }));
  m.def("score_batch", &structtest::ScoreBatch, py::arg("samples"), py::arg("responses"),
        py::arg("rules"), py::arg("threads"));
  m.def("generate", &structtest::Generate, py::arg("suite"), py::arg("seed"), py::arg("size"),
        py::arg("tasks"), py::arg("limit"), py::arg("split"), py::arg("rules_per_sample"),
        py::arg("difficulty"));
  m.def("subtasks", &structtest::SubtaskList);
  m.def("split_thinking", [](const std::string& text) {
    const structtest::Response r = structtest::SplitThinking(text);
    return std::make_pair(r.text, r.reasoning);
  });
}

