//===- Report.h - JSON run report and per-candidate outcomes TSV -*- C++
//-*-===//
//
// The machine-readable results of one evaluation: a versioned JSON report
// ("schema": "proofc-report", "version": 1) and, on request, one TSV line per
// candidate. Both files are written atomically (see FileIO.h).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_REPORT_H
#define PROOFC_RUNTIME_REPORT_H

#include "outputs/Provenance.h"
#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/RankMetrics.h"
#include "support/FileIO.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

inline constexpr const char *kReportSchema = "proofc-report";
inline constexpr int kReportVersion = 1;

struct ReportInputs {
  ProgramSpec program;
  std::string datasetDir, datasetName;
  int64_t entities = 0, relations = 0;
  int64_t facts = 0; ///< |F| (distinct facts the prover used)
  int64_t rules = 0;
  bool factsIncludeValid = false;
  std::string weights;      ///< weights file, empty for initWeights()
  uint64_t weightsSeed = 0; ///< initWeights() seed when `weights` is empty
  /// Weights given as tensors (Session::evaluate): "host" or "cuda"; the
  /// report's weights.in_memory, instead of a file or a seed.
  std::string weightsInMemory;
  CandidateOptions candidates;
  Metrics metrics;
  /// The PyKEEN-style metrics ("rank_metrics" and the flat "pykeen" map);
  /// written when set.
  std::optional<RankMetrics> rankMetrics;
  /// Relation names by id, for rank_metrics.per_relation.
  std::vector<std::string> relationNames;
  /// What produced the numbers ("provenance"; its device is `device`).
  Provenance provenance;
  BackendTimings timings;
  double compileSeconds = 0, totalSeconds = 0;
  std::string backend, device;
  /// Backend-specific facts (the CUDA backend: device memory, kernel cache
  /// hits/misses and compile vs load seconds, graph launches); written as
  /// "backend_details" when not null.
  nlohmann::json backendDetails;
  /// The outcomes file written with this report, and the SHA-256 of its
  /// bytes: written as "outcomes" {"file", "sha256"} when `outcomesFile` is
  /// not empty, so that a reader can tell the two belong together.
  std::string outcomesFile, outcomesSha256;
  /// The proofs file written with this report (docs/proofs.md): written as
  /// "proofs" {"file", "sha256", "format", "of", "count"} when `proofsFile`
  /// is not empty.
  std::string proofsFile, proofsSha256, proofsFormat, proofsOf;
  int64_t proofsCount = 0;
  /// An MPI launch of this many ranks (docs/scale-out.md): written as
  /// "mpi" {"ranks"} when > 0.
  int64_t mpiRanks = 0;
  /// Each rank's device, in rank order ("mpi" {"devices"}); may be empty.
  std::vector<std::string> mpiDevices;
};

nlohmann::json reportJson(const ReportInputs &inputs);

/// The report's "program" object: the program's name, shape and policy,
/// everything about it that determines an outcome (spec §4, §5).
nlohmann::json programJson(const ProgramSpec &program);

/// The report's "proofs" entry (docs/report-schema.md) for the proofs file
/// `file` of `count` proofs: one definition for a run and `proofc merge`.
nlohmann::json proofsReportJson(const std::string &file,
                                const std::string &sha256,
                                const std::string &format,
                                const std::string &of, int64_t count);

/// The report's "metrics" object (spec §6).
nlohmann::json metricsJson(const Metrics &metrics);

/// The report's "timings" object.
nlohmann::json timingsJson(const ReportInputs &inputs);

/// The "rank_metrics" object of the report (docs/report-schema.md).
nlohmann::json rankMetricsJson(const RankMetrics &metrics,
                               const std::vector<std::string> &relationNames);

/// The flat PyKEEN map: "<side>.<rank type>.<metric>" -> value for PyKEEN's
/// whole rank-based set (metrics.pykeen, PykeenMetrics.h) and the
/// optimistic and pessimistic adjusted_arithmetic_mean_rank_index; the keys
/// rank_metrics also has take its values; null where the metric is empty.
nlohmann::json pykeenKeyMap(const RankMetrics &metrics);

/// reportJson(inputs), indented, written atomically to `path`.
void writeReportJson(const std::string &path, const ReportInputs &inputs);

/// Outcomes TSV version 3 (docs/report-schema.md): the line
/// `#proofc-outcomes 3`, the header `query\tmode\tentity\tstatus\tdepth\t
/// logp\thead\trelation\ttail\toptimistic_rank\tpessimistic_rank\t
/// realistic_rank\tscore\tlist_size`, then one line per candidate in
/// candidate order: the query index, head/tail, the name of the entity in the
/// corrupted position, the status name, the depth, the log-probability
/// ({:.9g}), the query's head, relation and tail names, the positive's ranks
/// in the candidate's (query, mode) list (groupRanks; "2.5" for a half), the
/// candidate's finite score (logp when proved, else the lowest float32) and
/// the list's size. Written atomically.
void writeOutcomesTsv(const std::string &path, const CandidateSet &set,
                      const Dataset &dataset,
                      const std::vector<Outcome> &outcomes);

/// The bytes writeOutcomesTsv writes (`path` names the file in errors).
std::string outcomesTsv(const std::string &path, const CandidateSet &set,
                        const Dataset &dataset,
                        const std::vector<Outcome> &outcomes);

/// At most how many bytes outcomesTsv() gives for `set`: exact but for the
/// status, depth and logp fields, counted at their widest. What the free
/// space check before a run (checkFreeSpace) asks for.
uint64_t outcomesTsvBound(const CandidateSet &set, const Dataset &dataset);
/// The same bound from the layout alone (the corrupted entity's name
/// counted at the longest entity name): what a streamed run checks.
uint64_t outcomesTsvBound(const CandidateLayout &layout,
                          const Dataset &dataset);

/// The outcomes TSV in pieces, as a streamed run writes it (the bytes are
/// those of outcomesTsv()): the first two lines, then each group's lines
/// (group `g` of `set`, its positive's ranks `ranks`), in group order.
std::string_view outcomesTsvHeader();
void appendOutcomesTsvGroup(std::string &out, const CandidateSet &set,
                            const Dataset &dataset,
                            const std::vector<Outcome> &outcomes,
                            const CandidateGroup &g,
                            const std::array<double, 3> &ranks);

} // namespace proofc

#endif // PROOFC_RUNTIME_REPORT_H
