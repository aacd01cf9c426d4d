//===- MpiRun.cpp - A run as the ranks of an MPI launch -------------------===//
//
// The protocol, on MPI_COMM_WORLD (docs/scale-out.md, "MPI ranks"):
//
//  1. setup: every rank makes its RunSession for shard rank/N (the ranks
//     other than 0 with stderr closed and no outputs); agreed (agree()).
//  2. inputs: rank 0 gathers every rank's RunIdentity (the shard aside) and
//     refuses a rank made from other inputs; agreed.
//  3. run: every rank evaluates its shard; the ranks other than 0 send their
//     candidates done to rank 0 (kTagProgress, one int64, nonblocking, at
//     most 4 a second), which draws one display over all; agreed.
//  4. gather: every rank other than 0 serializes its shard's part in memory
//     (PartFile.h: the tally, 41 bytes a list, and its report) and sends it
//     to rank 0 (kTagPart); when rank 0 writes an outcomes file, the rank's
//     outcome rows follow (formatted by the rank as it ran, kept on its
//     disk: kTagRows messages of at most 64 MiB, then kTagRowsEnd). Rank 0
//     takes the ranks in order: checks each part as merge checks a part file
//     (parsePart, the rank's shard, the inputs), appends its rows to the
//     outcomes file after those of the ranks before, and writes the whole
//     run's outputs from the tallies (RunSession::gatheredOutput,
//     writeOutputs: one OutputSet); agreed. No rank holds more than its
//     tally and one message.
//  5. with --proofs, between the gathering and the writing of step 4: every
//     rank other than 0 sends its shard's proofs part (ProofParts.h,
//     kTagProofs) too; rank 0 checks each and puts the lines after its own
//     in rank order, the proofs file one process writes.
//
// agree() is an MPI_Iallreduce of the first failing rank, then that rank's
// exit code broadcast and its message sent to rank 0, which alone prints
// it: one error, every rank the same exit code, no rank left waiting. Every
// wait polls (MPI_Test, sleeping up to 20 ms between polls): a rank that
// waits leaves the cores to the ranks that compute, and rank 0 draws the
// progress meanwhile.
//
//===----------------------------------------------------------------------===//
#include "MpiRun.h"

#include "cuda/CudaBackend.h"
#include "proofc/runtime/Notices.h"
#include "proofc/runtime/RunControl.h"
#include "support/Fail.h"
#include "support/MessageText.h"
#include "tooling/PartFile.h"
#include "tooling/Progress.h"
#include "tooling/ProofParts.h"
#include "tooling/RankHost.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

namespace proofc::cli {
namespace {

constexpr int kTagProgress = 1, kTagFailure = 2, kTagPart = 3, kTagRows = 4,
              kTagRowsEnd = 5, kTagProofs = 6;
/// The largest message: MPI counts are ints; 64 MiB keeps far below.
constexpr int64_t kMaxMessageBytes = int64_t{64} << 20;
/// The longest failure message sent to rank 0.
constexpr size_t kMaxFailureBytes = 64 << 10;

/// One rank's verdict on a step.
struct Status {
  int code = 0; ///< 0 ok, 1 error, 128 + signal interrupted
  bool interrupted = false;
  std::string what;     ///< the error's message
  bool printed = false; ///< the rank printed its own diagnostics
  bool named = false;   ///< `what` names the rank it is about
};

Status attempt(const std::function<void()> &step) {
  try {
    step();
    return {};
  } catch (const Interrupted &e) {
    return {e.exitCode(), true, e.what()};
  } catch (const Error &e) {
    return {1, false, e.what()};
  } catch (const std::exception &e) {
    return {1, false, std::string("internal error: ") + e.what()};
  }
}

class World {
public:
  World() {
    // The progress callback may run on a backend thread, never two at once
    // and never while the main thread calls MPI: SERIALIZED is enough.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided_);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    main_ = std::this_thread::get_id();
  }
  ~World() { MPI_Finalize(); }
  World(const World &) = delete;
  World &operator=(const World &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Whether this thread may call MPI now (a library below SERIALIZED:
  /// only the main thread).
  bool mayCall() const {
    return provided_ >= MPI_THREAD_SERIALIZED ||
           std::this_thread::get_id() == main_;
  }
  /// Waits for `request`, calling `meanwhile` between polls.
  void wait(MPI_Request &request,
            const std::function<void()> &meanwhile = {}) const {
    auto pause = std::chrono::microseconds(50);
    for (;;) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done)
        return;
      if (meanwhile)
        meanwhile();
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(
          pause * 2, std::chrono::milliseconds(20));
    }
  }

private:
  int provided_ = MPI_THREAD_SINGLE;
  int rank_ = 0, size_ = 1;
  std::thread::id main_;
};

/// Every rank's `mine` -> the first failing rank's code on every rank, its
/// message on rank 0 (with `failingRank`).
Status agree(const World &world, const Status &mine, int &failingRank,
             const std::function<void()> &meanwhile = {}) {
  int first = mine.code != 0 ? world.rank() : world.size();
  int lowest = world.size();
  MPI_Request request;
  MPI_Iallreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD,
                 &request);
  world.wait(request, meanwhile);
  failingRank = lowest;
  if (lowest == world.size())
    return {};
  int flags[3] = {mine.code, mine.interrupted, mine.printed};
  MPI_Ibcast(flags, 3, MPI_INT, lowest, MPI_COMM_WORLD, &request);
  world.wait(request, meanwhile);
  Status agreed{flags[0], flags[1] != 0, "", flags[2] != 0};
  if (lowest == 0) {
    agreed.what = mine.what;
    agreed.named = mine.named;
  } else if (world.rank() == lowest) {
    const std::string text = mine.what.substr(0, kMaxFailureBytes);
    MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0,
             kTagFailure, MPI_COMM_WORLD);
  } else if (world.rank() == 0) {
    MPI_Status status;
    MPI_Probe(lowest, kTagFailure, MPI_COMM_WORLD, &status);
    int size = 0;
    MPI_Get_count(&status, MPI_CHAR, &size);
    agreed.what.resize(static_cast<size_t>(size));
    MPI_Recv(agreed.what.data(), size, MPI_CHAR, lowest, kTagFailure,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return agreed;
}

/// One display on rank 0 of the candidates done over every rank.
class RankProgress {
public:
  RankProgress(const World &world, int64_t total, std::FILE *stream, bool quiet)
      : world_(world), latest_(static_cast<size_t>(world.size()), 0) {
    if (world.rank() == 0)
      display_ = std::make_unique<ProgressReporter>(
          total, progressStyleFor(stream, quiet), stream);
  }

  /// This rank's candidates done (RunSessionOptions::onProgress: any
  /// thread, never two at once).
  void local(int64_t done) {
    if (world_.rank() == 0) {
      latest_[0] = done;
      if (world_.mayCall())
        drain();
      else
        show();
      return;
    }
    if (!world_.mayCall())
      return;
    const double now = ProgressReporter::steadySeconds();
    if (now - lastSent_ < kSendInterval)
      return;
    if (pending_ != MPI_REQUEST_NULL) {
      int sent = 0;
      MPI_Test(&pending_, &sent, MPI_STATUS_IGNORE);
      if (!sent)
        return; // rank 0 has not taken the last one: skip this one
    }
    sending_ = done;
    lastSent_ = now;
    MPI_Isend(&sending_, 1, MPI_INT64_T, 0, kTagProgress, MPI_COMM_WORLD,
              &pending_);
  }

  /// Rank 0: takes every progress message that has come, then draws.
  void drain() {
    for (;;) {
      int any = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagProgress, MPI_COMM_WORLD, &any, &status);
      if (!any)
        break;
      int64_t done = 0;
      MPI_Recv(&done, 1, MPI_INT64_T, status.MPI_SOURCE, kTagProgress,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      int64_t &slot = latest_[static_cast<size_t>(status.MPI_SOURCE)];
      slot = std::max(slot, done);
    }
    show();
  }

  /// The ranks other than 0: completes the last send (rank 0 drains while
  /// it waits), so that none is left when the run's agreement starts.
  void settle() {
    if (pending_ != MPI_REQUEST_NULL)
      world_.wait(pending_);
  }

  /// Rank 0: erases the display.
  void finish() {
    if (display_)
      display_->finish();
  }

private:
  void show() {
    int64_t sum = 0;
    for (int64_t done : latest_)
      sum += done;
    display_->update(sum);
  }

  static constexpr double kSendInterval = 0.25;
  const World &world_;
  std::vector<int64_t> latest_; ///< rank 0: each rank's last count
  std::unique_ptr<ProgressReporter> display_;
  MPI_Request pending_ = MPI_REQUEST_NULL;
  int64_t sending_ = 0;
  double lastSent_ = -1e300;
};

/// Closes stderr (to /dev/null) while it lives, on the ranks other than 0:
/// what they would print in setup (MLIR diagnostics of the program) rank 0
/// prints from the same inputs.
class SilencedStderr {
public:
  explicit SilencedStderr(bool silence) {
    if (!silence)
      return;
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0)
      ::dup2(null, STDERR_FILENO);
    if (null >= 0)
      ::close(null);
  }
  ~SilencedStderr() {
    if (saved_ < 0)
      return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  SilencedStderr(const SilencedStderr &) = delete;
  SilencedStderr &operator=(const SilencedStderr &) = delete;

private:
  int saved_ = -1;
};

const char *environment(const char *name) { return std::getenv(name); }

/// The CPUs this process may run on (its affinity); 0 when unknown.
int affinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

std::string rankName(int rank, int ranks) {
  return fmt::format("rank {} of {}", rank, ranks);
}

/// The identity of a rank's inputs, its shard aside (every rank's must be
/// rank 0's).
RunIdentity unsharded(const RunSession &session) {
  RunIdentity id = session.identity();
  id.shardIndex = 0;
  id.shardCount = 1;
  return id;
}

/// Step 2: rank 0 gathers every rank's identity and device (`devices`, in
/// rank order) and compares the identities; collective.
Status checkSameInputs(const World &world, const RunSession &session,
                       std::vector<std::string> &devices) {
  const std::string mine = nlohmann::json{
      {"inputs", unsharded(session).json()},
      {"device",
       session.deviceName()}}.dump();
  int size = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<size_t>(world.size()));
  MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(sizes.size(), 0);
  std::string all;
  if (world.rank() == 0) {
    for (size_t r = 1; r < sizes.size(); ++r)
      offsets[r] = offsets[r - 1] + sizes[r - 1];
    all.resize(static_cast<size_t>(offsets.back() + sizes.back()));
  }
  MPI_Gatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(),
              offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (world.rank() != 0)
    return {};
  Status status = attempt([&] {
    const RunIdentity zero = unsharded(session);
    const std::string zeroName = rankName(0, world.size());
    devices = {session.deviceName()};
    for (int r = 1; r < world.size(); ++r) {
      const std::string name = rankName(r, world.size());
      const nlohmann::json sent = nlohmann::json::parse(all.substr(
          static_cast<size_t>(offsets[r]), static_cast<size_t>(sizes[r])));
      devices.push_back(sent.at("device").get<std::string>());
      const RunIdentity other = RunIdentity::fromJson(sent.at("inputs"), name);
      const std::string diff =
          RunIdentity::difference(zero, zeroName, other, name);
      if (!diff.empty())
        fail("{}: made from other inputs than {}: {} (every rank must read "
             "the same program, weights and dataset with the same flags)",
             name, zeroName, diff);
    }
  });
  status.named = true;
  return status;
}

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

/// The checkpoint root every rank's directory goes in (made when missing,
/// by whichever rank comes first; its parent must exist).
void makeCheckpointRoot(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec && !fs::is_directory(dir))
    fail("{}: cannot create the checkpoint directory: {}",
         escapeForMessage(dir), ec.message());
  if (!fs::is_directory(dir))
    fail("{}: the checkpoint is not a directory", escapeForMessage(dir));
}

} // namespace

int runMpiRanks(const RunTool &tool, const Launch &) {
  World world;
  const int rank = world.rank(), ranks = world.size();
  // The ranks other than 0 print nothing: their notices are rank 0's, and
  // their failures go to rank 0 (agree()).
  if (rank != 0)
    setNoticeHandler([](const std::string &) {});
  int failing = ranks;
  auto finish = [&](const Status &agreed) {
    if (rank == 0 && !(agreed.printed && failing == 0)) {
      if (agreed.interrupted)
        fmt::print(stderr, "{}: {}\n", tool.name, agreed.what);
      else if (agreed.named)
        fmt::print(stderr, "{}: error: {}\n", tool.name, agreed.what);
      else
        fmt::print(stderr, "{}: error: {}: {}\n", tool.name,
                   rankName(failing, ranks), agreed.what);
    }
    return agreed.code;
  };

  // 1. Setup.
  bool quiet = false;
  std::FILE *progressStream = stderr;
  std::unique_ptr<RankProgress> progress;
  std::unique_ptr<RunSession> session;
  bool printed = false;
  Status status = attempt([&] {
    RunSessionOptions options = tool.options();
    quiet = options.quiet;
    progressStream = options.progressStream;
    if (options.shardCount > 0)
      fail("--shard {}/{}: an MPI launch shards the queries by rank (rank r "
           "of N runs shard r/N); give --shard without mpirun, or mpirun "
           "without --shard",
           options.shardIndex, options.shardCount);
    if (!options.part.empty())
      fail("--part {}: an MPI launch writes the report and the outcomes of "
           "the whole run on rank 0, no part; give --report/--outcomes",
           escapeForMessage(options.part));
    if (options.outcomeRows)
      fail("--part-outcomes: an MPI launch writes no part; rank 0 writes "
           "the outcomes of every rank with --outcomes");
    options.shardIndex = rank;
    options.shardCount = ranks;
    options.mpiRanks = ranks;
    options.quiet = true; // the display is RankProgress's, on rank 0
    if (rank != 0) {
      // Rank 0 writes the outputs; the others send it their tally, and
      // their outcome rows when it writes an outcomes file.
      options.outcomeRows = !options.outcomes.empty();
      options.report.clear();
      options.outcomes.clear();
    }
    // The launcher's CPU binding: the default threads are the CPUs this
    // rank may run on, and a binding too narrow for its host work is said.
    const int bound = affinityCpus(),
              host = static_cast<int>(std::thread::hardware_concurrency());
    if (options.threads == 0 && bound > 0)
      options.threads = bound;
    if (rank == 0) {
      const std::string narrow = rankBindingNotice(
          rank, ranks, bound, host, localSizeFromEnvironment(environment));
      if (!narrow.empty())
        notice(narrow);
    }
    // `--device cuda` on a host of several GPUs: each rank its own.
    if (options.device == "cuda") {
      const bool bound = std::getenv("CUDA_VISIBLE_DEVICES") != nullptr;
      options.device =
          rankDevice(options.device, localRankFromEnvironment(environment),
                     bound ? 0 : cudaDeviceCount(), bound);
    }
    if (!options.checkpoint.empty()) {
      checkCheckpointLaunch(options.checkpoint, ranks);
      makeCheckpointRoot(options.checkpoint);
      options.checkpoint = rankCheckpointDir(options.checkpoint, rank, ranks);
    }
    options.onProgress = [&](int64_t done) {
      if (progress)
        progress->local(done);
    };
    SilencedStderr silence(rank != 0);
    session = tool.open(options);
    if (!session) {
      printed = true;
      fail("the program has errors (their diagnostics are printed by rank 0 "
           "only)");
    }
  });
  status.printed = printed;
  status = agree(world, status, failing);
  if (status.code)
    return finish(status);

  // 2. The same inputs on every rank.
  std::vector<std::string> devices; // rank 0: every rank's, for the report
  status = agree(world, checkSameInputs(world, *session, devices), failing);
  if (status.code)
    return finish(status);

  // 3. The run.
  progress = std::make_unique<RankProgress>(
      world, session->layout().candidateCount(), progressStream, quiet);
  RunOutput own;
  status = attempt([&] { own = session->evaluate(); });
  if (rank != 0)
    progress->settle();
  std::function<void()> drain;
  if (rank == 0)
    drain = [&] { progress->drain(); };
  status = agree(world, status, failing, drain);
  if (rank == 0) {
    progress->drain();
    progress->finish();
  }
  if (status.code)
    return finish(status);

  // 4. Gather (5. with --proofs, the proofs too) and write.
  const bool proofs = !session->options().proofs.empty();
  if (rank == 0) {
    RunOutput whole;
    status = gatherParts(world, *session, own, std::move(devices), whole);
    if (proofs) {
      const Status gathered = gatherProofs(world, *session, own, whole);
      if (!status.code)
        status = gathered;
    }
    if (!status.code)
      status = attempt([&] { finishRun(tool, *session, whole); });
  } else {
    status = sendPart(world, *session, own);
    if (proofs) {
      const Status sent = sendProofs(world, *session, own);
      if (!status.code)
        status = sent;
    }
  }
  status = agree(world, status, failing);
  return status.code ? finish(status) : 0;
}

} // namespace proofc::cli
