//===- Dataset.h - Knowledge-graph datasets and Horn rules ------*- C++ -*-===//
//
// Spec §1.1: a dataset directory holds train/valid/test.tsv and rules.txt.
// Entity and relation ids are the byte-sorted names of train ∪ valid ∪ test.
// Terms are int32: constants (entity ids) are >= 0, variable Vk is -k.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_DATASET_H
#define PROOFC_RUNTIME_DATASET_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace proofc {

/// Bytes-sorted names numbered 0..N-1.
class Vocab {
public:
  Vocab() = default;
  /// Builds from any list of names (duplicates allowed); ids follow byte order.
  explicit Vocab(std::vector<std::string> names);
  int32_t size() const { return static_cast<int32_t>(names_.size()); }
  /// Id of `name`, or -1 when it is unknown.
  int32_t find(std::string_view name) const;
  const std::string &name(int32_t id) const { return names_.at(id); }
  const std::vector<std::string> &names() const { return names_; }

private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, int32_t> ids_;
};

struct Triple {
  int32_t h, r, t;
  friend bool operator==(const Triple &a, const Triple &b) {
    return a.h == b.h && a.r == b.r && a.t == b.t;
  }
  friend bool operator<(const Triple &a, const Triple &b) {
    if (a.r != b.r)
      return a.r < b.r;
    if (a.h != b.h)
      return a.h < b.h;
    return a.t < b.t;
  }
};

/// An atom pred(a, b). Padding atoms (after the last goal of a state) have
/// pred == kPadPred; TRUE/FALSE atoms have a == b == 0 (no arguments).
struct Atom {
  int32_t p, a, b;
  friend bool operator==(const Atom &x, const Atom &y) {
    return x.p == y.p && x.a == y.a && x.b == y.b;
  }
  friend bool operator!=(const Atom &x, const Atom &y) { return !(x == y); }
};
inline constexpr int32_t kPadPred = -1;
inline bool isVar(int32_t term) { return term < 0; }

/// A Horn rule head :- body. Variables are numbered -1, -2, ... in order of
/// first occurrence in the rule (head first); constants are entity ids.
struct Rule {
  Atom head;
  std::vector<Atom> body;
  int line = 0; ///< 1-based line in rules.txt
  /// The rule as written, from its head to its '.' (no comment, no
  /// surrounding blanks): what the proofs name it by (docs/proofs.md).
  std::string text;
};

/// Longest rule body accepted (spec §1.1: an implementation limit >= 4).
inline constexpr int kMaxBody = 8;

struct Dataset {
  std::string dir;
  Vocab entities, relations;
  std::vector<Triple> train, valid, test; ///< file order, duplicates kept
  std::vector<Rule> rules;                ///< file order

  int32_t numEntities() const { return entities.size(); }
  int32_t numRelations() const { return relations.size(); }
  int32_t truePred() const { return numRelations(); }
  int32_t falsePred() const { return numRelations() + 1; }
  const std::vector<Triple> &split(std::string_view name) const;
};

/// Loads `dir` (spec §1.1). Throws proofc::Error("<file>:<line>: ...").
Dataset loadDataset(const std::string &dir);

/// Parses rules.txt text against known vocabularies; `path` names the file in
/// errors. Exposed for tests and fuzzing.
std::vector<Rule> parseRules(std::string_view text, const std::string &path,
                             const Vocab &entities, const Vocab &relations);

} // namespace proofc

#endif // PROOFC_RUNTIME_DATASET_H
