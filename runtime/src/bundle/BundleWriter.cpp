//===- BundleWriter.cpp - a Bundle as JSON --------------------------------===//
//
// serializeBundle: the Bundle's fields as the JSON the reader
// (BundleReader.cpp) takes back, one space of indentation, keys in
// nlohmann's (sorted) order; writeBundle writes it atomically.
//
//===----------------------------------------------------------------------===//
#include "bundle/Bundle.h"

#include "bundle/BundleJson.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"

namespace proofc {

using bundle_json::json;
using bundle_json::opKindName;

namespace {

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
           {{"A", s.A},
            {"S", s.S},
            {"D", s.D},
            {"B", s.B},
            {"d", s.d},
            {"L", s.L}}},
          {"policy",
           {{"score_scale", program.policy.scoreScale},
            {"encoder", encoder},
            {"select_modes", program.policy.sampled
                                 ? json::array({"greedy", "sampled"})
                                 : json::array({"greedy"})}}}};
}

json planJson(const GpuPlan &plan) {
  json buffers = json::array();
  for (const BufferDecl &b : plan.buffers)
    buffers.push_back({{"name", b.name},
                       {"dtype", dtypeName(b.dtype)},
                       {"elements", extentJson(b.elements)},
                       {"init", b.init}});
  json prologue = json::array();
  for (const PrologueOp &op : plan.prologue) {
    json p = {{"op", op.op},       {"dst", op.dst},
              {"table", op.table}, {"weight", op.weight},
              {"bias", op.bias},   {"col_begin", op.colBegin},
              {"cols", op.cols},   {"transpose", op.transpose}};
    if (op.op == "fold_atom_layer") { // only its JSON has these keys
      p["args"] = op.args;
      p["relu"] = op.relu;
    }
    prologue.push_back(std::move(p));
  }
  json launches = json::array();
  for (const Launch &l : plan.launches)
    launches.push_back({{"name", l.name},
                        {"role", launchRoleName(l.role)},
                        {"module", l.module},
                        {"entry", l.entry},
                        {"grid", extentJson(l.grid)},
                        {"block", l.block},
                        {"shared_bytes", l.sharedBytes},
                        {"args", l.args}});
  json schedule = {{"setup", nodesJson(plan.schedule.setup)},
                   {"step", nodesJson(plan.schedule.step)},
                   {"loop_flag", plan.schedule.loopFlag},
                   {"loop_cond", plan.schedule.loopCond}};
  if (!plan.schedule.tail.empty())
    schedule["tail"] = nodesJson(plan.schedule.tail);
  return {{"buffers", buffers},
          {"prologue", prologue},
          {"launches", launches},
          {"schedule", schedule}};
}

} // namespace

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
  json j = {{"schema", bundle_json::kSchema},
            {"version", bundle.formatVersion},
            {"proofc_version", bundle.proofcVersion},
            {"source", bundle.source},
            {"program", programJson(bundle.program)},
            {"modules", modules},
            {"plan", planJson(bundle.plan)}};
  return j.dump(1) + "\n";
}

void writeBundle(const std::string &path, const Bundle &bundle) {
  writeAtomically(path, serializeBundle(bundle));
}

} // namespace proofc
