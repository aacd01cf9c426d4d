//===- Module.cpp - The proofc._core extension module ---------------------===//
//
// Bindings only: proofc.Error (every proofc::Error; proofc::Interrupted
// becomes KeyboardInterrupt), the Evaluator class with its keyword
// arguments, and the module's constants. The behaviour is in Evaluator.cpp
// and the files it names; the Python-facing documentation in
// docs/python.md.
//
//===----------------------------------------------------------------------===//
#include "Evaluator.h"
#include "Results.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/RankMetrics.h"
#include "proofc/runtime/RunControl.h"

#include <pybind11/stl.h>

#include "proofc/runtime/Session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;
using proofc::kMaxBootstrapSamples;
using proofc::kMaxMemoEntries;
using proofc::kMaxUnroll;
using proofc::kMaxWorkersPerDevice;
using proofc::SessionOptions;
using proofc::validMemoEntries;
using proofc::python::Evaluator;

namespace {

/// The type's name and the value's repr, for a TypeError's message.
std::string described(const py::handle &value) {
  return fmt::format("{} {}",
                     std::string(py::str(py::type::of(value).attr("__name__"))),
                     std::string(py::str(py::repr(value))));
}

std::string reprOf(const py::handle &value) { return py::str(py::repr(value)); }

/// An int keyword in [lo, hi]: the command line's rule for the same flag
/// (tools/common/RunFlags.cpp), with the same message but the keyword's
/// name. A bool, a float, a str is a TypeError naming the keyword.
int64_t integerArg(const py::handle &value, const char *name, int64_t lo,
                   int64_t hi) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
    throw py::type_error(
        fmt::format("{}: expected an int, got {}", name, described(value)));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0 || v < lo || v > hi)
    throw py::value_error(fmt::format("{}: {} is out of range [{}, {}]", name,
                                      reprOf(value), lo, hi));
  return v;
}

/// The same for a seed: 0 to 2^64 - 1.
uint64_t seedArg(const py::handle &value, const char *name) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
    throw py::type_error(
        fmt::format("{}: expected an int, got {}", name, described(value)));
  const unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(fmt::format("{}: {} is out of range [0, {}]", name,
                                      reprOf(value),
                                      std::numeric_limits<uint64_t>::max()));
  }
  return v;
}

bool boolArg(const py::handle &value, const char *name) {
  if (!PyBool_Check(value.ptr()))
    throw py::type_error(
        fmt::format("{}: expected a bool, got {}", name, described(value)));
  return value.ptr() == Py_True;
}

/// A str keyword that must be one of `choices`.
std::string choiceArg(const py::handle &value, const char *name,
                      std::initializer_list<const char *> choices) {
  if (!PyUnicode_Check(value.ptr()))
    throw py::type_error(
        fmt::format("{}: expected a str, got {}", name, described(value)));
  const std::string text = py::str(value);
  std::vector<std::string> quoted;
  for (const char *choice : choices) {
    if (text == choice)
      return text;
    quoted.push_back(fmt::format("'{}'", choice));
  }
  throw py::value_error(fmt::format("{}: {} is not one of {}", name,
                                    reprOf(value), fmt::join(quoted, ", ")));
}

/// A path keyword (str, bytes or os.PathLike).
std::string pathArg(const py::handle &value, const char *name) {
  if (!PyUnicode_Check(value.ptr()) && !PyBytes_Check(value.ptr()) &&
      !py::hasattr(value, "__fspath__"))
    throw py::type_error(
        fmt::format("{}: expected a path (str or os.PathLike), got {}", name,
                    described(value)));
  const py::module_ os = py::module_::import("os");
  return py::str(os.attr("fsdecode")(os.attr("fspath")(value)));
}

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

/// The keywords Evaluator takes besides the bundle.
constexpr const char *kKeywords[] = {
    "data",           "split",        "queries",
    "corruptions",    "seed",         "facts",
    "device",         "threads",      "cond",
    "unroll",         "memo_entries", "max_pool",
    "hits",           "per_relation", "bootstrap",
    "bootstrap_seed", "devices",      "workers_per_device",
    "shared_lists"};

/// The Python keywords, mapped onto SessionOptions with the command line's
/// rules (docs/options.md): every keyword is checked here, so that no
/// pybind11 conversion error reaches the user. None: the default.
SessionOptions sessionOptions(const py::kwargs &kw) {
  for (auto item : kw) {
    const std::string name = py::str(item.first);
    if (std::none_of(std::begin(kKeywords), std::end(kKeywords),
                     [&](const char *k) { return name == k; }))
      throw py::type_error(
          fmt::format("{}: not a keyword of proofc.Evaluator", name));
  }
  auto given = [&](const char *name) -> py::object {
    if (!kw.contains(name))
      return py::none();
    return kw[name];
  };
  SessionOptions o;
  if (given("data").is_none())
    throw py::type_error("data: the dataset directory is required");
  o.data = pathArg(given("data"), "data");
  if (py::object v = given("split"); !v.is_none())
    o.split = choiceArg(v, "split", {"train", "valid", "test"});
  if (py::object v = given("queries"); !v.is_none())
    o.queries = integerArg(v, "queries", kInt64Min, kInt64Max);
  if (py::object v = given("corruptions"); !v.is_none())
    o.corruptions = integerArg(v, "corruptions", kInt64Min, kInt64Max);
  if (py::object v = given("seed"); !v.is_none())
    o.seed = seedArg(v, "seed");
  if (py::object v = given("facts"); !v.is_none())
    o.factsIncludeValid =
        choiceArg(v, "facts", {"train", "train+valid"}) == "train+valid";
  if (py::object v = given("device"); !v.is_none()) {
    if (!PyUnicode_Check(v.ptr()))
      throw py::type_error(
          fmt::format("device: expected a str, got {}", described(v)));
    o.device = py::str(v); // cpu, cuda, cuda:N, auto: openDevice checks it
  }
  if (py::object v = given("devices"); !v.is_none()) {
    // "all", "0,1", or a sequence of CUDA ordinals: --devices' forms.
    if (PyUnicode_Check(v.ptr())) {
      o.devices = py::str(v);
    } else if (!PyBytes_Check(v.ptr()) && py::isinstance<py::iterable>(v)) {
      std::vector<std::string> ordinals;
      for (py::handle d : v)
        ordinals.push_back(
            std::to_string(integerArg(d, "devices", 0, kIntMax)));
      o.devices = fmt::format("{}", fmt::join(ordinals, ","));
      if (o.devices.empty())
        throw py::value_error("devices: empty (give 'all', or CUDA ordinals "
                              "such as [0, 1])");
    } else {
      throw py::type_error(fmt::format("devices: expected 'all', a str such "
                                       "as '0,1' or a sequence of ints, got {}",
                                       described(v)));
    }
    // The command line's rules, before any device is opened (Session.h).
    if (o.device != "cuda" && o.device != "auto")
      throw py::value_error(fmt::format(
          "devices {}: several devices are CUDA devices; give device='cuda' "
          "(or leave device out), not device={}",
          reprOf(v), reprOf(given("device"))));
    try {
      if (o.devices != "all")
        proofc::parseDeviceList(o.devices, std::numeric_limits<int>::max());
    } catch (const proofc::Error &e) {
      throw py::value_error(e.what());
    }
  }
  if (py::object v = given("workers_per_device"); !v.is_none())
    o.workersPerDevice = static_cast<int>(
        integerArg(v, "workers_per_device", 0, kMaxWorkersPerDevice));
  if (py::object v = given("threads"); !v.is_none())
    o.threads = static_cast<int>(integerArg(v, "threads", 0, kIntMax));
  if (py::object v = given("cond"); !v.is_none())
    o.cond = choiceArg(v, "cond", {"native", "emulated", "host"});
  if (py::object v = given("unroll"); !v.is_none())
    o.unroll = static_cast<int>(integerArg(v, "unroll", 1, kMaxUnroll));
  if (py::object v = given("memo_entries"); !v.is_none()) {
    o.memoEntries = integerArg(v, "memo_entries", -1, kMaxMemoEntries);
    if (!validMemoEntries(o.memoEntries))
      throw py::value_error(fmt::format(
          "memo_entries: {} is not -1, 0 or a power of two", o.memoEntries));
  }
  if (py::object v = given("max_pool"); !v.is_none())
    o.maxPool = integerArg(v, "max_pool", kInt64Min, kInt64Max);
  if (py::object v = given("shared_lists"); !v.is_none())
    o.shareLists = boolArg(v, "shared_lists");
  if (py::object v = given("hits"); !v.is_none()) {
    if (PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()) ||
        !py::isinstance<py::iterable>(v))
      throw py::type_error(fmt::format(
          "hits: expected a sequence of ints, got {}", described(v)));
    std::vector<int64_t> ks;
    for (py::handle k : v)
      ks.push_back(integerArg(k, "hits", kInt64Min, kInt64Max));
    try { // the command line's rule (--hits), with its message
      o.rankMetrics.hits = proofc::normalizeHits(ks, "hits");
    } catch (const proofc::Error &e) {
      throw py::value_error(e.what());
    }
  }
  if (py::object v = given("per_relation"); !v.is_none())
    o.rankMetrics.perRelation = boolArg(v, "per_relation");
  if (py::object v = given("bootstrap"); !v.is_none())
    o.rankMetrics.bootstrapSamples =
        integerArg(v, "bootstrap", 0, kMaxBootstrapSamples);
  if (py::object v = given("bootstrap_seed"); !v.is_none())
    o.rankMetrics.bootstrapSeed = seedArg(v, "bootstrap_seed");
  // The report's provenance names what ran: this interpreter's argv.
  py::module_ sys = py::module_::import("sys");
  if (py::hasattr(sys, "argv"))
    for (py::handle arg : sys.attr("argv"))
      o.commandLine.push_back(py::str(arg));
  return o;
}

/// The defaults of every keyword: SessionOptions' (one set for the
/// runtime, the command line and Python; docs/options.md).
py::dict defaults() {
  const SessionOptions o;
  py::dict d;
  d["split"] = o.split;
  d["queries"] = py::none(); // SessionOptions::queries < 0: all
  d["corruptions"] = o.corruptions;
  d["seed"] = o.seed;
  d["facts"] = o.factsIncludeValid ? "train+valid" : "train";
  d["device"] = o.device;
  d["devices"] = py::none(); // SessionOptions::devices empty: `device`
  d["workers_per_device"] = o.workersPerDevice;
  d["threads"] = o.threads;
  d["cond"] = o.cond;
  d["unroll"] = o.unroll;
  d["memo_entries"] = o.memoEntries;
  d["max_pool"] = o.maxPool;
  d["shared_lists"] = o.shareLists;
  d["hits"] = py::tuple(py::cast(o.rankMetrics.hits));
  d["per_relation"] = o.rankMetrics.perRelation;
  d["bootstrap"] = o.rankMetrics.bootstrapSamples;
  d["bootstrap_seed"] = o.rankMetrics.bootstrapSeed;
  return d;
}

/// The ranges of the integer keywords: the flags' (RunFlags.cpp).
py::dict limits() {
  const uint64_t seedMax = std::numeric_limits<uint64_t>::max();
  py::dict l;
  l["queries"] = py::make_tuple(kInt64Min, kInt64Max);
  l["corruptions"] = py::make_tuple(kInt64Min, kInt64Max);
  l["seed"] = py::make_tuple(0, seedMax);
  l["threads"] = py::make_tuple(0, kIntMax);
  l["workers_per_device"] = py::make_tuple(0, kMaxWorkersPerDevice);
  l["unroll"] = py::make_tuple(1, kMaxUnroll);
  l["memo_entries"] = py::make_tuple(-1, kMaxMemoEntries);
  l["max_pool"] = py::make_tuple(kInt64Min, kInt64Max);
  l["bootstrap"] = py::make_tuple(0, kMaxBootstrapSamples);
  l["bootstrap_seed"] = py::make_tuple(0, seedMax);
  return l;
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "proofc's runtime for Python: proofc.Evaluator binds a compiled "
            "program, a dataset, its candidates and a device once and "
            "evaluates any number of weight sets (docs/python.md).";

  // proofc.Error is the package's one exception (python/proofc/errors.py):
  // the runtime's errors are a subclass of it, so one `except proofc.Error`
  // catches both. Without errors.py, this class is proofc.Error.
  py::object base = py::reinterpret_borrow<py::object>(PyExc_Exception);
  try {
    base = py::module_::import("proofc.errors").attr("Error");
  } catch (py::error_already_set &e) {
    if (!e.matches(PyExc_ImportError))
      throw;
  }
  static py::exception<proofc::Error> error(m, "Error", base.ptr());
  error.doc() = "An error of proofc's runtime (bad input, I/O, device).";
  // Registered after Error's, so tried first: a cancelled call is Ctrl-C.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const proofc::Interrupted &e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const proofc::Error &e) {
      error(e.what());
    }
  });

  m.attr("STATUS_NAMES") = py::make_tuple("proved", "failed", "truncated");
  m.attr("MODE_NAMES") = py::make_tuple("head", "tail");
  m.attr("DEFAULTS") = defaults();
  m.attr("LIMITS") = limits();

  proofc::python::defineEvaluationResult(m);

  proofc::python::bindSearch(m);
  py::class_<Evaluator>(m, "Evaluator", py::dynamic_attr())
      .def(py::init([](const py::object &bundle, const py::kwargs &kw) {
             return std::make_unique<Evaluator>(pathArg(bundle, "bundle"),
                                                sessionOptions(kw));
           }),
           py::arg("bundle"),
           "Binds the bundle (a .pcb written by `proofc compile`), the "
           "dataset directory `data`, the candidates and the device once; "
           "the keywords, their defaults (DEFAULTS) and ranges (LIMITS) are "
           "the command line's (docs/options.md).")
      .def("expected_tensors", &Evaluator::expectedTensors,
           "{name: (shape, 'float32')} of every tensor evaluate() needs.")
      .def("evaluate", &Evaluator::evaluate, py::arg("weights"),
           py::arg("progress") = py::none(),
           "Evaluates a mapping name -> tensor (numpy arrays, torch tensors "
           "on the CPU or the evaluator's GPU) or a safetensors path; "
           "returns an EvaluationResult (the report and per-candidate "
           "outcome arrays, made when asked: proofc.results.Result).")
      .def("rollouts", &Evaluator::rollouts, py::arg("weights"),
           py::arg("triples"), py::arg("positive"), py::kw_only(),
           py::arg("episodes") = 4, py::arg("seed") = 0,
           py::arg("episode_base") = 0, py::arg("temperature") = 1.0,
           py::arg("sampled") = true,
           "Runs `episodes` episodes of every triple [N, 3] (positive [N]) "
           "and returns the trajectories' tensors by name "
           "(docs/rollouts.md).")
      .def("derive", &Evaluator::derive, py::arg("states"), py::arg("triples"),
           "Spec §3's derived list of every state [N, A, 3] as a step of "
           "candidate triples [N, 3] (its own fact never used), on the host "
           "engine: {'count': [N], 'states': [sum(count), A, 3]} "
           "(docs/training.md).")
      .def("proof_search", &Evaluator::proofSearch, py::arg("triples"),
           py::kw_only(), py::arg("keep"), py::arg("max_depth"),
           py::arg("piece_states"),
           "A ProofSearch of triples [N, 3] over the engine derive() runs "
           "(proofc.training.search drives it; docs/training.md).")
      .def("close", &Evaluator::close,
           "Releases the session (device memory included) now.")
      .def_property_readonly("closed", &Evaluator::closed)
      .def_property_readonly("entities", &Evaluator::entities)
      .def_property_readonly("relations", &Evaluator::relations)
      .def_property_readonly("device", &Evaluator::device,
                             "'cpu' or 'cuda:N' (usable as a torch device).")
      .def_property_readonly("device_name", &Evaluator::deviceName)
      .def_property_readonly("backend", &Evaluator::backend)
      .def_property_readonly("program", &Evaluator::program)
      .def_property_readonly("options", &Evaluator::options)
      .def_property_readonly("num_candidates", &Evaluator::numCandidates)
      .def_property_readonly("candidates", &Evaluator::candidates)
      .def_property_readonly("queries", &Evaluator::queries);
}
