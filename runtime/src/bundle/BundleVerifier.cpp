//===- BundleVerifier.cpp - a parsed bundle's cross-checks ----------------===//
//
// BundleVerifier.h's checks. They run after the reader has typed every
// field, so they compare values, never JSON types; `root` gives each
// error its JSON path.
//
//===----------------------------------------------------------------------===//
#include "bundle/BundleVerifier.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <cstring>
#include <map>
#include <set>

namespace proofc::bundle_json {

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
        ops[i]["in"].error(
            fmt::format("{} is not 3 x a positive embedding width", op.in));
      if (op.out <= 0)
        ops[i]["out"].error("must be positive");
      width = op.out;
      continue;
    case PolicyOpKind::Relu:
    case PolicyOpKind::SumAtoms:
      break;
    case PolicyOpKind::Linear:
      ++linears;
      if (width != 0 && op.in != width)
        ops[i]["in"].error(
            fmt::format("{} differs from the width {} the previous ops yield",
                        op.in, width));
      if (op.out <= 0)
        ops[i]["out"].error("must be positive");
      width = width == 0 ? 0 : op.out;
      break;
    case PolicyOpKind::LayerNorm:
      if (width != 0 && op.in != width)
        ops[i]["in"].error(
            fmt::format("{} differs from the width {} the previous ops yield",
                        op.in, width));
      if (op.out != op.in)
        ops[i]["out"].error(
            fmt::format("{} differs from in = {}", op.out, op.in));
      break;
    }
    if (width == 0)
      ops[i]["kind"].error(
          fmt::format("'{}' comes before any atom_embed", opKindName(op.kind)));
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
    for (const Node &a : argNodes)
      args.push_back(a.str());
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
        if (option.rfind(b.macro, 0) != 0)
          continue;
        std::string value(option.substr(std::strlen(b.macro)));
        if (value == std::to_string(b.value))
          continue;
        root["program"]["shape"][b.field].error(fmt::format(
            "{} differs from the {} = {} the kernels were compiled for "
            "(modules[{}].options[{}])",
            b.value, b.field, escapeForMessage(value), m, k));
      }
  }
}

namespace {

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
    collectConds(plan.schedule.setup, schedule["setup"]);
    collectConds(plan.schedule.step, schedule["step"]);
    if (!plan.schedule.tail.empty())
      collectConds(plan.schedule.tail, schedule["tail"]);

    // Every launch's name first: a "node:" argument may name a later one.
    std::vector<Node> launchNodes = planNode["launches"].array();
    for (size_t i = 0; i < plan.launches.size(); ++i)
      if (!launches_.insert(plan.launches[i].name).second)
        launchNodes[i]["name"].error(fmt::format(
            "duplicate launch '{}'", escapeForMessage(plan.launches[i].name)));
    for (size_t i = 0; i < plan.launches.size(); ++i) {
      const Launch &l = plan.launches[i];
      const Node &ln = launchNodes[i];
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
    checkLaunchRefs(plan.schedule.setup, schedule["setup"]);
    checkLaunchRefs(plan.schedule.step, schedule["step"]);
    if (!plan.schedule.tail.empty())
      checkLaunchRefs(plan.schedule.tail, schedule["tail"]);
  }

private:
  void checkInit(const BufferDecl &b, const Node &node) {
    const std::string &init = b.init;
    if (init.empty())
      return;
    if (init.rfind(binding::kWeightsPrefix, 0) == 0) {
      if (init.size() == binding::kWeightsPrefix.size())
        node.error("'weights:' needs a tensor name");
      if (b.dtype != DType::F32)
        node.error(fmt::format("a weights binding needs dtype f32, buffer "
                               "'{}' is {}",
                               escapeForMessage(b.name), dtypeName(b.dtype)));
      return;
    }
    const BufferTable *known = binding::find(init);
    if (!known)
      node.error(fmt::format("unknown binding '{}'", escapeForMessage(init)));
    if (known->dtype != b.dtype)
      node.error(fmt::format("binding '{}' needs dtype {}, buffer '{}' is {}",
                             escapeForMessage(init), dtypeName(known->dtype),
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
      if (sn.cond.empty())
        continue;
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
    // "node:" alone is a node argument with no node (Bundle.h).
    if (colon == std::string::npos ||
        (colon + 1 == arg.size() && arg != "node:"))
      node.error(fmt::format("argument '{}' is not <kind>:<value>",
                             escapeForMessage(arg)));
    std::string kind = arg.substr(0, colon), value = arg.substr(colon + 1);
    if (kind == "buf") {
      if (!buffers_.count(value))
        node.error(fmt::format("unknown buffer '{}'", escapeForMessage(value)));
    } else if (kind == "sym") {
      if (!isBundleSymbol(value))
        node.error(fmt::format("unknown symbol '{}'", escapeForMessage(value)));
    } else if (kind == "cond") {
      if (!conds_.count(value))
        node.error(fmt::format("unknown cond '{}'", escapeForMessage(value)));
    } else if (kind == "node") {
      if (!value.empty() && !launches_.count(value))
        node.error(fmt::format("unknown launch '{}'", escapeForMessage(value)));
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
                             "cond, node)",
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

void verifyPlan(const Bundle &bundle, const Node &root) {
  PlanVerifier(bundle, root).run();
}

} // namespace proofc::bundle_json
