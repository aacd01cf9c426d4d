//===- ProofFormats.cpp - The proofs file: JSON lines or Prolog -----------===//
//
// Terms: a constant is its entity name (a JSON string; a quoted Prolog
// atom), variable Vk is the JSON number k, the Prolog term v(k). An atom
// is [pred, arg0, arg1] in JSON and 'pred'(arg0, arg1) in Prolog.
//
//===----------------------------------------------------------------------===//
#include "outputs/ProofFormats.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

namespace proofc {
namespace {

using nlohmann::json;

bool isPositive(const CandidateSet &set, const Candidate &c) {
  return c.triple == set.queries.at(static_cast<size_t>(c.query));
}

size_t rowOf(const ProofContext &ctx, const Proof &proof) {
  return static_cast<size_t>(proof.candidate - ctx.firstCandidate);
}
const Candidate &candidateOf(const ProofContext &ctx, const Proof &proof) {
  return ctx.set.candidates.at(rowOf(ctx, proof));
}
const Outcome &outcomeOf(const ProofContext &ctx, const Proof &proof) {
  return ctx.outcomes.at(rowOf(ctx, proof));
}

//===-- JSON --------------------------------------------------------------===//

json termJson(const Dataset &ds, int32_t t) {
  return isVar(t) ? json(-t) : json(ds.entities.name(t));
}

json atomJson(const Dataset &ds, const Atom &a) {
  return json::array(
      {ds.relations.name(a.p), termJson(ds, a.a), termJson(ds, a.b)});
}

json atomsJson(const Dataset &ds, const std::vector<Atom> &atoms) {
  json out = json::array();
  for (const Atom &a : atoms)
    out.push_back(atomJson(ds, a));
  return out;
}

//===-- Prolog ------------------------------------------------------------===//

/// A quoted atom: '\'' and '\\' escaped, control bytes as \xHH\ (ISO).
void appendQuoted(std::string &out, const std::string &name) {
  out.push_back('\'');
  for (char ch : name) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == '\'' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:x}\\", byte);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('\'');
}

class PrologWriter {
public:
  PrologWriter(const Dataset &ds, std::string &out) : ds_(ds), out_(out) {}

  void term(int32_t t) {
    if (isVar(t))
      out_ += fmt::format("v({})", -t);
    else
      appendQuoted(out_, ds_.entities.name(t));
  }
  void atom(const Atom &a) {
    appendQuoted(out_, ds_.relations.name(a.p));
    out_.push_back('(');
    term(a.a);
    out_.push_back(',');
    term(a.b);
    out_.push_back(')');
  }
  void atoms(const std::vector<Atom> &list) {
    out_.push_back('[');
    for (size_t i = 0; i < list.size(); ++i) {
      if (i)
        out_.push_back(',');
      atom(list[i]);
    }
    out_.push_back(']');
  }

private:
  const Dataset &ds_;
  std::string &out_;
};

} // namespace

ProofFormat parseProofFormat(const std::string &text, const std::string &flag) {
  if (text == "json")
    return ProofFormat::Json;
  if (text == "prolog")
    return ProofFormat::Prolog;
  fail("{} {}: expected json or prolog", flag, escapeForMessage(text));
}

ProofSelection parseProofSelection(const std::string &text,
                                   const std::string &flag) {
  if (text == "all")
    return ProofSelection::All;
  if (text == "positives")
    return ProofSelection::Positives;
  fail("{} {}: expected all or positives", flag, escapeForMessage(text));
}

std::string proofJsonLine(const ProofContext &ctx, const Proof &proof) {
  const Dataset &ds = ctx.dataset;
  const Candidate &c = candidateOf(ctx, proof);
  const Outcome &o = outcomeOf(ctx, proof);
  json steps = json::array();
  for (const ProofStep &s : proof.steps) {
    json clause;
    if (s.rule >= 0) {
      const Rule &rule = ds.rules.at(static_cast<size_t>(s.rule));
      clause["rule"] = {{"line", rule.line},
                        {"text", rule.text},
                        {"head", atomJson(ds, s.ruleHead)},
                        {"body", atomsJson(ds, s.ruleBody)}};
    } else {
      clause["fact"] =
          atomJson(ds, ctx.kb.facts.at(static_cast<size_t>(s.fact)));
    }
    json subst = json::array();
    for (const auto &[k, t] : s.substitution)
      subst.push_back(json::array({k, termJson(ds, t)}));
    json step; // dump() writes the keys sorted

    step["goals"] = atomsJson(ds, s.goals);
    step["action"] = s.action;
    step["derived"] = s.derived;
    step["clause"] = std::move(clause);
    step["substitution"] = std::move(subst);
    step["resolvent"] = atomsJson(ds, s.resolvent);
    steps.push_back(std::move(step));
  }
  json line;
  line["candidate"] = proof.candidate;
  line["query"] = c.query;
  line["mode"] = modeName(c.mode);
  line["positive"] = isPositive(ctx.set, c);
  line["triple"] =
      json::array({ds.entities.name(c.triple.h), ds.relations.name(c.triple.r),
                   ds.entities.name(c.triple.t)});
  line["depth"] = o.depth;
  line["steps"] = std::move(steps);
  return line.dump() + "\n";
}

std::string proofPrologLine(const ProofContext &ctx, const Proof &proof) {
  const Dataset &ds = ctx.dataset;
  const Candidate &c = candidateOf(ctx, proof);
  const Outcome &o = outcomeOf(ctx, proof);
  std::string out;
  PrologWriter w(ds, out);
  out +=
      fmt::format("proof({},{},{},{},", proof.candidate, c.query,
                  modeName(c.mode), isPositive(ctx.set, c) ? "true" : "false");
  w.atom({c.triple.r, c.triple.h, c.triple.t});
  out += fmt::format(",{},[", o.depth);
  for (size_t i = 0; i < proof.steps.size(); ++i) {
    const ProofStep &s = proof.steps[i];
    out += i ? ",step(" : "step(";
    w.atoms(s.goals);
    out += fmt::format(",{},{},", s.action, s.derived);
    if (s.rule >= 0) {
      const Rule &rule = ds.rules.at(static_cast<size_t>(s.rule));
      out += fmt::format("rule({},", rule.line);
      appendQuoted(out, rule.text);
      out.push_back(',');
      w.atom(s.ruleHead);
      out.push_back(',');
      w.atoms(s.ruleBody);
      out.push_back(')');
    } else {
      out += "fact(";
      w.atom(ctx.kb.facts.at(static_cast<size_t>(s.fact)));
      out.push_back(')');
    }
    out += ",[";
    for (size_t j = 0; j < s.substitution.size(); ++j) {
      if (j)
        out.push_back(',');
      w.term(-s.substitution[j].first);
      out.push_back('=');
      w.term(s.substitution[j].second);
    }
    out += "],";
    w.atoms(s.resolvent);
    out.push_back(')');
  }
  out += "]).\n";
  return out;
}

std::string proofsFileHeader(ProofFormat format) {
  if (format != ProofFormat::Prolog)
    return "";
  return fmt::format("% proofc proofs, format {} (docs/proofs.md): "
                     "proof(Candidate, Query, Mode, Positive, Goal, Depth, "
                     "Steps).\n",
                     kProofsFormatVersion);
}

ProofLineWriter::ProofLineWriter(ProofFormat format, ProofSelection selection,
                                 const Dataset &dataset, bool factsIncludeValid,
                                 const ShapeParams &shape)
    : format_(format), selection_(selection), dataset_(dataset), shape_(shape),
      kb_(buildKnowledgeBase(dataset, factsIncludeValid)),
      scratch_(kb_, shape) {}

ProofLineWriter::~ProofLineWriter() = default;

std::string ProofLineWriter::lines(const CandidateSet &set,
                                   int64_t firstCandidate,
                                   const std::vector<Outcome> &outcomes,
                                   const ActionTrace &trace) {
  if (outcomes.size() != set.candidates.size())
    fail("proofs: {} outcomes for {} candidates", outcomes.size(),
         set.candidates.size());
  const ProofContext ctx{dataset_, kb_, set, outcomes, firstCandidate};
  std::string out;
  for (size_t i = 0; i < set.candidates.size(); ++i) {
    if (outcomes[i].status != ProofStatus::Proved)
      continue;
    if (selection_ == ProofSelection::Positives &&
        !isPositive(set, set.candidates[i]))
      continue;
    const Proof proof =
        replayProof(kb_, dataset_, shape_, set, static_cast<int64_t>(i),
                    outcomes[i], trace, scratch_, firstCandidate);
    out += format_ == ProofFormat::Json ? proofJsonLine(ctx, proof)
                                        : proofPrologLine(ctx, proof);
  }
  return out;
}

std::string proofsFile(ProofFormat format, ProofSelection selection,
                       const Dataset &dataset, bool factsIncludeValid,
                       const ShapeParams &shape, const CandidateSet &set,
                       const std::vector<Outcome> &outcomes,
                       const ActionTrace &trace) {
  ProofLineWriter writer(format, selection, dataset, factsIncludeValid, shape);
  return proofsFileHeader(format) + writer.lines(set, 0, outcomes, trace);
}

} // namespace proofc
