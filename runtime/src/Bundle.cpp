//===- Bundle.cpp - Bundle JSON serialization and verification ------------===//
//
// The bundle is the compiler/runtime contract, so parsing is strict: every
// field must be present with its JSON type, unknown keys are rejected (a typo
// must not silently fall back to a default), and every reference (module,
// launch, buffer, cond, symbol) must resolve. Errors name the file and the
// JSON path of the field ("x.pcb: plan.launches[2].args[3]: ...").
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Bundle.h"

#include "Fail.h"
#include "FileIO.h"
#include "MessageText.h"
#include "StrictJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace proofc {

using nlohmann::json;

const std::vector<std::string> &bundleSymbols() {
  static const std::vector<std::string> symbols = {
      "B", "S", "A", "A2", "D", "d", "L",  "E",   "R",
      "R1", "R2", "RE1", "NF", "NR", "NR1", "NRB", "N", "MEMO", "ACTIONS"};
  return symbols;
}

const std::map<std::string, DType> &bundleBindings() {
  static const std::map<std::string, DType> bindings = {
      {"kb.facts", DType::I32},
      {"kb.psOffsets", DType::I32},
      {"kb.poFacts", DType::I32},
      {"kb.poOffsets", DType::I32},
      {"kb.predOffsets", DType::I32},
      {"kb.ruleHeads", DType::I32},
      {"kb.ruleBodyOffsets", DType::I32},
      {"kb.ruleBody", DType::I32},
      {"kb.ruleNumVars", DType::I32},
      {"kb.rulePredOffsets", DType::I32},
      {"kb.ruleIdsByPred", DType::I32},
      {"pool.triples", DType::I32},
      {"out.status", DType::I32},
      {"out.depth", DType::I32},
      {"out.logp", DType::F32},
      {"out.actions", DType::I32},
  };
  return bindings;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::I32: return "i32";
  case DType::F32: return "f32";
  case DType::U32: return "u32";
  }
  return "?";
}

namespace {

constexpr const char *kSchema = "proofc-bundle";

struct OpName {
  PolicyOpKind kind;
  const char *name;
};
constexpr OpName kOpNames[] = {{PolicyOpKind::AtomEmbed, "atom_embed"},
                               {PolicyOpKind::Relu, "relu"},
                               {PolicyOpKind::SumAtoms, "sum_atoms"},
                               {PolicyOpKind::Linear, "linear"},
                               {PolicyOpKind::LayerNorm, "layer_norm"}};

const char *opKindName(PolicyOpKind kind) {
  for (const OpName &op : kOpNames)
    if (op.kind == kind) return op.name;
  return "?";
}

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

json extentJson(const Extent &extent) { return extent.factors; }

json nodesJson(const std::vector<ScheduleNode> &nodes) {
  json out = json::array();
  for (const ScheduleNode &node : nodes) {
    if (!node.launch.empty())
      out.push_back({{"launch", node.launch}});
    else
      out.push_back({{"cond", node.cond},
                     {"flag", node.flag},
                     {"body", nodesJson(node.body)}});
  }
  return out;
}

json programJson(const ProgramSpec &program) {
  const ShapeParams &s = program.shape;
  json encoder = json::array();
  for (const PolicyOp &op : program.policy.encoder)
    encoder.push_back({{"kind", opKindName(op.kind)},
                       {"pred_table", op.predTable},
                       {"const_table", op.constTable},
                       {"var_table", op.varTable},
                       {"weight", op.weight},
                       {"bias", op.bias},
                       {"in", op.in},
                       {"out", op.out},
                       {"eps", op.eps}});
  return {{"name", program.name},
          {"shape",
           {{"A", s.A}, {"S", s.S}, {"D", s.D}, {"B", s.B}, {"d", s.d},
            {"L", s.L}}},
          {"policy",
           {{"score_scale", program.policy.scoreScale},
            {"encoder", encoder}}}};
}

json planJson(const GpuPlan &plan) {
  json buffers = json::array();
  for (const BufferDecl &b : plan.buffers)
    buffers.push_back({{"name", b.name},
                       {"dtype", dtypeName(b.dtype)},
                       {"elements", extentJson(b.elements)},
                       {"init", b.init}});
  json prologue = json::array();
  for (const PrologueOp &op : plan.prologue)
    prologue.push_back({{"op", op.op},
                        {"dst", op.dst},
                        {"table", op.table},
                        {"weight", op.weight},
                        {"bias", op.bias},
                        {"col_begin", op.colBegin},
                        {"cols", op.cols},
                        {"transpose", op.transpose}});
  json launches = json::array();
  for (const Launch &l : plan.launches)
    launches.push_back({{"name", l.name},
                        {"module", l.module},
                        {"entry", l.entry},
                        {"grid", extentJson(l.grid)},
                        {"block", l.block},
                        {"shared_bytes", l.sharedBytes},
                        {"args", l.args}});
  return {{"buffers", buffers},
          {"prologue", prologue},
          {"launches", launches},
          {"schedule",
           {{"prologue", nodesJson(plan.schedule.prologue)},
            {"step", nodesJson(plan.schedule.step)},
            {"loop_flag", plan.schedule.loopFlag},
            {"loop_cond", plan.schedule.loopCond}}}};
}

//===----------------------------------------------------------------------===//
// Parsing: a JSON value together with its path, for error messages.
//===----------------------------------------------------------------------===//

/// Longest name a bundle may hold (see Node::str).
constexpr size_t kMaxNameBytes = 256;

class Node {
public:
  Node(const json &value, std::string path, const std::string &file)
      : value_(value), path_(std::move(path)), file_(file) {}

  [[noreturn]] void error(const std::string &what) const {
    fail("{}: {}: {}", file_, path_.empty() ? "(top level)" : path_, what);
  }

  const std::string &path() const { return path_; }

  /// An object whose keys must be exactly `keys`.
  void expectObject(std::initializer_list<const char *> keys) const {
    if (!value_.is_object()) error("expected an object");
    for (const char *key : keys)
      if (!value_.contains(key)) child(key).error("missing field");
    for (const auto &item : value_.items()) {
      bool known = false;
      for (const char *key : keys) known = known || item.key() == key;
      if (!known) child(item.key()).error("unknown field");
    }
  }

  bool has(const char *key) const {
    return value_.is_object() && value_.contains(key);
  }

  Node operator[](const char *key) const {
    return Node(value_.at(key), child(key).path_, file_);
  }

  /// Free-form text: kernel source, compile options, versions, paths.
  std::string text() const {
    if (!value_.is_string()) error("expected a string");
    return value_.get<std::string>();
  }
  std::string nonEmptyText() const {
    std::string s = text();
    if (s.empty()) error("must not be empty");
    return s;
  }
  /// A name (of a module, buffer, launch, cond, tensor, op...). The runtime
  /// echoes names in its messages, so a name must be printable on one line
  /// as it is (escapeForMessage leaves it unchanged) and short.
  std::string str() const {
    std::string s = text();
    if (escapeForMessage(s, kMaxNameBytes) != s)
      error(fmt::format("'{}' is not a name (at most {} bytes of printable "
                        "UTF-8, no backslash)",
                        escapeForMessage(s), kMaxNameBytes));
    return s;
  }
  std::string nonEmptyStr() const {
    std::string s = str();
    if (s.empty()) error("must not be empty");
    return s;
  }
  int64_t i64() const {
    if (!value_.is_number_integer()) error("expected an integer");
    if (value_.is_number_unsigned() &&
        value_.get<uint64_t>() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      error("integer out of range");
    return value_.get<int64_t>();
  }
  int32_t i32(int64_t lo = std::numeric_limits<int32_t>::min(),
              int64_t hi = std::numeric_limits<int32_t>::max()) const {
    int64_t v = i64();
    if (v < lo || v > hi)
      error(fmt::format("{} is out of range [{}, {}]", v, lo, hi));
    return static_cast<int32_t>(v);
  }
  double number() const {
    if (!value_.is_number()) error("expected a number");
    return value_.get<double>();
  }
  /// A number that a float holds (not rounded to inf on the way).
  float f32() const {
    double v = number();
    if (!(std::abs(v) <= std::numeric_limits<float>::max()))
      error(fmt::format("{} is out of the float range", v));
    return static_cast<float>(v);
  }
  /// A positive, finite float (score_scale, eps: as the program verifiers
  /// require of the attributes they come from).
  float positiveF32() const {
    float v = f32();
    if (!(v > 0))
      error(fmt::format("must be positive and finite, got {}", v));
    return v;
  }
  bool boolean() const {
    if (!value_.is_boolean()) error("expected true or false");
    return value_.get<bool>();
  }
  std::vector<Node> array() const {
    if (!value_.is_array()) error("expected an array");
    std::vector<Node> items;
    for (size_t i = 0; i < value_.size(); ++i)
      items.emplace_back(value_[i], fmt::format("{}[{}]", path_, i), file_);
    return items;
  }

private:
  // Keys of unknown fields come from the file.
  Node child(const std::string &key) const {
    std::string shown = escapeForMessage(key);
    return Node(value_, path_.empty() ? shown : path_ + "." + shown, file_);
  }

  const json &value_;
  std::string path_;
  const std::string &file_;
};

bool isSymbol(const std::string &s) {
  for (const std::string &sym : bundleSymbols())
    if (s == sym) return true;
  return false;
}

bool isDecimal(const std::string &s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

Extent parseExtent(const Node &node) {
  Extent extent;
  std::vector<Node> items = node.array();
  if (items.empty()) node.error("an extent needs at least one factor");
  for (const Node &item : items) {
    std::string f = item.str();
    if (!isDecimal(f) && !isSymbol(f))
      item.error(fmt::format("'{}' is neither a decimal literal nor a run-time "
                             "symbol",
                             escapeForMessage(f)));
    extent.factors.push_back(f);
  }
  return extent;
}

DType parseDType(const Node &node) {
  std::string s = node.str();
  if (s == "i32") return DType::I32;
  if (s == "f32") return DType::F32;
  if (s == "u32") return DType::U32;
  node.error(
      fmt::format("unknown dtype '{}' (i32, f32, u32)", escapeForMessage(s)));
}

/// The encoder's widths chain as the program's types did (each op takes the
/// width the previous one yields), and shape.d and shape.L are the encoder's
/// output width and linear-layer count, as the export computed them: the
/// kernels were generated for those, so an edited shape would size buffers
/// that the kernels read past (the rules of checkWeights' Requirements, here
/// with the JSON path).
void checkEncoderShape(const ProgramSpec &program, const Node &node) {
  std::vector<Node> ops = node["policy"]["encoder"].array();
  if (ops.empty())
    node["policy"]["encoder"].error("the encoder has no ops");
  int64_t width = 0, linears = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const PolicyOp &op = program.policy.encoder[i];
    switch (op.kind) {
    case PolicyOpKind::AtomEmbed:
      if (op.in <= 0 || op.in % 3 != 0)
        ops[i]["in"].error(fmt::format(
            "{} is not 3 x a positive embedding width", op.in));
      if (op.out <= 0) ops[i]["out"].error("must be positive");
      width = op.out;
      continue;
    case PolicyOpKind::Relu:
    case PolicyOpKind::SumAtoms:
      break;
    case PolicyOpKind::Linear:
      ++linears;
      if (width != 0 && op.in != width)
        ops[i]["in"].error(fmt::format(
            "{} differs from the width {} the previous ops yield", op.in,
            width));
      if (op.out <= 0) ops[i]["out"].error("must be positive");
      width = width == 0 ? 0 : op.out;
      break;
    case PolicyOpKind::LayerNorm:
      if (width != 0 && op.in != width)
        ops[i]["in"].error(fmt::format(
            "{} differs from the width {} the previous ops yield", op.in,
            width));
      if (op.out != op.in)
        ops[i]["out"].error(fmt::format("{} differs from in = {}", op.out,
                                        op.in));
      break;
    }
    if (width == 0)
      ops[i]["kind"].error(fmt::format("'{}' comes before any atom_embed",
                                       opKindName(op.kind)));
  }
  Node shape = node["shape"];
  if (program.shape.d != width)
    shape["d"].error(fmt::format("{} differs from the encoder's output width "
                                 "{} (the width the kernels were generated "
                                 "for)",
                                 program.shape.d, width));
  if (program.shape.L != linears)
    shape["L"].error(fmt::format("{} differs from the encoder's {} linear ops",
                                 program.shape.L, linears));
}

/// The CUDA C++ modules are compiled with the shape as macros
/// (-DPROOFC_A=6 -DPROOFC_S=120, LowerToGpu's declareModules) and the
/// launches pass D and the score scale as literals: a field edited after
/// compilation must not disagree with what the kernels were built for.
void checkCompiledShape(const Bundle &bundle, const Node &root) {
  const ShapeParams &shape = bundle.program.shape;
  struct Baked {
    const char *macro, *field;
    int32_t value;
  };
  const Baked baked[] = {{"-DPROOFC_A=", "A", shape.A},
                         {"-DPROOFC_S=", "S", shape.S},
                         {"-DPROOFC_DIM=", "d", shape.d}};
  // Launch arguments carry D and the score scale as literals (LowerToGpu:
  // "sym:N", ["sym:B",] "i32:<D>", "sym:R" for the advance kernels,
  // "sym:R", "f32:<scale>" for the policy kernel); the host backend reads
  // the program's fields: the two must agree.
  std::vector<Node> launches = root["plan"]["launches"].array();
  for (size_t l = 0; l < launches.size(); ++l) {
    std::vector<Node> argNodes = launches[l]["args"].array();
    std::vector<std::string> args;
    for (const Node &a : argNodes) args.push_back(a.str());
    for (size_t k = 1; k < args.size(); ++k) {
      const std::string &arg = args[k], &before = args[k - 1];
      if (arg.rfind("i32:", 0) == 0 && k + 1 < args.size() &&
          args[k + 1] == "sym:R" && (before == "sym:N" || before == "sym:B") &&
          arg != "i32:" + std::to_string(shape.D))
        root["program"]["shape"]["D"].error(fmt::format(
            "{} differs from the max depth {} the kernels were compiled with "
            "({})",
            shape.D, escapeForMessage(arg.substr(4)), argNodes[k].path()));
      if (arg.rfind("f32:", 0) == 0 && before == "sym:R") {
        size_t used = 0;
        float v = 0;
        try {
          v = std::stof(arg.substr(4), &used);
        } catch (const std::exception &) {
          used = 0; // reported by the plan verifier
        }
        if (used != 0 && used == arg.size() - 4 &&
            v != bundle.program.policy.scoreScale)
          root["program"]["policy"]["score_scale"].error(fmt::format(
              "{} differs from the scale {} the kernels were compiled with "
              "({})",
              bundle.program.policy.scoreScale, v, argNodes[k].path()));
      }
    }
  }

  std::vector<Node> modules = root["modules"].array();
  for (size_t m = 0; m < bundle.modules.size(); ++m) {
    const std::vector<std::string> &options = bundle.modules[m].options;
    for (size_t k = 0; k < options.size(); ++k)
      for (const Baked &b : baked) {
        std::string_view option = options[k];
        if (option.rfind(b.macro, 0) != 0) continue;
        std::string value(option.substr(std::strlen(b.macro)));
        if (value == std::to_string(b.value)) continue;
        root["program"]["shape"][b.field].error(fmt::format(
            "{} differs from the {} = {} the kernels were compiled for "
            "(modules[{}].options[{}])",
            b.value, b.field, escapeForMessage(value), m, k));
      }
  }
}

ProgramSpec parseProgram(const Node &node) {
  node.expectObject({"name", "shape", "policy"});
  ProgramSpec program;
  program.name = node["name"].str();
  Node shape = node["shape"];
  shape.expectObject({"A", "S", "D", "B", "d", "L"});
  program.shape.A = shape["A"].i32(1, 1 << 10);
  program.shape.S = shape["S"].i32(1, 1 << 16);
  program.shape.D = shape["D"].i32(1, 1 << 20);
  program.shape.B = shape["B"].i32(1, 1 << 24);
  program.shape.d = shape["d"].i32(1, 1 << 16);
  program.shape.L = shape["L"].i32(0, 1 << 10);

  Node policy = node["policy"];
  policy.expectObject({"score_scale", "encoder"});
  program.policy.scoreScale = policy["score_scale"].positiveF32();
  for (const Node &opNode : policy["encoder"].array()) {
    opNode.expectObject({"kind", "pred_table", "const_table", "var_table",
                         "weight", "bias", "in", "out", "eps"});
    std::string kind = opNode["kind"].str();
    PolicyOp op;
    op.kind = PolicyOpKind::Relu;
    bool found = false;
    for (const OpName &name : kOpNames)
      if (kind == name.name) {
        op.kind = name.kind;
        found = true;
      }
    if (!found)
      opNode["kind"].error(
          fmt::format("unknown op '{}'", escapeForMessage(kind)));
    op.predTable = opNode["pred_table"].str();
    op.constTable = opNode["const_table"].str();
    op.varTable = opNode["var_table"].str();
    op.weight = opNode["weight"].str();
    op.bias = opNode["bias"].str();
    op.in = opNode["in"].i32(0);
    op.out = opNode["out"].i32(0);
    // Only layer_norm reads eps (the program verifier's rule for it).
    op.eps = op.kind == PolicyOpKind::LayerNorm ? opNode["eps"].positiveF32()
                                                : opNode["eps"].f32();
    program.policy.encoder.push_back(op);
  }
  checkEncoderShape(program, node);
  return program;
}

/// Cond bodies nest, and parsing and verification recurse into them: a bound
/// keeps a hostile bundle from exhausting the stack.
constexpr int kMaxCondDepth = 64;

/// Bytes of a JSON parse error kept in the message (see parseBundle).
constexpr size_t kJsonErrorBytes = 320;

std::vector<ScheduleNode> parseNodes(const Node &node, int depth = 0) {
  std::vector<ScheduleNode> nodes;
  for (const Node &item : node.array()) {
    ScheduleNode sn;
    // Exactly one of the two shapes: {"launch"} or {"cond", "flag", "body"}.
    if (item.has("launch")) {
      item.expectObject({"launch"});
      sn.launch = item["launch"].nonEmptyStr();
    } else {
      item.expectObject({"cond", "flag", "body"});
      if (depth == kMaxCondDepth)
        item.error(fmt::format("conds nested deeper than {} levels",
                               kMaxCondDepth));
      sn.cond = item["cond"].nonEmptyStr();
      sn.flag = item["flag"].nonEmptyStr();
      sn.body = parseNodes(item["body"], depth + 1);
    }
    nodes.push_back(std::move(sn));
  }
  return nodes;
}

/// Cross-reference checks over a parsed plan; `root` gives the paths.
class PlanVerifier {
public:
  PlanVerifier(const Bundle &bundle, const Node &root)
      : bundle_(bundle), root_(root) {}

  void run() {
    const GpuPlan &plan = bundle_.plan;
    Node planNode = root_["plan"];
    for (size_t i = 0; i < bundle_.modules.size(); ++i)
      if (!modules_.insert(bundle_.modules[i].name).second)
        root_["modules"].array()[i]["name"].error(
            fmt::format("duplicate module '{}'",
                        escapeForMessage(bundle_.modules[i].name)));

    checkLinks();

    std::vector<Node> bufferNodes = planNode["buffers"].array();
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const BufferDecl &b = plan.buffers[i];
      if (!buffers_.emplace(b.name, &b).second)
        bufferNodes[i]["name"].error(
            fmt::format("duplicate buffer '{}'", escapeForMessage(b.name)));
      checkInit(b, bufferNodes[i]["init"]);
    }

    std::set<std::string> dsts;
    std::vector<Node> prologueNodes = planNode["prologue"].array();
    for (size_t i = 0; i < plan.prologue.size(); ++i)
      if (!dsts.insert(plan.prologue[i].dst).second)
        prologueNodes[i]["dst"].error(
            fmt::format("duplicate prologue dst '{}'",
                        escapeForMessage(plan.prologue[i].dst)));

    // Conds: the loop cond plus every cond node, names unique.
    Node schedule = planNode["schedule"];
    conds_.insert(plan.schedule.loopCond);
    checkFlag(plan.schedule.loopFlag, schedule["loop_flag"]);
    collectConds(plan.schedule.prologue, schedule["prologue"]);
    collectConds(plan.schedule.step, schedule["step"]);

    std::vector<Node> launchNodes = planNode["launches"].array();
    for (size_t i = 0; i < plan.launches.size(); ++i) {
      const Launch &l = plan.launches[i];
      const Node &ln = launchNodes[i];
      if (!launches_.insert(l.name).second)
        ln["name"].error(
            fmt::format("duplicate launch '{}'", escapeForMessage(l.name)));
      if (!modules_.count(l.module))
        ln["module"].error(
            fmt::format("unknown module '{}'", escapeForMessage(l.module)));
      if (linked_.count(l.module))
        ln["module"].error(fmt::format(
            "module '{}' is linked into another and has no kernels of its own",
            escapeForMessage(l.module)));
      std::vector<Node> argNodes = ln["args"].array();
      for (size_t a = 0; a < l.args.size(); ++a)
        checkArg(l.args[a], argNodes[a]);
    }
    checkLaunchRefs(plan.schedule.prologue, schedule["prologue"]);
    checkLaunchRefs(plan.schedule.step, schedule["step"]);
  }

private:
  void checkInit(const BufferDecl &b, const Node &node) {
    const std::string &init = b.init;
    if (init.empty()) return;
    if (init.rfind("weights:", 0) == 0) {
      if (init.size() == 8) node.error("'weights:' needs a tensor name");
      if (b.dtype != DType::F32)
        node.error(fmt::format("a weights binding needs dtype f32, buffer "
                               "'{}' is {}",
                               escapeForMessage(b.name), dtypeName(b.dtype)));
      return;
    }
    auto it = bundleBindings().find(init);
    if (it == bundleBindings().end())
      node.error(fmt::format("unknown binding '{}'", escapeForMessage(init)));
    if (it->second != b.dtype)
      node.error(fmt::format("binding '{}' needs dtype {}, buffer '{}' is {}",
                             escapeForMessage(init), dtypeName(it->second),
                             escapeForMessage(b.name), dtypeName(b.dtype)));
  }

  void checkFlag(const std::string &name, const Node &node) {
    auto it = buffers_.find(name);
    if (it == buffers_.end())
      node.error(fmt::format("unknown buffer '{}'", escapeForMessage(name)));
    const BufferDecl &b = *it->second;
    if (b.dtype != DType::I32 || b.elements.factors.size() != 1 ||
        b.elements.factors[0] != "1")
      node.error(fmt::format("flag buffer '{}' must be i32 with elements "
                             "[\"1\"]",
                             escapeForMessage(name)));
  }

  void collectConds(const std::vector<ScheduleNode> &nodes, const Node &node) {
    std::vector<Node> items = node.array();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const ScheduleNode &sn = nodes[i];
      if (sn.cond.empty()) continue;
      if (!conds_.insert(sn.cond).second)
        items[i]["cond"].error(
            fmt::format("duplicate cond '{}'", escapeForMessage(sn.cond)));
      checkFlag(sn.flag, items[i]["flag"]);
      collectConds(sn.body, items[i]["body"]);
    }
  }

  void checkLaunchRefs(const std::vector<ScheduleNode> &nodes,
                       const Node &node) {
    std::vector<Node> items = node.array();
    for (size_t i = 0; i < nodes.size(); ++i) {
      const ScheduleNode &sn = nodes[i];
      if (!sn.launch.empty()) {
        if (!launches_.count(sn.launch))
          items[i]["launch"].error(
              fmt::format("unknown launch '{}'", escapeForMessage(sn.launch)));
      } else {
        checkLaunchRefs(sn.body, items[i]["body"]);
      }
    }
  }

  void checkArg(const std::string &arg, const Node &node) {
    size_t colon = arg.find(':');
    if (colon == std::string::npos || colon + 1 == arg.size())
      node.error(fmt::format("argument '{}' is not <kind>:<value>",
                             escapeForMessage(arg)));
    std::string kind = arg.substr(0, colon), value = arg.substr(colon + 1);
    if (kind == "buf") {
      if (!buffers_.count(value))
        node.error(fmt::format("unknown buffer '{}'", escapeForMessage(value)));
    } else if (kind == "sym") {
      if (!isSymbol(value))
        node.error(fmt::format("unknown symbol '{}'", escapeForMessage(value)));
    } else if (kind == "cond") {
      if (!conds_.count(value))
        node.error(fmt::format("unknown cond '{}'", escapeForMessage(value)));
    } else if (kind == "i32") {
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(value, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      if (used != value.size() || v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max())
        node.error(fmt::format("'{}' is not an int32 literal",
                               escapeForMessage(value)));
    } else if (kind == "f32") {
      size_t used = 0;
      try {
        (void)std::stof(value, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      if (used != value.size())
        node.error(fmt::format("'{}' is not a float literal",
                               escapeForMessage(value)));
    } else {
      node.error(fmt::format("unknown argument kind '{}' (buf, sym, i32, f32, "
                             "cond)",
                             escapeForMessage(kind)));
    }
  }

  const Bundle &bundle_;
  const Node &root_;
  std::set<std::string> modules_, launches_, conds_;
  std::map<std::string, const BufferDecl *> buffers_;

  /// A module's link list names "cuda" modules, each linked into one module.
  void checkLinks() {
    std::vector<Node> moduleNodes = root_["modules"].array();
    for (size_t i = 0; i < bundle_.modules.size(); ++i) {
      const KernelModule &m = bundle_.modules[i];
      for (size_t k = 0; k < m.link.size(); ++k) {
        Node at = moduleNodes[i]["link"].array()[k];
        const std::string &name = m.link[k];
        const KernelModule *linked = findModule(bundle_, name);
        if (!linked)
          at.error(fmt::format("unknown module '{}'", escapeForMessage(name)));
        if (linked->format != "cuda")
          at.error(fmt::format("module '{}' is not a cuda module",
                               escapeForMessage(name)));
        if (!linked_.insert(name).second)
          at.error(fmt::format("module '{}' is linked more than once",
                               escapeForMessage(name)));
      }
    }
  }
  std::set<std::string> linked_;
};

} // namespace

const KernelModule *findModule(const Bundle &bundle, const std::string &name) {
  for (const KernelModule &m : bundle.modules)
    if (m.name == name) return &m;
  return nullptr;
}

bool isLinkedModule(const Bundle &bundle, const std::string &name) {
  for (const KernelModule &m : bundle.modules)
    if (std::find(m.link.begin(), m.link.end(), name) != m.link.end())
      return true;
  return false;
}

std::string serializeBundle(const Bundle &bundle) {
  json modules = json::array();
  for (const KernelModule &m : bundle.modules)
    modules.push_back({{"name", m.name},
                       {"format", m.format},
                       {"source", m.source},
                       {"options", m.options}});
  for (size_t i = 0; i < bundle.modules.size(); ++i)
    if (!bundle.modules[i].link.empty())
      modules[i]["link"] = bundle.modules[i].link;
  json j = {{"schema", kSchema},
            {"format_version", bundle.formatVersion},
            {"proofc_version", bundle.proofcVersion},
            {"source", bundle.source},
            {"program", programJson(bundle.program)},
            {"modules", modules},
            {"plan", planJson(bundle.plan)}};
  return j.dump(1) + "\n";
}

Bundle parseBundle(const std::string &text, const std::string &path) {
  // nlohmann's lexer takes a NUL byte for the end of the input: the bytes
  // after it would be dropped without a word.
  if (size_t nul = text.find('\0'); nul != std::string::npos)
    fail("{}: not valid JSON: NUL byte at offset {}", path, nul);
  // Not json::parse: it keeps the last of two equal keys silently (a second
  // "D" changed the results).
  StrictJsonResult parsed;
  try {
    parsed = parseStrictJson(text);
  } catch (const json::exception &e) { // parse_error, out_of_range (1e999)
    // The parser quotes the token it stopped in: bound and escape it.
    fail("{}: not valid JSON: {}", path,
         escapeForMessage(e.what(), kJsonErrorBytes));
  }
  if (parsed.duplicate) {
    std::string at = formatJsonPath(parsed.duplicatePath);
    fail("{}: {}: duplicate key '{}'", path, at.empty() ? "(top level)" : at,
         escapeForMessage(parsed.duplicateKey));
  }
  const json &j = parsed.value;
  Node root(j, "", path);
  if (!j.is_object()) root.error("expected a JSON object");
  // Schema and version first, so an old or foreign file says so plainly.
  if (!j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>() != kSchema)
    fail("{}: not a proofc bundle (field \"schema\" must be \"{}\")", path,
         kSchema);
  if (!j.contains("format_version") ||
      !j["format_version"].is_number_integer() ||
      j["format_version"].get<int64_t>() != kBundleFormatVersion)
    fail("{}: format_version: unsupported bundle format (this runtime reads "
         "version {}; recompile the program)",
         path, kBundleFormatVersion);
  root.expectObject({"schema", "format_version", "proofc_version", "source",
                     "program", "modules", "plan"});

  Bundle bundle;
  bundle.formatVersion = kBundleFormatVersion;
  bundle.proofcVersion = root["proofc_version"].text();
  bundle.source = root["source"].text();
  bundle.program = parseProgram(root["program"]);

  for (const Node &m : root["modules"].array()) {
    if (m.has("link"))
      m.expectObject({"name", "format", "source", "options", "link"});
    else
      m.expectObject({"name", "format", "source", "options"});
    KernelModule module;
    module.name = m["name"].nonEmptyStr();
    module.format = m["format"].str();
    if (module.format != "ptx" && module.format != "cuda")
      m["format"].error(fmt::format("unknown module format '{}' (ptx, cuda)",
                                    escapeForMessage(module.format)));
    module.source = m["source"].nonEmptyText();
    for (const Node &o : m["options"].array())
      module.options.push_back(o.text());
    if (module.format == "ptx" && !module.options.empty())
      m["options"].error("a ptx module takes no compile options");
    if (m.has("link")) {
      for (const Node &l : m["link"].array())
        module.link.push_back(l.nonEmptyStr());
      if (module.format != "ptx")
        m["link"].error("only a ptx module links other modules");
    }
    bundle.modules.push_back(std::move(module));
  }

  Node plan = root["plan"];
  plan.expectObject({"buffers", "prologue", "launches", "schedule"});
  for (const Node &b : plan["buffers"].array()) {
    b.expectObject({"name", "dtype", "elements", "init"});
    BufferDecl decl;
    decl.name = b["name"].nonEmptyStr();
    decl.dtype = parseDType(b["dtype"]);
    decl.elements = parseExtent(b["elements"]);
    decl.init = b["init"].str();
    bundle.plan.buffers.push_back(std::move(decl));
  }
  for (const Node &p : plan["prologue"].array()) {
    p.expectObject({"op", "dst", "table", "weight", "bias", "col_begin", "cols",
                    "transpose"});
    PrologueOp op;
    op.op = p["op"].str();
    op.dst = p["dst"].nonEmptyStr();
    op.table = p["table"].nonEmptyStr();
    op.weight = p["weight"].str();
    op.bias = p["bias"].str();
    op.colBegin = p["col_begin"].i64();
    op.cols = p["cols"].i64();
    op.transpose = p["transpose"].boolean();
    if (op.op == "fold_columns") {
      if (op.weight.empty()) p["weight"].error("fold_columns needs a weight");
      if (op.colBegin < 0) p["col_begin"].error("must be >= 0");
      if (op.cols <= 0) p["cols"].error("must be > 0");
      if (op.transpose) p["transpose"].error("fold_columns does not transpose");
    } else if (op.op == "copy") {
      if (!op.weight.empty() || !op.bias.empty())
        p["weight"].error("copy takes only a table");
    } else if (op.op == "tf32_fragments") {
      if (!op.weight.empty() || !op.bias.empty())
        p["weight"].error("tf32_fragments takes only a table");
      if (op.transpose) p["transpose"].error("tf32_fragments does not transpose");
    } else {
      p["op"].error(fmt::format(
          "unknown prologue op '{}' (fold_columns, copy, tf32_fragments)",
          escapeForMessage(op.op)));
    }
    bundle.plan.prologue.push_back(std::move(op));
  }
  for (const Node &l : plan["launches"].array()) {
    l.expectObject(
        {"name", "module", "entry", "grid", "block", "shared_bytes", "args"});
    Launch launch;
    launch.name = l["name"].nonEmptyStr();
    launch.module = l["module"].nonEmptyStr();
    launch.entry = l["entry"].nonEmptyStr();
    launch.grid = parseExtent(l["grid"]);
    launch.block = l["block"].i32(1, 1024);
    launch.sharedBytes = l["shared_bytes"].i32(0, 1 << 20);
    for (const Node &a : l["args"].array()) launch.args.push_back(a.str());
    bundle.plan.launches.push_back(std::move(launch));
  }
  Node schedule = plan["schedule"];
  schedule.expectObject({"prologue", "step", "loop_flag", "loop_cond"});
  bundle.plan.schedule.prologue = parseNodes(schedule["prologue"]);
  bundle.plan.schedule.step = parseNodes(schedule["step"]);
  bundle.plan.schedule.loopFlag = schedule["loop_flag"].nonEmptyStr();
  bundle.plan.schedule.loopCond = schedule["loop_cond"].nonEmptyStr();
  if (bundle.plan.schedule.step.empty())
    schedule["step"].error("the proof-loop step is empty");

  PlanVerifier(bundle, root).run();
  // Last: the launches and modules it reads are verified.
  checkCompiledShape(bundle, root);
  return bundle;
}

Bundle readBundle(const std::string &path) {
  return parseBundle(readFile(path), path);
}

void writeBundle(const std::string &path, const Bundle &bundle) {
  writeAtomically(path, serializeBundle(bundle));
}

} // namespace proofc
