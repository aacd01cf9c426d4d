//===- MpiParts.cpp - The parts, rows and proofs sent to rank 0 -----------===//
//
// Steps 4 and 5 of an MPI launch (MpiRun.cpp): every rank other than 0
// sends its part (the tally), its outcome rows when asked and its proofs
// part; rank 0 receives them in rank order, checks each and makes the whole
// run's output. Messages of at most kMaxMessageBytes (MpiWorld.h).
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiParts.h"

#include "support/Fail.h"
#include "support/MessageText.h"
#include "tooling/PartFile.h"
#include "tooling/ProofParts.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace proofc::cli::mpi {

/// What a rank sends before its part: the part's size (or -1 when it
/// failed to make it, a message following), what the summary adds up, and
/// whether its outcome rows follow the part.
struct PartHeader {
  int64_t bytes = 0, resumed = 0, chunks = 0, chunkSize = 0, rows = 0;
};
constexpr int kPartHeaderWords = 5;

void sendBytes(const World &world, const std::string &bytes,
               int tag = kTagPart) {
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min<size_t>(bytes.size() - at, kMaxMessageBytes);
    MPI_Request request;
    MPI_Isend(bytes.data() + at, static_cast<int>(n), MPI_BYTE, 0, tag,
              MPI_COMM_WORLD, &request);
    world.wait(request);
    at += n;
  }
}

std::string receiveBytes(int from, int64_t size, int tag = kTagPart) {
  std::string bytes(static_cast<size_t>(size), '\0');
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min<size_t>(bytes.size() - at, kMaxMessageBytes);
    MPI_Recv(bytes.data() + at, static_cast<int>(n), MPI_BYTE, from, tag,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    at += n;
  }
  return bytes;
}

/// Step 4 on the ranks other than 0: the part (the tally), then the rows
/// when asked, from where the run kept them (its spool or its checkpoint's
/// range files), in messages of at most 64 MiB; the last message
/// (kTagRowsEnd) is empty, or the error that stopped the rows.
Status sendPart(const World &world, const RunSession &session,
                const RunOutput &output) {
  std::string bytes;
  Status made =
      attempt([&] { bytes = serializePart(session.shardPart(output)); });
  const bool rows = session.options().outcomeRows;
  PartHeader header{made.code ? -1 : static_cast<int64_t>(bytes.size()),
                    output.resumedCandidates, output.chunks, output.chunkSize,
                    rows && !made.code};
  MPI_Send(&header, kPartHeaderWords, MPI_INT64_T, 0, kTagPart, MPI_COMM_WORLD);
  sendBytes(world, made.code ? made.what.substr(0, kMaxFailureBytes) : bytes);
  if (made.code || !rows)
    return made;
  Status sent = attempt([&] {
    copyRows(
        output.rows,
        [&](std::string_view piece) {
          MPI_Request request;
          MPI_Isend(piece.data(), static_cast<int>(piece.size()), MPI_BYTE, 0,
                    kTagRows, MPI_COMM_WORLD, &request);
          world.wait(request);
        },
        static_cast<size_t>(kMaxMessageBytes));
  });
  const std::string end = sent.what.substr(0, kMaxFailureBytes);
  MPI_Send(end.data(), static_cast<int>(end.size()), MPI_CHAR, 0, kTagRowsEnd,
           MPI_COMM_WORLD);
  return sent;
}

/// Rank 0: rank `from`'s rows, each message handed to `append` (while
/// `append` is set) as it comes; returns the rank's error, if it sent one.
std::string receiveRows(int from,
                        const std::function<void(std::string_view)> &append) {
  std::string buffer;
  for (;;) {
    MPI_Status status;
    MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    buffer.resize(static_cast<size_t>(size));
    MPI_Recv(buffer.data(), size, MPI_BYTE, from, status.MPI_TAG,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (status.MPI_TAG == kTagRowsEnd)
      return buffer;
    if (append)
      append(buffer);
  }
}

double timing(const nlohmann::json &timings, const char *key,
              const std::string &name) {
  if (!timings.contains(key) || !timings[key].is_number())
    fail("{}: the part's report has no timings.{}", name, key);
  return timings[key].get<double>();
}

/// Step 4 on rank 0: every other rank's part, checked, its tally taken and
/// its rows appended, in rank order; then the whole run's output. Receives
/// every part and its rows even after a failure, so that no rank is left
/// sending.
Status gatherParts(const World &world, RunSession &session,
                   const RunOutput &own, std::vector<std::string> devices,
                   RunOutput &whole) {
  const CandidateLayout &set = session.layout();
  std::vector<PairRanks> pairs = own.pairs;
  pairs.reserve(2 * set.queries.size());
  OutcomeCounts counts = own.counts;
  BackendTimings timings = own.report.timings;
  int64_t chunks = own.chunks, chunkSize = own.chunkSize;
  int64_t resumed = own.resumedCandidates;
  const bool wantRows = !session.options().outcomes.empty();
  const RunIdentity zero = session.identity(); // shard 0 of N
  Status status;
  for (int r = 1; r < world.size(); ++r) {
    const std::string name = rankName(r, world.size());
    PartHeader header;
    MPI_Recv(&header, kPartHeaderWords, MPI_INT64_T, r, kTagPart,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (header.bytes < 0) {
      // The rank could not make its part; its message follows.
      MPI_Status probe;
      MPI_Probe(r, kTagPart, MPI_COMM_WORLD, &probe);
      int size = 0;
      MPI_Get_count(&probe, MPI_BYTE, &size);
      const std::string what = receiveBytes(r, size);
      if (!status.code)
        status = {1, false, name + ": " + what, false, true};
      continue;
    }
    const std::string bytes = receiveBytes(r, header.bytes);
    if (!status.code)
      status = attempt([&] {
        const PartFile part = parsePart(bytes, name);
        const std::string diff = RunIdentity::difference(
            zero, rankName(0, world.size()), part.identity, name,
            /*ignoreShardIndex=*/true);
        if (!diff.empty())
          fail("{}: made from other inputs: {}", name, diff);
        const QueryRange want = shardRange(set, r, world.size());
        if (part.identity.shardIndex != r ||
            part.identity.shardCount != world.size() || !(part.range == want))
          fail("{}: sent shard {}/{} of queries [{}, {}), its shard is {}/{} "
               "of queries [{}, {})",
               name, part.identity.shardIndex, part.identity.shardCount,
               part.range.queryBegin, part.range.queryEnd, r, world.size(),
               want.queryBegin, want.queryEnd);
        checkTally(set, part, name);
        if (wantRows && !header.rows)
          fail("{}: sent no outcome rows for the outcomes file (every rank "
               "must be started with the same flags)",
               name);
        pairs.insert(pairs.end(), part.pairs.begin(), part.pairs.end());
        counts.add(part.counts);
        const nlohmann::json &t = part.report.at("timings");
        timings.setupSeconds += timing(t, "setup_seconds", name);
        timings.runSeconds += timing(t, "run_seconds", name);
        timings.readbackSeconds += timing(t, "readback_seconds", name);
        timings.steps += static_cast<int64_t>(timing(t, "steps", name));
        chunks += header.chunks;
        chunkSize = std::max(chunkSize, header.chunkSize);
        resumed += header.resumed;
      });
    status.named = true; // every message above names the rank
    if (!header.rows)
      continue;
    std::function<void(std::string_view)> append;
    if (!status.code && wantRows)
      append = [&](std::string_view rows) {
        if (!status.code)
          status = attempt([&] { session.appendOutcomeRows(rows); });
      };
    const std::string failed = receiveRows(r, append);
    if (!failed.empty() && !status.code)
      status = {1, false, name + ": " + failed, false, true};
    status.named = true;
  }
  if (status.code)
    return status;
  return attempt([&] {
    whole = session.gatheredOutput(std::move(pairs), counts, timings, chunks,
                                   chunkSize, resumed);
    whole.report.mpiDevices = std::move(devices);
  });
}

/// Step 5 (with --proofs) on the ranks other than 0: the shard's proofs
/// part (ProofParts.h), its size first (-1: the message of the failure
/// that kept the rank from making it follows).
Status sendProofs(const World &world, const RunSession &session,
                  const RunOutput &output) {
  std::string bytes;
  Status made = attempt(
      [&] { bytes = serializeProofsPart(session.shardProofs(output)); });
  if (made.code)
    bytes = made.what.substr(0, kMaxFailureBytes);
  const int64_t size = made.code ? -1 : static_cast<int64_t>(bytes.size());
  MPI_Send(&size, 1, MPI_INT64_T, 0, kTagProofs, MPI_COMM_WORLD);
  if (made.code) {
    const int64_t length = static_cast<int64_t>(bytes.size());
    MPI_Send(&length, 1, MPI_INT64_T, 0, kTagProofs, MPI_COMM_WORLD);
  }
  sendBytes(world, bytes, kTagProofs);
  return made;
}

/// Step 5 on rank 0: every other rank's proofs part, checked (its shard,
/// the inputs, the format), its lines after rank 0's in rank (= query)
/// order: `whole`'s proof lines, those of one process. Receives every part
/// even after a failure, so that no rank is left sending.
Status gatherProofs(const World &world, const RunSession &session,
                    const RunOutput &own, RunOutput &whole) {
  Status status = attempt([&] {
    if (!own.proofLines)
      fail("--proofs {}: rank 0's run has no proofs", session.options().proofs);
  });
  std::string lines = own.proofLines ? *own.proofLines : std::string();
  const RunIdentity zero = session.identity(); // shard 0 of N
  for (int r = 1; r < world.size(); ++r) {
    const std::string name = rankName(r, world.size());
    int64_t size = 0;
    MPI_Recv(&size, 1, MPI_INT64_T, r, kTagProofs, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (size < 0) {
      int64_t length = 0;
      MPI_Recv(&length, 1, MPI_INT64_T, r, kTagProofs, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      const std::string what = receiveBytes(r, length, kTagProofs);
      if (!status.code)
        status = {1, false, name + ": " + what, false, true};
      continue;
    }
    const std::string bytes = receiveBytes(r, size, kTagProofs);
    if (status.code)
      continue;
    status = attempt([&] {
      const ProofsPart part = parseProofsPart(bytes, name);
      RunIdentity want = zero;
      want.shardIndex = r;
      checkProofsPart(
          part, name, want, shardRange(session.layout(), r, world.size()),
          session.options().proofsFormat, session.options().proofsOf,
          /*ignoreShardIndex=*/false, "every rank must run the same proofc");
      lines += part.lines;
    });
    status.named = true; // every message above names the rank
  }
  if (!status.code)
    whole.proofLines = std::move(lines);
  return status;
}

} // namespace proofc::cli::mpi
