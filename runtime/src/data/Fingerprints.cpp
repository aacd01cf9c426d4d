//===- Fingerprints.cpp - A dataset's identity in one string --------------===//
#include "data/Fingerprints.h"

#include "support/Sha256.h"

#include <fmt/format.h>

namespace proofc {

namespace {

void appendTerm(std::string &out, const Dataset &ds, int32_t term) {
  out += '\t';
  if (isVar(term))
    out += fmt::format("v{}", -term);
  else
    out += "c:" + ds.entities.name(term);
}

void appendAtom(std::string &out, const Dataset &ds, const Atom &atom) {
  out += '\t';
  out += ds.relations.name(atom.p);
  appendTerm(out, ds, atom.a);
  appendTerm(out, ds, atom.b);
}

} // namespace

std::string datasetFingerprint(const Dataset &ds) {
  std::string text = "proofc-dataset-fingerprint\t1\n";
  auto vocab = [&](const char *what, const Vocab &v) {
    text += fmt::format("{}\t{}\n", what, v.size());
    for (int32_t id = 0; id < v.size(); ++id)
      text += v.name(id) + "\n";
  };
  vocab("entities", ds.entities);
  vocab("relations", ds.relations);
  auto split = [&](const char *what, const std::vector<Triple> &triples) {
    text += fmt::format("{}\t{}\n", what, triples.size());
    for (const Triple &t : triples)
      text += ds.entities.name(t.h) + "\t" + ds.relations.name(t.r) + "\t" +
              ds.entities.name(t.t) + "\n";
  };
  split("train", ds.train);
  split("valid", ds.valid);
  split("test", ds.test);
  text += fmt::format("rules\t{}\n", ds.rules.size());
  for (const Rule &rule : ds.rules) {
    text += "rule";
    appendAtom(text, ds, rule.head);
    text += "\t:-";
    for (const Atom &atom : rule.body)
      appendAtom(text, ds, atom);
    text += "\n";
  }
  return "sha256:" + sha256Hex(text);
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
