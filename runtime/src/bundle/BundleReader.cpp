//===- BundleReader.cpp - a Bundle from JSON ------------------------------===//
//
// parseBundle is strict, because the bundle is the compiler/runtime
// contract: every field must be present with its JSON type, unknown keys
// are rejected (a typo must not silently fall back to a default), a
// duplicate key is an error, and the schema and format version are checked
// first. The cross-references and the compiled shape are then checked by
// BundleVerifier.h. Errors name the file and the JSON path of the field
// ("x.pcb: plan.launches[2].args[3]: ...").
//
//===----------------------------------------------------------------------===//
#include "bundle/Bundle.h"

#include "bundle/BundleJson.h"
#include "bundle/BundleVerifier.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"
#include "support/StrictJson.h"

#include <cctype>

namespace proofc {

using namespace bundle_json;

namespace {

bool isDecimal(const std::string &s) {
  if (s.empty() || s.size() > 18)
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

Extent parseExtent(const Node &node) {
  Extent extent;
  std::vector<Node> items = node.array();
  if (items.empty())
    node.error("an extent needs at least one factor");
  for (const Node &item : items) {
    std::string f = item.str();
    if (!isDecimal(f) && !isBundleSymbol(f))
      item.error(fmt::format("'{}' is neither a decimal literal nor a run-time "
                             "symbol",
                             escapeForMessage(f)));
    extent.factors.push_back(f);
  }
  return extent;
}

DType parseDType(const Node &node) {
  std::string s = node.str();
  if (s == "i32")
    return DType::I32;
  if (s == "f32")
    return DType::F32;
  if (s == "u32")
    return DType::U32;
  node.error(
      fmt::format("unknown dtype '{}' (i32, f32, u32)", escapeForMessage(s)));
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
  policy.expectObject({"score_scale", "encoder", "select_modes"});
  program.policy.scoreScale = policy["score_scale"].positiveF32();
  // eval.select's modes (docs/sampling.md): distinct, "greedy" first.
  bool greedy = false, sampled = false;
  for (const Node &modeNode : policy["select_modes"].array()) {
    const std::string mode = modeNode.str();
    if (mode != "greedy" && mode != "sampled")
      modeNode.error(fmt::format("unknown selection mode '{}' (greedy, "
                                 "sampled)",
                                 mode));
    bool &seen = mode == "greedy" ? greedy : sampled;
    if (seen)
      modeNode.error(fmt::format("selection mode '{}' listed twice", mode));
    seen = true;
  }
  if (!greedy)
    policy["select_modes"].error("must list \"greedy\"");
  program.policy.sampled = sampled;
  for (const Node &opNode : policy["encoder"].array()) {
    opNode.expectObject({"kind", "pred_table", "const_table", "var_table",
                         "weight", "bias", "in", "out", "eps"});
    std::string kind = opNode["kind"].str();
    PolicyOp op;
    std::optional<PolicyOpKind> named = opKindNamed(kind);
    if (!named)
      opNode["kind"].error(
          fmt::format("unknown op '{}'", escapeForMessage(kind)));
    op.kind = *named;
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
        item.error(
            fmt::format("conds nested deeper than {} levels", kMaxCondDepth));
      sn.cond = item["cond"].nonEmptyStr();
      sn.flag = item["flag"].nonEmptyStr();
      sn.body = parseNodes(item["body"], depth + 1);
    }
    nodes.push_back(std::move(sn));
  }
  return nodes;
}

} // namespace

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
         escapeForMessage(e.what(), kJsonErrorEchoBytes));
  }
  if (parsed.duplicate) {
    std::string at = formatJsonPath(parsed.duplicatePath);
    fail("{}: {}: duplicate key '{}'", path, at.empty() ? "(top level)" : at,
         escapeForMessage(parsed.duplicateKey));
  }
  const json &j = parsed.value;
  Node root(j, "", path);
  if (!j.is_object())
    root.error("expected a JSON object");
  // Schema and version first, so an old or foreign file says so plainly.
  if (!j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>() != kSchema)
    fail("{}: not a proofc bundle (field \"schema\" must be \"{}\")", path,
         kSchema);
  // Versions 1 and 2 spelled the key "format_version".
  const char *versionKey =
      j.contains("version") || !j.contains("format_version") ? "version"
                                                             : "format_version";
  if (!j.contains(versionKey) || !j[versionKey].is_number_integer() ||
      j[versionKey].get<int64_t>() != kBundleFormatVersion)
    fail("{}: {}: unsupported bundle format (this runtime reads version {}; "
         "recompile the program)",
         path, versionKey, kBundleFormatVersion);
  root.expectObject({"schema", "version", "proofc_version", "source", "program",
                     "modules", "plan"});

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
    // "args" and "relu": fold_atom_layer's, required there, refused
    // elsewhere (below).
    p.expectObject({"op", "dst", "table", "weight", "bias", "col_begin", "cols",
                    "transpose"},
                   {"args", "relu"});
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
      if (op.weight.empty())
        p["weight"].error("fold_columns needs a weight");
      if (op.colBegin < 0)
        p["col_begin"].error("must be >= 0");
      if (op.cols <= 0)
        p["cols"].error("must be > 0");
      if (op.transpose)
        p["transpose"].error("fold_columns does not transpose");
    } else if (op.op == "copy") {
      if (!op.weight.empty() || !op.bias.empty())
        p["weight"].error("copy takes only a table");
    } else if (op.op == "tf32_fragments" || op.op == "f16_fragments") {
      if (!op.weight.empty() || !op.bias.empty())
        p["weight"].error(op.op + " takes only a table");
      if (op.transpose)
        p["transpose"].error(op.op + " does not transpose");
    } else if (op.op == "fold_atom_layer") {
      if (op.weight.empty())
        p["weight"].error("fold_atom_layer needs a weight");
      if (!op.bias.empty())
        p["bias"].error("fold_atom_layer takes no bias");
      if (op.colBegin != 0 || op.cols != 0)
        p[op.colBegin != 0 ? "col_begin" : "cols"].error(
            "fold_atom_layer takes no columns: must be 0");
      if (op.transpose)
        p["transpose"].error("fold_atom_layer does not transpose");
      // arg0_const, arg1_const, arg0_var, arg1_var.
      for (const Node &a : p["args"].array(4))
        op.args.push_back(a.nonEmptyStr());
      op.relu = p["relu"].boolean();
    } else {
      p["op"].error(fmt::format("unknown prologue op '{}' (fold_columns, copy, "
                                "tf32_fragments, f16_fragments, "
                                "fold_atom_layer)",
                                escapeForMessage(op.op)));
    }
    if (op.op != "fold_atom_layer")
      for (const char *key : {"args", "relu"})
        if (p.has(key))
          p[key].error(fmt::format("only fold_atom_layer takes \"{}\"", key));
    bundle.plan.prologue.push_back(std::move(op));
  }
  for (const Node &l : plan["launches"].array()) {
    l.expectObject({"name", "role", "module", "entry", "grid", "block",
                    "shared_bytes", "args"});
    Launch launch;
    launch.name = l["name"].nonEmptyStr();
    std::optional<LaunchRole> role = launchRoleNamed(l["role"].str());
    if (!role)
      l["role"].error(fmt::format("unknown launch role '{}' ({})",
                                  escapeForMessage(l["role"].str()),
                                  launchRoleList()));
    launch.role = *role;
    launch.module = l["module"].nonEmptyStr();
    launch.entry = l["entry"].nonEmptyStr();
    launch.grid = parseExtent(l["grid"]);
    launch.block = l["block"].i32(1, 1024);
    launch.sharedBytes = l["shared_bytes"].i32(0, 1 << 20);
    for (const Node &a : l["args"].array())
      launch.args.push_back(a.str());
    bundle.plan.launches.push_back(std::move(launch));
  }
  Node schedule = plan["schedule"];
  if (schedule.has("tail")) {
    schedule.expectObject({"setup", "step", "tail", "loop_flag", "loop_cond"});
    bundle.plan.schedule.tail = parseNodes(schedule["tail"]);
    if (bundle.plan.schedule.tail.empty())
      schedule["tail"].error("the tail is empty (leave the key out instead)");
  } else {
    schedule.expectObject({"setup", "step", "loop_flag", "loop_cond"});
  }
  bundle.plan.schedule.setup = parseNodes(schedule["setup"]);
  bundle.plan.schedule.step = parseNodes(schedule["step"]);
  bundle.plan.schedule.loopFlag = schedule["loop_flag"].nonEmptyStr();
  bundle.plan.schedule.loopCond = schedule["loop_cond"].nonEmptyStr();
  if (bundle.plan.schedule.step.empty())
    schedule["step"].error("the proof-loop step is empty");

  verifyPlan(bundle, root);
  // Last: the launches and modules it reads are verified.
  checkCompiledShape(bundle, root);
  return bundle;
}

Bundle readBundle(const std::string &path) {
  return parseBundle(readFile(path), path);
}

} // namespace proofc
