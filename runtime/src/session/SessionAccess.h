//===- SessionAccess.h - The tools' way into a Session ----------*- C++ -*-===//
//
// Internal to the runtime, its tooling and its tests; not the embedder's API
// (an embedder makes a Session from a bundle path and SessionOptions,
// Session.h). The tools open the backends themselves (`proofc run` compiles
// its program in memory; Devices.h) and make the session on them, and they
// need each result's report inputs (ReportInputs, outputs/Report.h) for the
// outcomes file, the parts and the summary, which a SessionResult keeps to
// itself (SessionReport.h makes them into its report on request).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SESSION_SESSIONACCESS_H
#define PROOFC_RUNTIME_SESSION_SESSIONACCESS_H

#include "outputs/Report.h"
#include "proofc/runtime/Session.h"
#include "session/SessionReport.h"
#include "session/SharedLists.h"

#include <memory>
#include <string>
#include <vector>

namespace proofc {

/// A session's result with the report's inputs it was made from, complete
/// (rank metrics and backend details made: SessionReport::inputs()).
struct ReportedResult {
  SessionResult result;
  ReportInputs report;
};

class SessionAccess {
public:
  /// A session of `program` on `backends` (not empty; they must outlive
  /// the session), one device worker each (SessionOptions::devices);
  /// `deviceName` names the device in the report (a CUDA backend's own
  /// name replaces it). options.device, devices, threads, cond, unroll and
  /// memoEntries are not used: the backends are open.
  static Session make(const ProgramSpec &program,
                      const std::vector<Backend *> &backends,
                      std::string deviceName, SessionOptions options);
  /// Session::evaluate(weights, control), with the report's inputs.
  static ReportedResult evaluate(Session &session, const WeightsFile &weights,
                                 const EvaluateControl &control = {});
  /// Session::evaluateRange(weights, range, control) for `range`, shard
  /// `cross.shard` of an MPI launch, sharing lists with the other shards
  /// (SharedLists.h): the pending pairs hold no rank, and the call's
  /// exports and pending copies go to *cross.out, until
  /// SharedLists::resolveCrossShard() completes them. `control` must only
  /// tally (no outcome kept, no block handed on).
  static RangeResult evaluateShard(Session &session, const WeightsFile &weights,
                                   const QueryRange &range,
                                   const EvaluateControl &control,
                                   const CrossShardCall &cross);
  /// datasetFingerprint() of the session's dataset, computed once, in the
  /// background from the session's start (SessionState.h).
  static const std::string &datasetFingerprint(const Session &session);
  /// The pool's keys shared by its `shardCount` shards, planned once per
  /// session and count (SharedLists::acrossShards).
  static const ShardSharing &shardSharing(Session &session, int64_t shardCount);
  /// The keys that `ranges` (a run's checkpoint ranges, in query order)
  /// share, each run by the first range that holds it
  /// (SharedLists::acrossRanges, Owner::First).
  static ShardSharing rangeSharing(Session &session,
                                   const std::vector<QueryRange> &ranges);
  /// Session::finish(weights, range, pairs, counts, ...), with the
  /// report's inputs.
  static ReportedResult
  finish(Session &session, const WeightsFile &weights, const QueryRange &range,
         std::vector<PairRanks> pairs, const OutcomeCounts &counts,
         const BackendTimings &timings, int64_t chunks, int64_t chunkSize);
  static void setReport(SessionResult &result,
                        std::shared_ptr<const SessionReport> report) {
    result.report_ = std::move(report);
  }
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SESSION_SESSIONACCESS_H
