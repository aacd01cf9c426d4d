//===- FuzzTsv.cpp - libFuzzer target for dataset loading -----------------===//
//
// loadDataset reads files, so the input is split into the four files of a
// dataset directory written to a per-process scratch directory: train.tsv,
// valid.tsv, test.tsv and rules.txt, separated by the byte 0x1E (ASCII record
// separator; a missing part is an empty file, the last part runs to the end).
// A rejected dataset must be a proofc::Error naming one of the four files; an
// accepted one must account for every non-empty line of every split: one
// triple whose names, joined by TABs, give the line back (spec §1.1; a
// leading byte-order mark is not part of the first line).
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"
#include "support/MessageText.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace proofc;
using proofc::fuzz::ScratchDir;

namespace {

constexpr char kSeparator = '\x1e';
const char *const kFiles[4] = {"train.tsv", "valid.tsv", "test.tsv",
                               "rules.txt"};

/// The lines a split must yield: a leading UTF-8 byte-order mark dropped
/// (docs/spec-notes.md), LF-separated, one CR before the LF dropped, empty
/// lines skipped.
std::vector<std::string_view> expectedLines(std::string_view text) {
  text = stripLeadingBom(text);
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    bool terminated = nl != std::string_view::npos;
    std::string_view line =
        text.substr(pos, terminated ? nl - pos : std::string_view::npos);
    pos = terminated ? nl + 1 : text.size();
    if (terminated && !line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (!line.empty())
      lines.push_back(line);
  }
  return lines;
}

void checkSplit(const Dataset &ds, const std::vector<Triple> &triples,
                std::string_view text, const char *file) {
  std::vector<std::string_view> lines = expectedLines(text);
  FUZZ_CHECK(triples.size() == lines.size(), "%s: %zu triples for %zu lines",
             file, triples.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const Triple &t = triples[i];
    FUZZ_CHECK(t.h >= 0 && t.h < ds.numEntities() && t.t >= 0 &&
                   t.t < ds.numEntities() && t.r >= 0 &&
                   t.r < ds.numRelations(),
               "%s: triple %zu has ids out of range", file, i);
    std::string joined = ds.entities.name(t.h) + "\t" +
                         ds.relations.name(t.r) + "\t" + ds.entities.name(t.t);
    FUZZ_CHECK(joined == lines[i], "%s: triple %zu does not give its line back",
               file, i);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  std::string_view parts[4];
  for (int i = 0; i < 4; ++i) {
    size_t sep = i < 3 ? input.find(kSeparator) : std::string_view::npos;
    parts[i] = input.substr(0, sep);
    input = sep == std::string_view::npos ? std::string_view()
                                          : input.substr(sep + 1);
  }
  const ScratchDir &dir = ScratchDir::get();
  for (int i = 0; i < 4; ++i)
    dir.write(kFiles[i], parts[i]);

  Dataset ds;
  try {
    ds = loadDataset(dir.path());
  } catch (const Error &e) {
    std::string_view message = e.what();
    bool namesFile = false;
    for (const char *file : kFiles)
      namesFile = namesFile || message.rfind(dir.file(file) + ":", 0) == 0;
    FUZZ_CHECK(namesFile, "message does not name a dataset file: %s",
               e.what());
    proofc::fuzz::checkMessage(e.what());
    return 0;
  }
  for (int32_t i = 1; i < ds.numEntities(); ++i)
    FUZZ_CHECK(ds.entities.name(i - 1) < ds.entities.name(i),
               "entity names are not strictly byte-sorted at id %d", i);
  for (int32_t i = 1; i < ds.numRelations(); ++i)
    FUZZ_CHECK(ds.relations.name(i - 1) < ds.relations.name(i),
               "relation names are not strictly byte-sorted at id %d", i);
  checkSplit(ds, ds.train, parts[0], kFiles[0]);
  checkSplit(ds, ds.valid, parts[1], kFiles[1]);
  checkSplit(ds, ds.test, parts[2], kFiles[2]);
  for (const Rule &rule : ds.rules) {
    FUZZ_CHECK(!rule.body.empty() && rule.body.size() <= size_t{kMaxBody},
               "rule at line %d has %zu body atoms", rule.line,
               rule.body.size());
    auto checkAtom = [&](const Atom &a) {
      FUZZ_CHECK(a.p >= 0 && a.p < ds.numRelations() &&
                     a.a < ds.numEntities() && a.b < ds.numEntities(),
                 "rule at line %d has ids out of range", rule.line);
    };
    checkAtom(rule.head);
    for (const Atom &atom : rule.body)
      checkAtom(atom);
  }
  return 0;
}
