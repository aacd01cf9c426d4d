//===- SessionReport.h - A call's report, made on request -------*- C++ -*-===//
//
// What a SessionResult's report is made from, and the report made from it
// once, when first asked (issue 28: an in-loop evaluate paid for PyKEEN's
// whole metric set, the report's JSON and its text at every call, about
// half of its overhead over the run, for a caller that reads the MRR). A
// call keeps, by value: the report's inputs as of the call (ReportInputs
// without its rank metrics), the call's pairs' ranks and the rank metric
// options, and the backends' BackendInfo as the call left them. On request
// it computes the rank metrics (computeRankMetrics), the report's backend
// details and device (from the infos), the JSON text; each once, then kept
// (thread-safe: std::call_once). The cheap sections an in-loop caller
// reads ("metrics", "timings") are also made alone. Nothing refers to the
// session, so a result outlives its session and a later call never changes an
// earlier result's report. The bytes are those the eager report had: the same
// inputs go through the same functions.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SESSION_SESSIONREPORT_H
#define PROOFC_RUNTIME_SESSION_SESSIONREPORT_H

#include "outputs/Report.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/RankMetrics.h"

#include <mutex>
#include <string>
#include <vector>

namespace proofc {

class SessionReport {
public:
  /// `inputs` without rank metrics or backend details (they are made
  /// here), `pairs` the call's ranks in group order, `infos` every device
  /// worker's BackendInfo (the first backend's first).
  SessionReport(ReportInputs inputs, std::vector<PairRanks> pairs,
                RankMetricOptions options, std::vector<BackendInfo> infos);

  /// computeRankMetrics(pairs, options), once.
  const RankMetrics &rankMetrics() const;
  /// The whole report's inputs: the rank metrics, the backend details and
  /// the device filled in; once.
  const ReportInputs &inputs() const;
  /// reportJson(inputs()), once: the document json() prints and section()
  /// reads.
  const nlohmann::json &document() const;
  /// document() as `proofc run --report` writes it, once.
  const std::string &json() const;
  /// The report's value at top-level `key` as compact JSON text:
  /// "metrics" and "timings" made alone (neither needs the rank metrics
  /// nor the backend details), any other key from document().
  /// Throws proofc::Error for a key the report does not have.
  std::string section(const std::string &key) const;

private:
  mutable ReportInputs inputs_;
  std::vector<PairRanks> pairs_;
  RankMetricOptions options_;
  std::vector<BackendInfo> infos_;
  mutable std::once_flag rankOnce_, inputsOnce_, documentOnce_, jsonOnce_;
  mutable nlohmann::json document_;
  mutable std::string json_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SESSION_SESSIONREPORT_H
