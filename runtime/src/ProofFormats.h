//===- ProofFormats.h - The proofs file: JSON lines or Prolog ---*- C++ -*-===//
//
// docs/proofs.md defines both formats; this is their one writer. A proof
// (Proofs.h) becomes one line: a JSON object (`--proofs-format json`, the
// default) or a Prolog fact `proof(...).` (`--proofs-format prolog`) that
// SWI-Prolog reads back with read_term/2 (test/proofs/check_proofs.pl).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROOFFORMATS_H
#define PROOFC_RUNTIME_PROOFFORMATS_H

#include "Proofs.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"

#include <string>
#include <vector>

namespace proofc {

enum class ProofFormat { Json, Prolog };
/// Which proved candidates the file holds.
enum class ProofSelection { All, Positives };

/// "json" / "prolog"; anything else is an error naming `flag`.
ProofFormat parseProofFormat(const std::string &text, const std::string &flag);
/// "all" / "positives"; anything else is an error naming `flag`.
ProofSelection parseProofSelection(const std::string &text,
                                   const std::string &flag);

/// Everything a proof line names besides the proof itself.
struct ProofContext {
  const Dataset &dataset;
  const KnowledgeBase &kb;
  const CandidateSet &set;
  const std::vector<Outcome> &outcomes;
};

/// One proof as one line, its '\n' included.
std::string proofJsonLine(const ProofContext &ctx, const Proof &proof);
std::string proofPrologLine(const ProofContext &ctx, const Proof &proof);

/// The whole proofs file: every PROVED candidate (only the positives with
/// ProofSelection::Positives) in candidate order, replayed from `trace`
/// (replayProof) over the facts of the run (train, + valid when
/// `factsIncludeValid`).
std::string proofsFile(ProofFormat format, ProofSelection selection,
                       const Dataset &dataset, bool factsIncludeValid,
                       const ShapeParams &shape, const CandidateSet &set,
                       const std::vector<Outcome> &outcomes,
                       const ActionTrace &trace);

} // namespace proofc

#endif // PROOFC_RUNTIME_PROOFFORMATS_H
