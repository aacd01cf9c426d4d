//===- BundleTest.cpp - Bundle JSON round trip and strict verification ----===//
#include "bundle/Bundle.h"
#include "TestUtil.h"
#include "proofc/runtime/Error.h"
#include "runtime/cuda/TestBundle.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

namespace proofc::test {
namespace {

using nlohmann::json;

Bundle referenceBundle() { return makeTestBundle(v10Program()); }

/// parseBundle of the reference bundle after `edit`; returns the error text
/// ("" when it parses).
std::string errorAfter(const std::function<void(json &)> &edit) {
  json j = json::parse(serializeBundle(referenceBundle()));
  edit(j);
  try {
    parseBundle(j.dump(), "x.pcb");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(Bundle, RoundTripsEveryField) {
  Bundle a = referenceBundle();
  a.plan.prologue.push_back(
      {"copy", "t_copy", "mlp.0.weight", "", "", 0, 0, true});
  a.plan.prologue.push_back(
      {"tf32_fragments", "t_tf32", "mlp.0.weight", "", "", 0, 0, false});
  a.plan.prologue.push_back(
      {"f16_fragments", "t_f16", "mlp.0.weight", "", "", 0, 0, false});
  std::string text = serializeBundle(a);
  Bundle b = parseBundle(text, "x.pcb");
  EXPECT_EQ(serializeBundle(b), text);
  EXPECT_EQ(b.program.shape.S, 120);
  EXPECT_EQ(b.program.policy.encoder.size(), a.program.policy.encoder.size());
  EXPECT_EQ(b.program.policy.encoder[0].kind, PolicyOpKind::AtomEmbed);
  EXPECT_EQ(b.program.policy.encoder[4].kind, PolicyOpKind::LayerNorm);
  EXPECT_FLOAT_EQ(b.program.policy.encoder[4].eps, 1e-5f);
  EXPECT_EQ(b.modules.at(0).source, a.modules.at(0).source);
  EXPECT_EQ(b.plan.buffers.size(), a.plan.buffers.size());
  EXPECT_EQ(b.plan.prologue.back().op, "f16_fragments");
  EXPECT_EQ(b.plan.prologue.end()[-2].op, "tf32_fragments");
  EXPECT_EQ(b.plan.prologue.end()[-3].transpose, true);
  EXPECT_EQ(b.plan.prologue.at(0).bias, "atom.bias");
  EXPECT_EQ(b.plan.schedule.step.at(0).cond, "engine");
  EXPECT_EQ(b.plan.schedule.step.at(0).body.at(0).launch, "engine");
  EXPECT_EQ(b.plan.launches.at(0).role, LaunchRole::Init);
}

TEST(Bundle, RoundTripsTheTail) {
  // The tail hand-off's launch after the loop (schedule.tail): written only
  // when there is one, read back in order; a bundle without it has no key.
  Bundle a = referenceBundle();
  const std::string without = serializeBundle(a);
  EXPECT_EQ(without.find("\"tail\""), std::string::npos);
  EXPECT_TRUE(parseBundle(without, "x.pcb").plan.schedule.tail.empty());
  a.plan.schedule.tail = {
      ScheduleNode{a.plan.launches.back().name, "", "", {}}};
  const std::string text = serializeBundle(a);
  const Bundle b = parseBundle(text, "x.pcb");
  EXPECT_EQ(serializeBundle(b), text);
  ASSERT_EQ(b.plan.schedule.tail.size(), 1u);
  EXPECT_EQ(b.plan.schedule.tail[0].launch, a.plan.launches.back().name);
}

/// A fold_atom_layer op over the reference bundle's folded tables.
PrologueOp atomLayerOp(bool relu) {
  PrologueOp op;
  op.op = "fold_atom_layer";
  op.dst = relu ? "atom_layer" : "atom_layer_linear";
  op.table = "pred_proj";
  op.weight = "mlp.0.weight";
  op.args = {"arg0_const", "arg1_const", "arg0_var", "arg1_var"};
  op.relu = relu;
  return op;
}

// fold_atom_layer's "args" and "relu" are written for it alone and read
// back; the other ops' JSON keeps its keys (older bundles stay valid).
TEST(Bundle, RoundTripsFoldAtomLayer) {
  Bundle a = referenceBundle();
  a.plan.prologue.push_back(atomLayerOp(true));
  a.plan.prologue.push_back(atomLayerOp(false));
  const std::string text = serializeBundle(a);
  const Bundle b = parseBundle(text, "x.pcb");
  EXPECT_EQ(serializeBundle(b), text);
  const std::vector<PrologueOp> &p = b.plan.prologue;
  ASSERT_EQ(p.size(), a.plan.prologue.size());
  for (bool relu : {true, false}) {
    const PrologueOp &op = p.end()[relu ? -2 : -1];
    EXPECT_EQ(op.op, "fold_atom_layer");
    EXPECT_EQ(op.table, "pred_proj");
    EXPECT_EQ(op.weight, "mlp.0.weight");
    EXPECT_EQ(op.args, atomLayerOp(relu).args);
    EXPECT_EQ(op.relu, relu);
  }
  const json j = json::parse(text);
  for (size_t i = 0; i < p.size(); ++i) {
    const bool atomLayer = p[i].op == "fold_atom_layer";
    EXPECT_EQ(j["plan"]["prologue"][i].contains("args"), atomLayer) << i;
    EXPECT_EQ(j["plan"]["prologue"][i].contains("relu"), atomLayer) << i;
    if (!atomLayer)
      EXPECT_TRUE(p[i].args.empty() && !p[i].relu) << i;
  }
}

TEST(Bundle, FoldAtomLayerNeedsItsKeysAndOnlyItTakesThem) {
  // docs/bundle.md's JSON, after the reference bundle's 5 prologue ops.
  auto withLayer = [](const std::function<void(json &)> &edit) {
    return [edit](json &j) {
      j["plan"]["prologue"].push_back(
          {{"op", "fold_atom_layer"},
           {"dst", "atom_layer"},
           {"table", "pred_proj"},
           {"weight", "mlp.0.weight"},
           {"bias", ""},
           {"col_begin", 0},
           {"cols", 0},
           {"transpose", false},
           {"args",
            json::array({"arg0_const", "arg1_const", "arg0_var", "arg1_var"})},
           {"relu", true}});
      ASSERT_EQ(j["plan"]["prologue"].size(), 6u);
      edit(j["plan"]["prologue"][5]);
    };
  };
  struct Case {
    std::function<void(json &)> edit;
    const char *expected;
  };
  const Case cases[] = {
      {withLayer([](json &op) { op.erase("args"); }),
       "x.pcb: plan.prologue[5].args: missing field"},
      {withLayer([](json &op) { op.erase("relu"); }),
       "x.pcb: plan.prologue[5].relu: missing field"},
      {withLayer([](json &op) { op["args"].erase(3); }),
       "x.pcb: plan.prologue[5].args: expected 4 items, got 3"},
      {withLayer([](json &op) { op["args"].push_back("x"); }),
       "x.pcb: plan.prologue[5].args: expected 4 items, got 5"},
      {withLayer([](json &op) { op["args"][2] = ""; }),
       "x.pcb: plan.prologue[5].args[2]: must not be empty"},
      {withLayer([](json &op) { op["args"] = "arg0_const"; }),
       "x.pcb: plan.prologue[5].args: expected an array"},
      {withLayer([](json &op) { op["relu"] = 1; }),
       "x.pcb: plan.prologue[5].relu: expected true or false"},
      {withLayer([](json &op) { op["weight"] = ""; }),
       "x.pcb: plan.prologue[5].weight: fold_atom_layer needs a weight"},
      {withLayer([](json &op) { op["bias"] = "mlp.0.bias"; }),
       "x.pcb: plan.prologue[5].bias: fold_atom_layer takes no bias"},
      {withLayer([](json &op) { op["cols"] = 64; }),
       "x.pcb: plan.prologue[5].cols: fold_atom_layer takes no columns"},
      {withLayer([](json &op) { op["col_begin"] = 1; }),
       "x.pcb: plan.prologue[5].col_begin: fold_atom_layer takes no columns"},
      {withLayer([](json &op) { op["transpose"] = true; }),
       "x.pcb: plan.prologue[5].transpose: fold_atom_layer does not "
       "transpose"},
      {withLayer([](json &op) { op["extra"] = 1; }),
       "x.pcb: plan.prologue[5].extra: unknown field"},
      {[](json &j) {
         j["plan"]["prologue"][0]["args"] = json::array({"a", "b", "c", "d"});
       },
       "x.pcb: plan.prologue[0].args: only fold_atom_layer takes \"args\""},
      {[](json &j) { j["plan"]["prologue"][1]["relu"] = false; },
       "x.pcb: plan.prologue[1].relu: only fold_atom_layer takes \"relu\""},
      {[](json &j) { j["plan"]["prologue"][0]["op"] = "matmul"; },
       "x.pcb: plan.prologue[0].op: unknown prologue op 'matmul' "
       "(fold_columns, copy, tf32_fragments, f16_fragments, "
       "fold_atom_layer)"},
  };
  for (const Case &c : cases) {
    std::string error = errorAfter(c.edit);
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "', got '" << error << "'";
  }
  EXPECT_EQ(errorAfter(withLayer([](json &) {})), "");
}

// Every role of BundleNames.h is written by its name and read back.
TEST(Bundle, RoundTripsEveryLaunchRole) {
  for (const LaunchRoleName &r : kLaunchRoles) {
    Bundle a = referenceBundle();
    a.plan.launches.at(1).role = r.role;
    std::string text = serializeBundle(a);
    EXPECT_NE(text.find("\"role\": \"" + std::string(r.name) + "\""),
              std::string::npos);
    EXPECT_EQ(parseBundle(text, "x.pcb").plan.launches.at(1).role, r.role);
  }
}

TEST(Bundle, RoundTripsModuleLinks) {
  Bundle a = referenceBundle();
  a.modules.push_back({"ptx", "ptx", ".version 8.6", {}, {"engine"}});
  // The linked module has no kernels of its own: nothing launches it.
  for (Launch &l : a.plan.launches)
    if (l.module == "engine")
      l.module = "step";
  std::string text = serializeBundle(a);
  EXPECT_NE(text.find("\"link\": [\n    \"engine\"\n   ]"), std::string::npos);
  Bundle b = parseBundle(text, "x.pcb");
  EXPECT_EQ(b.modules.back().link, std::vector<std::string>{"engine"});
  EXPECT_TRUE(b.modules.front().link.empty());
  EXPECT_EQ(serializeBundle(b), text);
  // A module without links has no "link" field.
  EXPECT_EQ(json::parse(text)["modules"][0].count("link"), 0u);
}

TEST(Bundle, AdvancesInPolicyIsAPolicyLaunchWhoseModuleLinks) {
  Bundle a = referenceBundle();
  EXPECT_FALSE(advancesInPolicy(a));
  a.modules.push_back({"linked", "ptx", ".version 8.6", {}, {"engine"}});
  for (Launch &l : a.plan.launches)
    if (l.module == "engine")
      l.module = "step";
  // A module that links, launched in another role (the persistent kernel).
  Launch persistent;
  persistent.name = "persistent";
  persistent.module = "linked";
  persistent.entry = "k";
  persistent.role = LaunchRole::Persistent;
  a.plan.launches.push_back(persistent);
  EXPECT_FALSE(advancesInPolicy(a));
  EXPECT_FALSE(advancesInPolicy(a, a.plan.launches.back()));
  // The same module launched as the policy.
  Launch policy = persistent;
  policy.name = "policy_advancing";
  policy.role = LaunchRole::Policy;
  a.plan.launches.push_back(policy);
  EXPECT_TRUE(advancesInPolicy(a, a.plan.launches.back()));
  EXPECT_TRUE(advancesInPolicy(a));
}

TEST(Bundle, RejectsBadModuleLinks) {
  auto withPtx = [](json links) {
    return [links](json &j) {
      j["modules"].push_back({{"name", "p"},
                              {"format", "ptx"},
                              {"source", ".version 8.6"},
                              {"options", json::array()},
                              {"link", links}});
    };
  };
  struct Case {
    std::function<void(json &)> edit;
    const char *expected;
  };
  const Case cases[] = {
      {withPtx({"nope"}), "x.pcb: modules[3].link[0]: unknown module 'nope'"},
      {withPtx({"p"}), "x.pcb: modules[3].link[0]: module 'p' is not a cuda "
                       "module"},
      {withPtx({"policy", "policy"}),
       "x.pcb: modules[3].link[1]: module 'policy' is linked more than once"},
      {withPtx({""}), "x.pcb: modules[3].link[0]: "},
      {withPtx("engine"), "x.pcb: modules[3].link: expected an array"},
      {[](json &j) { j["modules"][0]["link"] = {"step"}; },
       "x.pcb: modules[0].link: only a ptx module links other modules"},
      {withPtx({"engine"}),
       "plan.launches[1].module: module 'engine' is linked into another and "
       "has no kernels of its own"},
  };
  for (const Case &c : cases) {
    std::string error = errorAfter(c.edit);
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "', got '" << error << "'";
  }
}

TEST(Bundle, WriteIsAtomicAndReadsBack) {
  TempDir dir;
  const std::string path = dir.file("p.pcb");
  writeBundle(path, referenceBundle());
  EXPECT_EQ(serializeBundle(readBundle(path)),
            serializeBundle(referenceBundle()));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_THROW(readBundle(dir.file("missing.pcb")), Error);
}

TEST(Bundle, RejectsForeignSchemaAndOtherVersions) {
  EXPECT_NE(errorAfter([](json &j) {
              j["schema"] = "other";
            }).find("not a proofc bundle"),
            std::string::npos);
  EXPECT_NE(errorAfter([](json &j) {
              j["version"] = 5;
            }).find("x.pcb: version: unsupported bundle format"),
            std::string::npos);
  // Version 3 (before the policy's select_modes): recompile.
  EXPECT_NE(errorAfter([](json &j) {
              j["version"] = 3;
              j["program"]["policy"].erase("select_modes");
            })
                .find("x.pcb: version: unsupported bundle format (this runtime "
                      "reads version 4; recompile the program)"),
            std::string::npos);
  // Versions 1 (before the launch roles) and 2 (before "version" and
  // "schedule.setup") spelled the key "format_version": recompile.
  for (int old : {1, 2})
    EXPECT_NE(errorAfter([&](json &j) {
                j.erase("version");
                j["format_version"] = old;
                j["plan"]["schedule"]["prologue"] =
                    j["plan"]["schedule"]["setup"];
                j["plan"]["schedule"].erase("setup");
              })
                  .find("x.pcb: format_version: unsupported bundle format "
                        "(this runtime reads version 4; recompile the "
                        "program)"),
              std::string::npos)
        << old;
  try {
    parseBundle("{ nope", "bad.pcb");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("bad.pcb: not valid JSON"),
              std::string::npos);
  }
}

// Every table of BufferTables.h is declared as the compiler declares it and
// is a binding the verifier knows with its dtype; the other dtype is refused
// by name (a zero-filled table binds nothing).
TEST(Bundle, EveryTableIsABindingOfItsDtype) {
  const Bundle bundle = referenceBundle();
  const std::vector<BufferDecl> &buffers = bundle.plan.buffers;
  for (const BufferTable &t : kBufferTables) {
    SCOPED_TRACE(std::string(t.buffer));
    auto it =
        std::find_if(buffers.begin(), buffers.end(),
                     [&](const BufferDecl &b) { return b.name == t.buffer; });
    ASSERT_NE(it, buffers.end());
    EXPECT_EQ(it->init, t.binding);
    EXPECT_EQ(it->dtype, t.dtype);
    if (t.binding.empty()) {
      EXPECT_EQ(binding::find(t.binding), nullptr);
      continue;
    }
    EXPECT_EQ(binding::find(t.binding), &t);
    const size_t index = static_cast<size_t>(it - buffers.begin());
    const std::string error = errorAfter([&](json &j) {
      j["plan"]["buffers"][index]["dtype"] =
          t.dtype == DType::F32 ? "i32" : "f32";
    });
    EXPECT_EQ(error.rfind(fmt::format("x.pcb: plan.buffers[{}].init: binding "
                                      "'{}' needs dtype {}",
                                      index, t.binding, dtypeName(t.dtype)),
                          0),
              0u)
        << error;
  }
}

TEST(Bundle, ErrorsNameThePathAndTheField) {
  struct Case {
    std::function<void(json &)> edit;
    const char *expected;
  };
  const Case cases[] = {
      {[](json &j) { j.erase("source"); }, "x.pcb: source: missing field"},
      {[](json &j) { j["extra"] = 1; }, "x.pcb: extra: unknown field"},
      {[](json &j) { j["program"]["shape"]["A"] = "6"; },
       "x.pcb: program.shape.A: expected an integer"},
      {[](json &j) { j["program"]["shape"]["S"] = 0; },
       "x.pcb: program.shape.S: 0 is out of range"},
      {[](json &j) { j["program"]["policy"]["encoder"][1]["kind"] = "gelu"; },
       "x.pcb: program.policy.encoder[1].kind: unknown op 'gelu'"},
      {[](json &j) { j["modules"][1]["format"] = "spirv"; },
       "x.pcb: modules[1].format: unknown module format 'spirv'"},
      {[](json &j) { j["modules"][1]["name"] = "engine"; },
       "x.pcb: modules[1].name: duplicate module 'engine'"},
      {[](json &j) { j["plan"]["buffers"][0]["dtype"] = "f64"; },
       "x.pcb: plan.buffers[0].dtype: unknown dtype 'f64'"},
      {[](json &j) { j["plan"]["buffers"][0]["elements"][0] = "NX"; },
       "x.pcb: plan.buffers[0].elements[0]: 'NX' is neither"},
      {[](json &j) { j["plan"]["buffers"][0]["init"] = "kb.nothing"; },
       "x.pcb: plan.buffers[0].init: unknown binding 'kb.nothing'"},
      {[](json &j) { j["plan"]["buffers"][0]["dtype"] = "f32"; },
       "x.pcb: plan.buffers[0].init: binding 'kb.facts' needs dtype i32"},
      {[](json &j) { j["plan"]["buffers"][1]["name"] = "kb_facts"; },
       "x.pcb: plan.buffers[1].name: duplicate buffer 'kb_facts'"},
      {[](json &j) { j["plan"]["launches"][1]["module"] = "nope"; },
       "x.pcb: plan.launches[1].module: unknown module 'nope'"},
      {[](json &j) { j["plan"]["launches"][1]["role"] = "derive"; },
       "x.pcb: plan.launches[1].role: unknown launch role 'derive' (init, "
       "engine, advance, advance_engine, finish, policy, persistent, copy)"},
      {[](json &j) { j["plan"]["launches"][1].erase("role"); },
       "x.pcb: plan.launches[1].role: missing field"},
      {[](json &j) { j["plan"]["launches"][1]["args"][2] = "buf:nope"; },
       "x.pcb: plan.launches[1].args[2]: unknown buffer 'nope'"},
      {[](json &j) { j["plan"]["launches"][1]["args"][2] = "sym:Q"; },
       "x.pcb: plan.launches[1].args[2]: unknown symbol 'Q'"},
      {[](json &j) { j["plan"]["launches"][1]["args"][2] = "cond:other"; },
       "x.pcb: plan.launches[1].args[2]: unknown cond 'other'"},
      {[](json &j) { j["plan"]["launches"][1]["args"][2] = "i32:1x"; },
       "x.pcb: plan.launches[1].args[2]: '1x' is not an int32 literal"},
      {[](json &j) { j["plan"]["launches"][1]["args"][2] = "ptr:x"; },
       "x.pcb: plan.launches[1].args[2]: unknown argument kind 'ptr'"},
      {[](json &j) { j["plan"]["launches"][1]["block"] = 2048; },
       "x.pcb: plan.launches[1].block: 2048 is out of range"},
      {[](json &j) { j["plan"]["schedule"]["step"][1]["launch"] = "gone"; },
       "x.pcb: plan.schedule.step[1].launch: unknown launch 'gone'"},
      {[](json &j) {
         j["plan"]["schedule"]["step"][0]["body"][0]["launch"] = "gone";
       },
       "x.pcb: plan.schedule.step[0].body[0].launch: unknown launch 'gone'"},
      {[](json &j) { j["plan"]["schedule"]["step"][0]["flag"] = "state"; },
       "x.pcb: plan.schedule.step[0].flag: flag buffer 'state' must be i32"},
      {[](json &j) { j["plan"]["schedule"]["step"][0]["cond"] = "loop"; },
       "x.pcb: plan.schedule.step[0].cond: duplicate cond 'loop'"},
      {[](json &j) { j["plan"]["schedule"]["loop_flag"] = "nope"; },
       "x.pcb: plan.schedule.loop_flag: unknown buffer 'nope'"},
      {[](json &j) { j["plan"]["schedule"]["step"] = json::array(); },
       "x.pcb: plan.schedule.step: the proof-loop step is empty"},
      {[](json &j) { j["plan"]["schedule"]["tail"] = json::array(); },
       "x.pcb: plan.schedule.tail: the tail is empty (leave the key out "
       "instead)"},
      {[](json &j) { j["plan"]["schedule"]["tail"] = {{{"launch", "gone"}}}; },
       "x.pcb: plan.schedule.tail[0].launch: unknown launch 'gone'"},
      {[](json &j) {
         j["plan"]["schedule"]["tail"] = {{{"cond", "loop"},
                                           {"flag", "loop_flag"},
                                           {"body", json::array()}}};
       },
       "x.pcb: plan.schedule.tail[0].cond: duplicate cond 'loop'"},
      {[](json &j) { j["plan"]["schedule"]["tails"] = json::array(); },
       "x.pcb: plan.schedule.tails: unknown field"},
      {[](json &j) { j["plan"]["prologue"][0]["op"] = "matmul"; },
       "x.pcb: plan.prologue[0].op: unknown prologue op 'matmul'"},
      {[](json &j) { j["plan"]["prologue"][1]["dst"] = "pred_proj"; },
       "x.pcb: plan.prologue[1].dst: duplicate prologue dst 'pred_proj'"},
      {[](json &j) { j["plan"]["prologue"][0]["cols"] = 0; },
       "x.pcb: plan.prologue[0].cols: must be > 0"},
      {[](json &j) { j["plan"]["prologue"][0]["op"] = "tf32_fragments"; },
       "x.pcb: plan.prologue[0].weight: tf32_fragments takes only a table"},
      {[](json &j) { j["plan"]["prologue"][0]["op"] = "f16_fragments"; },
       "x.pcb: plan.prologue[0].weight: f16_fragments takes only a table"},
  };
  for (const Case &c : cases) {
    std::string error = errorAfter(c.edit);
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "', got '" << error << "'";
  }
  EXPECT_EQ(errorAfter([](json &) {}), "");
}

/// parseBundle of `text`'s error ("" when it parses).
std::string textError(const std::string &text) {
  try {
    parseBundle(text, "x.pcb");
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

/// The reference bundle's text with `extra` inserted after the first
/// occurrence of `after`.
std::string insertedAfter(const std::string &after, const std::string &extra) {
  std::string text = serializeBundle(referenceBundle());
  size_t at = text.find(after);
  EXPECT_NE(at, std::string::npos) << after;
  return text.insert(at + after.size(), extra);
}

// JSON objects keep the last of two equal keys: a second "D" silently
// changed the results. Every object of a bundle must have unique keys.
TEST(BundleStrict, DuplicateKeysAreErrorsWithTheirPath) {
  EXPECT_EQ(textError(insertedAfter("\"D\": 20", ", \"D\": 21")),
            "x.pcb: program.shape: duplicate key 'D'");
  EXPECT_EQ(textError(insertedAfter("{", "\"source\": \"other\", ")),
            "x.pcb: (top level): duplicate key 'source'");
  std::string text = serializeBundle(referenceBundle());
  size_t launch = text.find("\"block\"", text.find("\"launches\""));
  ASSERT_NE(launch, std::string::npos);
  text.insert(launch, "\"block\": 1, ");
  EXPECT_EQ(textError(text), "x.pcb: plan.launches[0]: duplicate key 'block'");
  // A key with control bytes is escaped like every echoed name.
  EXPECT_EQ(textError(insertedAfter("{", "\"\\u001b\": 1, \"\\u001b\": 2, ")),
            "x.pcb: (top level): duplicate key '\\x1b'");
  EXPECT_EQ(textError(serializeBundle(referenceBundle())), "");
  // 100,000 levels deep: the path is cut, the message stays one short line.
  std::string deep(100000, '[');
  deep += "{\"k\": 1, \"k\": 2}" + std::string(100000, ']');
  std::string message =
      textError(insertedAfter("{", "\"deep\": " + deep + ", "));
  EXPECT_EQ(message.rfind("x.pcb: deep[0][0]", 0), 0u)
      << message.substr(0, 300);
  EXPECT_NE(message.find("…(100001 levels deep): duplicate key 'k'"),
            std::string::npos)
      << message.substr(0, 300);
  EXPECT_LT(message.size(), 400u);
}

// The bundle's floats obey the rules of the attributes they were exported
// from (eval.dot_score's scale, eval.layer_norm's eps: positive, finite).
TEST(BundleStrict, ScoreScaleAndEpsMustBePositive) {
  const std::pair<std::function<void(json &)>, const char *> cases[] = {
      {[](json &j) { j["program"]["policy"]["score_scale"] = 0; },
       "x.pcb: program.policy.score_scale: must be positive and finite, got 0"},
      {[](json &j) { j["program"]["policy"]["score_scale"] = -1; },
       "x.pcb: program.policy.score_scale: must be positive and finite, got "
       "-1"},
      {[](json &j) { j["program"]["policy"]["encoder"][4]["eps"] = 0; },
       "x.pcb: program.policy.encoder[4].eps: must be positive and finite, "
       "got 0"},
      {[](json &j) { j["program"]["policy"]["encoder"][4]["eps"] = -1e-5; },
       "x.pcb: program.policy.encoder[4].eps: must be positive and finite, "
       "got -1e-05"},
  };
  for (const auto &[edit, expected] : cases)
    EXPECT_EQ(errorAfter(edit), expected);
  // eps of an op other than layer_norm is not read.
  EXPECT_EQ(errorAfter([](json &j) {
              j["program"]["policy"]["encoder"][3]["eps"] = 0;
            }),
            "");
}

// The kernels were generated for the program's shape: a field edited after
// compilation is refused, never run with kernels built for another value.
TEST(BundleStrict, ShapeMustMatchWhatTheKernelsWereBuiltFor) {
  const std::pair<std::function<void(json &)>, const char *> cases[] = {
      {[](json &j) { j["program"]["shape"]["d"] = 32; },
       "x.pcb: program.shape.d: 32 differs from the encoder's output width 64 "
       "(the width the kernels were generated for)"},
      {[](json &j) { j["program"]["shape"]["L"] = 3; },
       "x.pcb: program.shape.L: 3 differs from the encoder's 2 linear ops"},
      {[](json &j) { j["program"]["shape"]["A"] = 7; },
       "x.pcb: program.shape.A: 7 differs from the A = 6 the kernels were "
       "compiled for (modules[0].options[0])"},
      {[](json &j) { j["program"]["shape"]["S"] = 60; },
       "x.pcb: program.shape.S: 60 differs from the S = 120 the kernels were "
       "compiled for (modules[0].options[1])"},
      {[](json &j) { j["program"]["policy"]["encoder"][3]["in"] = 32; },
       "x.pcb: program.policy.encoder[3].in: 32 differs from the width 64 the "
       "previous ops yield"},
      {[](json &j) { j["program"]["policy"]["encoder"][4]["out"] = 32; },
       "x.pcb: program.policy.encoder[4].out: 32 differs from in = 64"},
      {[](json &j) { j["program"]["policy"]["encoder"][0]["in"] = 100; },
       "x.pcb: program.policy.encoder[0].in: 100 is not 3 x a positive "
       "embedding width"},
      {[](json &j) { j["program"]["policy"]["encoder"].erase(0); },
       "x.pcb: program.policy.encoder[0].kind: 'relu' comes before any "
       "atom_embed"},
      {[](json &j) { j["program"]["policy"]["encoder"] = json::array(); },
       "x.pcb: program.policy.encoder: the encoder has no ops"},
  };
  for (const auto &[edit, expected] : cases)
    EXPECT_EQ(errorAfter(edit), expected);
}
} // namespace
} // namespace proofc::test
