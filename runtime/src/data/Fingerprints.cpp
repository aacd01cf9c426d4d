//===- Fingerprints.cpp - A dataset's identity in one string --------------===//
#include "data/Fingerprints.h"

#include "support/Sha256.h"

#include <fmt/format.h>

namespace proofc {

namespace {

/// The serialization's bytes straight into SHA-256, piece by piece (Sha256
/// buffers its own blocks): a large dataset's serialization (fb15k-237's
/// ~28 MB) was a string built by doubling, then hashed, which took as long
/// as loading the dataset.
class Serialization {
public:
  Serialization &operator<<(std::string_view bytes) {
    sha_.update(bytes);
    return *this;
  }
  Serialization &operator<<(char c) { return *this << std::string_view(&c, 1); }
  Serialization &operator<<(size_t n) { return *this << fmt::format("{}", n); }
  std::string hexDigest() const { return sha_.hexDigest(); }

private:
  Sha256 sha_;
};

void appendTerm(Serialization &out, const Dataset &ds, int32_t term) {
  out << '\t';
  if (isVar(term))
    out << 'v' << static_cast<size_t>(-term);
  else
    out << "c:" << ds.entities.name(term);
}

void appendAtom(Serialization &out, const Dataset &ds, const Atom &atom) {
  out << '\t' << ds.relations.name(atom.p);
  appendTerm(out, ds, atom.a);
  appendTerm(out, ds, atom.b);
}

} // namespace

std::string datasetFingerprint(const Dataset &ds) {
  Serialization text;
  text << "proofc-dataset-fingerprint\t1\n";
  auto vocab = [&](const char *what, const Vocab &v) {
    text << what << '\t' << static_cast<size_t>(v.size()) << '\n';
    for (int32_t id = 0; id < v.size(); ++id)
      text << v.name(id) << '\n';
  };
  vocab("entities", ds.entities);
  vocab("relations", ds.relations);
  auto split = [&](const char *what, const std::vector<Triple> &triples) {
    text << what << '\t' << triples.size() << '\n';
    for (const Triple &t : triples)
      text << ds.entities.name(t.h) << '\t' << ds.relations.name(t.r) << '\t'
           << ds.entities.name(t.t) << '\n';
  };
  split("train", ds.train);
  split("valid", ds.valid);
  split("test", ds.test);
  text << "rules\t" << ds.rules.size() << '\n';
  for (const Rule &rule : ds.rules) {
    text << "rule";
    appendAtom(text, ds, rule.head);
    text << "\t:-";
    for (const Atom &atom : rule.body)
      appendAtom(text, ds, atom);
    text << '\n';
  }
  return "sha256:" + text.hexDigest();
}

std::string vocabularyFingerprint(const Dataset &ds) {
  // The definition of Provenance.h, frozen: no header line, no counts.
  std::string text = "entities\n";
  for (const std::string &name : ds.entities.names())
    text += name + "\n";
  text += "relations\n";
  for (const std::string &name : ds.relations.names())
    text += name + "\n";
  return "sha256:" + sha256Hex(text);
}

} // namespace proofc
