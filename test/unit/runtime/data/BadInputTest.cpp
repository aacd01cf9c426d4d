//===- BadInputTest.cpp - The bad-input catalogue of docs/errors.md -------===//
//
// Inputs that are wrong in the ways real files go wrong: huge lines, NUL
// bytes, invalid UTF-8, truncation, empty files, one kind of file passed as
// another, weights for another program, values out of range, hostile
// nesting. Each must end as one proofc::Error naming the file and line (or
// tensor, or field) -- or, where the spec allows the input, load without
// losing a byte. docs/errors.md lists these with the other files' cases.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "bundle/Bundle.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Safetensors.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

using namespace proofc;
using namespace std::string_literals;
using proofc::test::TempDir;

namespace {

constexpr size_t kHugeLine = 10u << 20; // 10 MiB
/// Bound on a message about a huge input: it names the place, not the bytes.
constexpr size_t kShortMessage = 300;

using test::errorOf;

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string safetensorsImage(const std::string &header,
                             const std::string &data = "") {
  std::string bytes(8, '\0');
  uint64_t n = header.size();
  std::memcpy(bytes.data(), &n, 8);
  return bytes + header + data;
}

uint64_t leU64(const std::string &bytes) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data(), 8);
  return v;
}

} // namespace

//===----------------------------------------------------------------------===//
// Dataset TSV files
//===----------------------------------------------------------------------===//

TEST(BadInputTsv, HugeNameIsReadWhole) {
  TempDir dir;
  std::string name(kHugeLine, 'x');
  writeDataset(dir, "a\tr\tb\n" + name + "\tr\tb\n");
  Dataset ds = loadDataset(dir.path());
  int32_t id = ds.entities.find(name);
  ASSERT_GE(id, 0);
  EXPECT_EQ(ds.entities.name(id).size(), kHugeLine);
  ASSERT_EQ(ds.train.size(), 2u);
  EXPECT_EQ(ds.train[1].h, id);
}

TEST(BadInputTsv, HugeLineWithoutTabsNamesLineNotBytes) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n" + std::string(kHugeLine, 'x') + "\n");
  std::string message = errorOf([&] { loadDataset(dir.path()); });
  EXPECT_EQ(message, dir.file("train.tsv") +
                         ":2: expected 3 TAB-separated fields (head, "
                         "relation, tail), found 1");
}

TEST(BadInputTsv, MillionTabsAreCounted) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n" + std::string(1 << 20, '\t') + "\n");
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("train.tsv") +
                ":2: expected 3 TAB-separated fields (head, relation, tail), "
                "found 1048577");
}

TEST(BadInputTsv, NulByteIsPartOfTheName) {
  // U+0000 is valid UTF-8 and the spec allows any name without TAB or
  // newline: "a\0b" is its own entity, not "a" cut short.
  TempDir dir;
  writeDataset(dir, "a\0b\tr\tb\n"s);
  Dataset ds = loadDataset(dir.path());
  EXPECT_GE(ds.entities.find("a\0b"s), 0);
  EXPECT_GE(ds.entities.find("a"), 0); // from valid.tsv
  EXPECT_NE(ds.entities.find("a\0b"s), ds.entities.find("a"));
  EXPECT_EQ(ds.numEntities(), 4); // a, a\0b, b, c
}

TEST(BadInputTsv, InvalidUtf8NamesTheField) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n\xc3\x28\tr\tb\n"); // C3 needs a continuation
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("train.tsv") + ":2: invalid UTF-8 in the head field");
  writeDataset(dir, "a\tr\tb\n", "a\tr\tb\n", "b\tr\x80\tc\n");
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("test.tsv") + ":1: invalid UTF-8 in the relation field");
}

TEST(BadInputTsv, TruncatedMidLine) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\nc\tr");
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("train.tsv") +
                ":2: expected 3 TAB-separated fields (head, relation, tail), "
                "found 2");
}

TEST(BadInputTsv, TruncatedMidUtf8Sequence) {
  TempDir dir;
  writeDataset(dir, "a\tr\t\xe6\x9d");
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("train.tsv") + ":1: invalid UTF-8 in the tail field");
}

TEST(BadInputTsv, EmptyFilesLoadAsAnEmptyDataset) {
  // Empty (or blank-line-only) files are well-formed: an empty split, no
  // rules. Whether an empty test split can be evaluated is the caller's
  // question (computeMetrics of no candidates), not the loader's.
  TempDir dir;
  writeDataset(dir, "", "\n\r\n\n", "", "");
  Dataset ds = loadDataset(dir.path());
  EXPECT_EQ(ds.numEntities(), 0);
  EXPECT_EQ(ds.numRelations(), 0);
  EXPECT_TRUE(ds.train.empty());
  EXPECT_TRUE(ds.valid.empty());
  EXPECT_TRUE(ds.test.empty());
  EXPECT_TRUE(ds.rules.empty());
}

TEST(BadInputTsv, BinaryFileNamesFileAndLine) {
  // A weights file where train.tsv should be.
  TempDir dir;
  writeDataset(dir, readFile(proofc::test::weightsFile("kinship")));
  std::string message = errorOf([&] { loadDataset(dir.path()); });
  EXPECT_TRUE(startsWith(message, dir.file("train.tsv") + ":1: ")) << message;
  EXPECT_LT(message.size(), kShortMessage) << message;
}

TEST(BadInputTsv, DataPathIsAFile) {
  TempDir dir;
  std::string file = dir.write("data", "a\tr\tb\n");
  EXPECT_EQ(errorOf([&] { loadDataset(file); }),
            file + "/train.tsv: cannot read: Not a directory");
}

TEST(BadInputTsv, SplitIsADirectory) {
  TempDir dir;
  writeDataset(dir, "a\tr\tb\n");
  std::filesystem::remove(dir.file("test.tsv"));
  std::filesystem::create_directory(dir.file("test.tsv"));
  EXPECT_EQ(errorOf([&] { loadDataset(dir.path()); }),
            dir.file("test.tsv") + ": cannot read: is a directory");
}

//===----------------------------------------------------------------------===//
// rules.txt
//===----------------------------------------------------------------------===//

namespace {

std::string rulesError(const std::string &text) {
  Vocab entities({"a", "b"});
  Vocab relations({"p", "q"});
  return errorOf([&] { parseRules(text, "rules.txt", entities, relations); });
}

} // namespace

TEST(BadInputRules, HugeCommentLineIsSkipped) {
  Vocab entities({"a"});
  Vocab relations({"p", "q"});
  std::string text =
      "% " + std::string(kHugeLine, 'c') + "\np(X,Y) :- q(Y,X).\n";
  std::vector<Rule> rules = parseRules(text, "rules.txt", entities, relations);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].line, 2);
}

TEST(BadInputRules, HugeUnknownNameNamesLineAndColumn) {
  // The name is echoed, but only its first 80 bytes and its length.
  std::string message =
      rulesError("p(X,Y) :- '" + std::string(kHugeLine, 'x') + "'(X,Y).\n");
  EXPECT_EQ(message, "rules.txt:1:11: unknown relation '" +
                         std::string(80, 'x') +
                         "\xe2\x80\xa6(10485760 bytes)' (not in train, valid "
                         "or test)")
      << message.substr(0, kShortMessage);
}

TEST(BadInputRules, NulByteOutsideQuotes) {
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,Y)\0.\n"s),
            "rules.txt:1:17: expected ',' or '.' after a body atom, found "
            "byte 0x00");
}

TEST(BadInputRules, NulByteInQuotedNameDoesNotTruncateIt) {
  // 'q\0' is not q: the name is compared whole, and echoed escaped (a raw
  // NUL would end what(), a C string, early).
  std::string message = rulesError("p(X,Y) :- 'q\0'(X,Y).\n"s);
  EXPECT_EQ(message, "rules.txt:1:11: unknown relation 'q\\x00' (not in "
                     "train, valid or test)")
      << message;
}

TEST(BadInputRules, ControlBytesInNamesAreEscaped) {
  // A terminal escape sequence in a name must not reach the terminal.
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,'\x1b[2J\x07').\n"),
            "rules.txt:1:15: unknown entity '\\x1b[2J\\x07' (not in train, "
            "valid or test)");
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,Y)\x1b.\n"),
            "rules.txt:1:17: expected ',' or '.' after a body atom, found "
            "byte 0x1b");
  // Printable non-ASCII is shown as the character.
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,Y)\xc3\xa9.\n"),
            "rules.txt:1:17: expected ',' or '.' after a body atom, found "
            "'\xc3\xa9'");
}

TEST(BadInputRules, InvalidUtf8Name) {
  // Names of the vocabulary are valid UTF-8, so an invalid one never matches.
  // Echoed byte by byte: the message itself stays valid UTF-8.
  EXPECT_EQ(rulesError("p(X,Y) :- '\xff\xfe'(X,Y).\n"),
            "rules.txt:1:11: unknown relation '\\xff\\xfe' (not in train, "
            "valid or test)");
  EXPECT_EQ(rulesError("p(X,Y) :- q\xe9(X,Y).\n"),
            "rules.txt:1:12: expected '(' after the predicate name, found "
            "byte 0xe9");
}

TEST(BadInputRules, TruncatedAfterNeck) {
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,Y).\np(X,Y) :-"),
            "rules.txt:2:10: expected a predicate name, found end of file");
}

TEST(BadInputRules, TruncatedInsideAtom) {
  EXPECT_EQ(rulesError("p(X,Y) :- q(X,"),
            "rules.txt:1:15: expected a variable or a constant, found end of "
            "file");
}

//===----------------------------------------------------------------------===//
// safetensors files
//===----------------------------------------------------------------------===//

TEST(BadInputSafetensors, EmptyFile) {
  TempDir dir;
  std::string path = dir.write("w.safetensors", "");
  EXPECT_EQ(errorOf([&] { readSafetensors(path); }),
            path + ": file is 0 bytes, shorter than the 8-byte header size");
}

TEST(BadInputSafetensors, TruncatedRealFile) {
  TempDir dir;
  std::string bytes = readFile(proofc::test::weightsFile("kinship"));
  uint64_t header = leU64(bytes);
  ASSERT_EQ(header, 960u);
  ASSERT_EQ(bytes.size(), 121288u);

  std::string path = dir.write("w.safetensors", bytes.substr(0, 5));
  EXPECT_EQ(errorOf([&] { readSafetensors(path); }),
            path + ": file is 5 bytes, shorter than the 8-byte header size");

  path = dir.write("w.safetensors", bytes.substr(0, 8 + header / 2));
  EXPECT_EQ(errorOf([&] { readSafetensors(path); }),
            path + ": header size 960 runs past the end of the file (488 "
                   "bytes)");

  // Cut inside the data: the tensor stored last runs past the end.
  path = dir.write("w.safetensors", bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(errorOf([&] { readSafetensors(path); }),
            path + ": tensor 'var_emb': data_offsets [117248, 120320] run "
                   "past the end of the data (120319 bytes)");
}

TEST(BadInputSafetensors, TsvFilePassedAsWeights) {
  // The first 8 bytes of a text file read as a huge header size.
  std::string text = readFile(proofc::test::dataDir("kinship") + "/train.tsv");
  std::string message = errorOf([&] { parseSafetensors(text, "train.tsv"); });
  EXPECT_EQ(message, "train.tsv: header size " + std::to_string(leU64(text)) +
                         " runs past the end of the file (" +
                         std::to_string(text.size()) + " bytes)");
}

TEST(BadInputSafetensors, NulPaddedHeader) {
  // The format pads with spaces. A JSON reader that stops at the first NUL
  // would accept this and drop whatever follows it.
  EXPECT_EQ(errorOf([&] {
              parseSafetensors(safetensorsImage("{}" + std::string(6, '\0')),
                               "w");
            }),
            "w: header is not valid JSON: NUL byte at offset 10");
  EXPECT_EQ(errorOf([&] {
              parseSafetensors(safetensorsImage("{}\0{\"t\": 1}"s), "w");
            }),
            "w: header is not valid JSON: NUL byte at offset 10");
}

TEST(BadInputSafetensors, InvalidUtf8TensorName) {
  std::string message = errorOf([&] {
    parseSafetensors(
        safetensorsImage("{\"\xc3\x28\": {\"dtype\": \"F32\", \"shape\": [], "
                         "\"data_offsets\": [0, 4]}}",
                         std::string(4, '\0')),
        "w");
  });
  EXPECT_TRUE(startsWith(message, "w: header is not valid JSON: ")) << message;
}

TEST(BadInputSafetensors, NulInTensorNameIsKept) {
  // JSON may spell U+0000 as \u0000; "a\0b" is a tensor of its own.
  TensorMap t = parseSafetensors(
      safetensorsImage(
          R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                          "a\u0000b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
          std::string(8, '\0')),
      "w");
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.count("a\0b"s), 1u);
}

TEST(BadInputSafetensors, DeeplyNestedHeaderDoesNotExhaustTheStack) {
  std::string header =
      "{\"t\": " + std::string(1 << 20, '[') + std::string(1 << 20, ']') + "}";
  EXPECT_EQ(errorOf([&] { parseSafetensors(safetensorsImage(header), "w"); }),
            "w: tensor 't': entry is not a JSON object");
}

TEST(BadInputSafetensors, HugeMetadataIsAccepted) {
  std::string header =
      R"({"__metadata__": {"note": ")" + std::string(kHugeLine, 'm') +
      R"("}, "t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})";
  TensorMap t = parseSafetensors(
      safetensorsImage(header, std::string("\0\0\x80\x3f", 4)), "w");
  ASSERT_EQ(t.count("t"), 1u);
  EXPECT_EQ(t.at("t").data, std::vector<float>{1.0f});
}

TEST(BadInputSafetensors, NamesAreEscapedAndBoundedInMessages) {
  // JSON can spell any control character; the message shows it escaped.
  EXPECT_EQ(errorOf([] {
              parseSafetensors(
                  safetensorsImage(R"({"\u001b]0;x\u0007": {"dtype": "F16",
                                       "shape": [], "data_offsets": [0, 2]}})",
                                   std::string(2, '\0')),
                  "w");
            }),
            "w: tensor '\\x1b]0;x\\x07' has dtype F16, only F32 is supported");
  // A 10 MiB tensor name and a 10 MiB dtype: 80 bytes of each, and sizes.
  std::string huge(kHugeLine, 'n');
  EXPECT_EQ(
      errorOf([&] {
        parseSafetensors(safetensorsImage("{\"" + huge + "\": {\"dtype\": \"" +
                                          huge + "\"}}"),
                         "w");
      }),
      "w: tensor '" + std::string(80, 'n') +
          "\xe2\x80\xa6(10485760 bytes)' has dtype " + std::string(80, 'n') +
          "\xe2\x80\xa6(10485760 bytes), only F32 is supported");
}

TEST(BadInputSafetensors, ParseErrorQuotingAHugeTokenIsBounded) {
  // nlohmann quotes the token it stopped in: here 10 MiB of an unterminated
  // string with a control byte at its end.
  std::string message = errorOf([] {
    parseSafetensors(
        safetensorsImage("{\"" + std::string(kHugeLine, 's') + "\x01"), "w");
  });
  EXPECT_TRUE(startsWith(message, "w: header is not valid JSON: ")) << message;
  EXPECT_LE(message.size(), kShortMessage * 5) << message.substr(0, 400);
  for (char c : message)
    ASSERT_FALSE(static_cast<unsigned char>(c) < 0x20) << message;
}

//===----------------------------------------------------------------------===//
// Weights for another program (real kinship weights, V10 variants)
//===----------------------------------------------------------------------===//

namespace {

class BadInputWeights : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dataset_ = new Dataset(loadDataset(proofc::test::dataDir("kinship")));
    weights_ = new TensorMap(readSafetensors(path()));
  }
  static void TearDownTestSuite() {
    delete dataset_;
    delete weights_;
  }
  static std::string path() { return proofc::test::weightsFile("kinship"); }

  std::string checkError(const ProgramSpec &program) const {
    return errorOf(
        [&] { checkWeights(program, *dataset_, *weights_, path()); });
  }

  static Dataset *dataset_;
  static TensorMap *weights_;
};
Dataset *BadInputWeights::dataset_ = nullptr;
TensorMap *BadInputWeights::weights_ = nullptr;

} // namespace

TEST_F(BadInputWeights, TheirOwnProgramAccepts) {
  EXPECT_EQ(checkError(proofc::test::v10Program()), "(no error)");
}

TEST_F(BadInputWeights, NarrowerProgram) {
  ProgramSpec program = proofc::test::v10Program();
  for (PolicyOp &op : program.policy.encoder) {
    op.in /= 2;
    op.out /= 2;
  }
  program.shape.d = 32;
  EXPECT_EQ(checkError(program),
            path() +
                ": tensor 'pred_emb' has shape [27, 64], expected [27, 32]");
}

TEST_F(BadInputWeights, DeeperProgram) {
  ProgramSpec program = proofc::test::v10Program();
  PolicyOp linear{PolicyOpKind::Linear};
  linear.weight = "mlp.2.weight";
  linear.bias = "mlp.2.bias";
  linear.in = linear.out = 64;
  program.policy.encoder.push_back(linear);
  EXPECT_EQ(checkError(program),
            path() + ": missing tensor 'mlp.2.weight' (shape [64, 64])");
}

TEST_F(BadInputWeights, ShallowerProgram) {
  ProgramSpec program = proofc::test::v10Program();
  program.policy.encoder.resize(program.policy.encoder.size() - 3);
  EXPECT_EQ(checkError(program),
            path() + ": unexpected tensor 'mlp.1.bias': program 'v10' does "
                     "not use it (weights for another program?)");
}

TEST_F(BadInputWeights, FewerAtomsPerState) {
  ProgramSpec program = proofc::test::v10Program();
  program.shape.A = 4; // var_emb has 2A rows
  EXPECT_EQ(checkError(program),
            path() + ": tensor 'var_emb' has shape [12, 64], expected [8, 64]");
}

TEST_F(BadInputWeights, ExtraTensorNameIsEscaped) {
  TensorMap weights = *weights_;
  weights["\x1b[2Jextra"] = Tensor{{1}, {0.0f}};
  EXPECT_EQ(errorOf([&] {
              checkWeights(proofc::test::v10Program(), *dataset_, weights,
                           path());
            }),
            path() + ": unexpected tensor '\\x1b[2Jextra': program 'v10' does "
                     "not use it (weights for another program?)");
}

TEST_F(BadInputWeights, OtherTensorNames) {
  ProgramSpec program = proofc::test::v10Program();
  program.policy.encoder[0].predTable = "encoder.pred_emb";
  EXPECT_EQ(checkError(program),
            path() + ": missing tensor 'encoder.pred_emb' (shape [27, 64])");
}

//===----------------------------------------------------------------------===//
// Bundles
//===----------------------------------------------------------------------===//

namespace {

using nlohmann::json;

/// The smallest bundle parseBundle accepts: one ptx module, one launch, the
/// loop cond and its flag.
json minimalBundle() {
  return json::parse(R"({
    "schema": "proofc-bundle", "version": 4,
    "proofc_version": "0.1.0", "source": "s.mlir",
    "program": {"name": "s",
                "shape": {"A": 1, "S": 1, "D": 1, "B": 1, "d": 1, "L": 0},
                "policy": {"score_scale": 1.0, "encoder": [
                  {"kind": "atom_embed", "pred_table": "p", "const_table": "c",
                   "var_table": "v", "weight": "w", "bias": "b", "in": 3,
                   "out": 1, "eps": 0},
                  {"kind": "sum_atoms", "pred_table": "", "const_table": "",
                   "var_table": "", "weight": "", "bias": "", "in": 0,
                   "out": 0, "eps": 0}],
                "select_modes": ["greedy", "sampled"]}},
    "modules": [{"name": "m", "format": "ptx", "source": "x", "options": []}],
    "plan": {"buffers": [{"name": "f", "dtype": "i32", "elements": ["1"],
                          "init": ""}],
             "prologue": [],
             "launches": [{"name": "k", "role": "policy", "module": "m",
                           "entry": "k",
                           "grid": ["B"], "block": 1, "shared_bytes": 0,
                           "args": ["buf:f", "cond:c"]}],
             "schedule": {"setup": [], "step": [{"launch": "k"}],
                          "loop_flag": "f", "loop_cond": "c"}}})");
}

std::string bundleError(const std::string &text) {
  return errorOf([&] { parseBundle(text, "b.pcb"); });
}

std::string bundleErrorAfter(const std::function<void(json &)> &edit) {
  json j = minimalBundle();
  edit(j);
  return bundleError(j.dump());
}

} // namespace

TEST(BadInputBundle, MinimalBundleIsAccepted) {
  EXPECT_EQ(bundleError(minimalBundle().dump()), "(no error)");
}

TEST(BadInputBundle, EmptyFile) {
  TempDir dir;
  std::string path = dir.write("b.pcb", "");
  std::string message = errorOf([&] { readBundle(path); });
  EXPECT_TRUE(startsWith(message, path + ": not valid JSON: ")) << message;
}

TEST(BadInputBundle, Truncated) {
  std::string text = minimalBundle().dump();
  std::string message = bundleError(text.substr(0, text.size() / 2));
  EXPECT_TRUE(startsWith(message, "b.pcb: not valid JSON: ")) << message;
}

TEST(BadInputBundle, WeightsFilePassedAsBundle) {
  // Its header size (960) is c0 03 00 ...: binary from byte 2 on.
  EXPECT_EQ(bundleError(readFile(proofc::test::weightsFile("kinship"))),
            "b.pcb: not valid JSON: NUL byte at offset 2");
}

TEST(BadInputBundle, NulByteIsNotTheEnd) {
  // A JSON reader that stops at the first NUL would accept a valid bundle
  // followed by anything.
  std::string text = minimalBundle().dump();
  EXPECT_EQ(bundleError(text + '\0' + "{\"junk\": 1}"),
            "b.pcb: not valid JSON: NUL byte at offset " +
                std::to_string(text.size()));
}

TEST(BadInputBundle, NumberOverflowIsAParseError) {
  std::string text = minimalBundle().dump();
  const std::string scale = "\"score_scale\":1.0";
  ASSERT_NE(text.find(scale), std::string::npos) << text;
  text.replace(text.find(scale), scale.size(), "\"score_scale\":1e3001");
  std::string message = bundleError(text);
  EXPECT_TRUE(startsWith(message, "b.pcb: not valid JSON: ")) << message;
}

TEST(BadInputBundle, TopLevelNotAnObject) {
  EXPECT_EQ(bundleError("[1, 2]"),
            "b.pcb: (top level): expected a JSON object");
}

TEST(BadInputBundle, ShapeOutOfRange) {
  EXPECT_EQ(
      bundleErrorAfter([](json &j) { j["program"]["shape"]["A"] = 2000; }),
      "b.pcb: program.shape.A: 2000 is out of range [1, 1024]");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["program"]["shape"]["B"] = uint64_t{1} << 63;
            }),
            "b.pcb: program.shape.B: 9223372036854775808 is out of range [1, "
            "16777216]");
  EXPECT_EQ(bundleErrorAfter([](json &j) { j["program"]["shape"]["D"] = 1e3; }),
            "b.pcb: program.shape.D: expected an integer");
  EXPECT_EQ(bundleErrorAfter([](json &j) { j["program"]["shape"]["L"] = -1; }),
            "b.pcb: program.shape.L: -1 is out of range [0, 1024]");
}

TEST(BadInputBundle, LaunchOutOfRange) {
  EXPECT_EQ(
      bundleErrorAfter([](json &j) { j["plan"]["launches"][0]["block"] = 0; }),
      "b.pcb: plan.launches[0].block: 0 is out of range [1, 1024]");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["plan"]["launches"][0]["shared_bytes"] = 1 << 21;
            }),
            "b.pcb: plan.launches[0].shared_bytes: 2097152 is out of range "
            "[0, 1048576]");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["plan"]["launches"][0]["args"][0] = "i32:2147483648";
            }),
            "b.pcb: plan.launches[0].args[0]: '2147483648' is not an int32 "
            "literal");
}

TEST(BadInputBundle, FloatOutOfFloatRange) {
  // 1e300 is a JSON number but no float: it must not become inf.
  EXPECT_EQ(bundleErrorAfter(
                [](json &j) { j["program"]["policy"]["score_scale"] = 1e300; }),
            "b.pcb: program.policy.score_scale: 1e+300 is out of the float "
            "range");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["program"]["policy"]["encoder"] =
                  json::array({{{"kind", "layer_norm"},
                                {"pred_table", ""},
                                {"const_table", ""},
                                {"var_table", ""},
                                {"weight", "w"},
                                {"bias", "b"},
                                {"in", 1},
                                {"out", 1},
                                {"eps", -1e39}}});
            }),
            "b.pcb: program.policy.encoder[0].eps: -1e+39 is out of the float "
            "range");
}

TEST(BadInputBundle, UnknownKeysAreEscapedInThePath) {
  EXPECT_EQ(bundleErrorAfter([](json &j) { j["plan"]["\x1b[2J"] = 1; }),
            "b.pcb: plan.\\x1b[2J: unknown field");
  EXPECT_EQ(bundleErrorAfter(
                [](json &j) { j["plan"][std::string(kHugeLine, 'k')] = 1; }),
            "b.pcb: plan." + std::string(80, 'k') +
                "\xe2\x80\xa6(10485760 bytes): unknown field");
}

TEST(BadInputBundle, NamesMustBePrintableAndShort) {
  // The runtime echoes bundle names in its messages (the CUDA backend too),
  // so the parser admits only names that need no escaping.
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["modules"][0]["name"] = "m\n";
              j["plan"]["launches"][0]["module"] = "m\n";
            }),
            "b.pcb: modules[0].name: 'm\\x0a' is not a name (at most 256 bytes "
            "of printable UTF-8, no backslash)");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["plan"]["buffers"][0]["name"] = std::string(300, 'f');
            }),
            "b.pcb: plan.buffers[0].name: '" + std::string(80, 'f') +
                "\xe2\x80\xa6(300 bytes)' is not a name (at most 256 bytes of "
                "printable UTF-8, no backslash)");
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["plan"]["launches"][0]["args"][0] = "buf:\x1b";
            }),
            "b.pcb: plan.launches[0].args[0]: 'buf:\\x1b' is not a name (at "
            "most 256 bytes of printable UTF-8, no backslash)");
  // Free text (kernel source, options, the program's path) is not a name.
  EXPECT_EQ(bundleErrorAfter([](json &j) {
              j["modules"][0]["source"] = "line 1\n\tline 2\n";
              j["source"] = "dir\\p.mlir";
            }),
            "(no error)");
  EXPECT_EQ(bundleErrorAfter(
                [](json &j) { j["program"]["name"] = std::string(256, 'p'); }),
            "(no error)");
}

TEST(BadInputBundle, DeeplyNestedCondsAreAnErrorNotACrash) {
  // A cond body holds schedule nodes, so a hostile bundle can nest them as
  // deep as its size allows; ~100k levels (4 MB) must not exhaust the stack.
  // Run in a child process so that a crash fails this test, not the suite.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int depth = 100000;
  std::string step;
  for (int i = 0; i < depth; ++i)
    step += "[{\"cond\": \"c" + std::to_string(i) +
            "\", \"flag\": \"f\", \"body\": ";
  step += "[{\"launch\": \"k\"}]";
  for (int i = 0; i < depth; ++i)
    step += "}]";
  json j = minimalBundle();
  j["plan"]["schedule"]["step"] = "@STEP@";
  std::string text = j.dump();
  text.replace(text.find("\"@STEP@\""), 8, step);
  EXPECT_EXIT(
      {
        std::string message = bundleError(text);
        bool ok = startsWith(message, "b.pcb: plan.schedule.step[0].body[0]") &&
                  message.find("nested deeper than") != std::string::npos;
        if (!ok)
          std::fprintf(stderr, "unexpected: %.300s\n", message.c_str());
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
