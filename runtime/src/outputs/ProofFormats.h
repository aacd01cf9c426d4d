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

#include "data/KnowledgeBase.h"
#include "outputs/Proofs.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"

#include <string>
#include <vector>

namespace proofc {

/// The version of both formats (docs/proofs.md): 2 since the records no
/// longer show the outcome's log-probability. The Prolog file's comment line
/// names it, the report's "proofs" entry too.
inline constexpr int kProofsFormatVersion = 2;

enum class ProofFormat { Json, Prolog };
/// Which proved candidates the file holds.
enum class ProofSelection { All, Positives };

/// "json" / "prolog"; anything else is an error naming `flag`.
ProofFormat parseProofFormat(const std::string &text, const std::string &flag);
/// "all" / "positives"; anything else is an error naming `flag`.
ProofSelection parseProofSelection(const std::string &text,
                                   const std::string &flag);

/// Everything a proof line names besides the proof itself. `set` may be a
/// block of the pool whose first candidate is the pool's `firstCandidate`
/// (Proof::candidate is the pool's index; outcomes are parallel to `set`).
struct ProofContext {
  const Dataset &dataset;
  const KnowledgeBase &kb;
  const CandidateSet &set;
  const std::vector<Outcome> &outcomes;
  int64_t firstCandidate = 0;
};

/// One proof as one line, its '\n' included. Neither format shows the
/// outcome's log-probability: it agrees across backends only within spec
/// §7's tolerance, the derivation exactly (docs/proofs.md); the outcomes
/// TSV has it, by the same candidate index.
std::string proofJsonLine(const ProofContext &ctx, const Proof &proof);
std::string proofPrologLine(const ProofContext &ctx, const Proof &proof);

/// What a proofs file starts with: the Prolog format's comment line (which
/// names the format's version), nothing for JSON lines.
std::string proofsFileHeader(ProofFormat format);

/// The proof lines of a run, written range by range or block by block:
/// lines() of consecutive pieces of the pool, concatenated after
/// proofsFileHeader(), are byte for byte proofsFile() of the whole pool
/// (a line depends only on its candidate, its outcome and its actions).
class ProofLineWriter {
public:
  /// Over the facts of the run (train, + valid when `factsIncludeValid`).
  ProofLineWriter(ProofFormat format, ProofSelection selection,
                  const Dataset &dataset, bool factsIncludeValid,
                  const ShapeParams &shape);
  ~ProofLineWriter();
  ProofLineWriter(const ProofLineWriter &) = delete;
  ProofLineWriter &operator=(const ProofLineWriter &) = delete;

  /// The lines of every PROVED candidate of `set` (only the positives with
  /// ProofSelection::Positives), in candidate order, replayed from `trace`
  /// (replayProof; rows parallel to `set`); `set`'s first candidate is the
  /// pool's `firstCandidate`.
  std::string lines(const CandidateSet &set, int64_t firstCandidate,
                    const std::vector<Outcome> &outcomes,
                    const ActionTrace &trace);

private:
  ProofFormat format_;
  ProofSelection selection_;
  const Dataset &dataset_;
  ShapeParams shape_;
  KnowledgeBase kb_;
  DerivedSet scratch_;
};

/// The whole proofs file of the pool `set`: proofsFileHeader() and the
/// lines of every PROVED candidate (ProofLineWriter).
std::string proofsFile(ProofFormat format, ProofSelection selection,
                       const Dataset &dataset, bool factsIncludeValid,
                       const ShapeParams &shape, const CandidateSet &set,
                       const std::vector<Outcome> &outcomes,
                       const ActionTrace &trace);

} // namespace proofc

#endif // PROOFC_RUNTIME_PROOFFORMATS_H
