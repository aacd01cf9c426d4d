//===- FuzzRules.cpp - libFuzzer target for the rules.txt parser ----------===//
//
// The input is the text of a rules.txt, parsed against a fixed vocabulary
// (bare, quoted, non-ASCII and underscore-led names, as in the real data).
// A rejected text must be a proofc::Error naming "rules.txt:LINE:COL"; an
// accepted one must give rules whose ids are in range, whose variables are
// numbered -1, -2, ... by first occurrence, and whose lines increase.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace proofc;

namespace {

const Vocab &entities() {
  static const Vocab vocab({"a", "b", "c", "it's", "New York", "e\xc3\xa9",
                            "x_1"});
  return vocab;
}

const Vocab &relations() {
  static const Vocab vocab({"p", "q", "r", "p_2", "/film/genre", "_hyp",
                            "locatedIn", "neighborOf"});
  return vocab;
}

/// Checks one term; `nextVar` is the number of variables seen so far in the
/// rule (a new variable must be the next one).
void checkTerm(int32_t term, int32_t &nextVar, int line) {
  if (term >= 0) {
    FUZZ_CHECK(term < entities().size(), "line %d: entity id %d", line, term);
    return;
  }
  FUZZ_CHECK(-term <= nextVar + 1, "line %d: variable %d after %d variables",
             line, term, nextVar);
  if (-term == nextVar + 1)
    ++nextVar;
}

void checkAtom(const Atom &atom, int32_t &nextVar, int line) {
  FUZZ_CHECK(atom.p >= 0 && atom.p < relations().size(), "line %d: pred %d",
             line, atom.p);
  checkTerm(atom.a, nextVar, line);
  checkTerm(atom.b, nextVar, line);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::vector<Rule> rules;
  try {
    rules = parseRules(text, "rules.txt", entities(), relations());
  } catch (const Error &e) {
    FUZZ_CHECK(std::strncmp(e.what(), "rules.txt:", 10) == 0,
               "message does not name the file: %s", e.what());
    proofc::fuzz::checkMessage(e.what());
    return 0;
  }
  int lines = 1;
  for (char c : text)
    lines += c == '\n';
  int previousLine = 0;
  for (const Rule &rule : rules) {
    FUZZ_CHECK(rule.line > previousLine && rule.line <= lines,
               "rule line %d after %d (%d lines)", rule.line, previousLine,
               lines);
    previousLine = rule.line;
    FUZZ_CHECK(!rule.body.empty() && rule.body.size() <= size_t{kMaxBody},
               "line %d: %zu body atoms", rule.line, rule.body.size());
    int32_t vars = 0;
    checkAtom(rule.head, vars, rule.line);
    for (const Atom &atom : rule.body)
      checkAtom(atom, vars, rule.line);
  }
  return 0;
}
