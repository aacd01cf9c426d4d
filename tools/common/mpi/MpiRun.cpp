//===- MpiRun.cpp - A run as the ranks of an MPI launch -------------------===//
//
// The protocol, on MPI_COMM_WORLD (docs/scale-out.md, "MPI ranks"):
//
//  1. setup: every rank makes its RunSession for shard rank/N (the ranks
//     other than 0 with stderr closed and no outputs); agreed (agree()).
//  2. inputs: rank 0 gathers every rank's RunIdentity (the shard aside) and
//     the options that decide what the rank writes and sends (RankWrites.h:
//     --report, --outcomes, --proofs, ...), and refuses a rank made from
//     other inputs or started with other such options; agreed. So a
//     disagreement is one message from rank 0 before any work, never a
//     rank left waiting for what another will not send.
//  3. run: every rank evaluates its shard; the ranks other than 0 send their
//     candidates done to rank 0 (kTagProgress, one int64, nonblocking, at
//     most 4 a second), which draws one display over all; agreed.
//  3b. with lists shared across ranks (SharedTallies.h: no outcomes, proofs
//     or checkpoint): every rank sends each other rank the shared lists'
//     tallies it waits for (one MPI_Alltoallv) and completes its tally
//     with those it received; agreed.
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

#include "mpi/InitDeadline.h"
#include "mpi/MpiParts.h"
#include "mpi/MpiWorld.h"
#include "mpi/RankWrites.h"
#include "mpi/SharedTallies.h"

#include "cuda/CudaBackend.h"
#include "proofc/runtime/Notices.h"
#include "proofc/runtime/RunControl.h"
#include "support/DirectoryLock.h"
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

using namespace mpi;

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

/// The identity of a rank's inputs, its shard aside (every rank's must be
/// rank 0's).
RunIdentity unsharded(const RunSession &session) {
  RunIdentity id = session.identity();
  id.shardIndex = 0;
  id.shardCount = 1;
  return id;
}

/// Step 2: rank 0 gathers every rank's identity, device (`devices`, in
/// rank order) and the options that decide what it writes (`writes`,
/// RankWrites.h) and compares them with its own; collective.
Status checkSameInputs(const World &world, const RunSession &session,
                       std::vector<std::string> &devices,
                       const nlohmann::json &writes) {
  const std::string mine = nlohmann::json{
      {"inputs", unsharded(session).json()},
      {"device", session.deviceName()},
      {"writes", writes}}.dump();
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
      const std::string options = rankWritesDifference(
          writes, zeroName, sent.value("writes", nlohmann::json()), name);
      if (!options.empty())
        fail("{}: started with other options than {}: {} (every rank must "
             "be started with the same flags)",
             name, zeroName, options);
    }
  });
  status.named = true;
  return status;
}

/// The checkpoint root every rank's directory goes in (made when missing,
/// by whichever rank comes first; its parent must exist).
void makeCheckpointRoot(const std::string &dir) {
  ensureDirectory(dir, "checkpoint"); // DirectoryLock.h
}

} // namespace

int runMpiRanks(const RunTool &tool, const Launch &) {
  World world(tool.name);
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
  nlohmann::json writes;
  bool printed = false;
  Status status = attempt([&] {
    RunSessionOptions options = tool.options();
    writes = rankWrites(options); // as given, agreed in step 2
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
    options.crossShard = sharesAcrossRanks(options, ranks);
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
  status =
      agree(world, checkSameInputs(world, *session, devices, writes), failing);
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

  // 3b. The shared lists' tallies between the ranks.
  if (session->options().crossShard) {
    status = agree(world, exchangeSharedTallies(world, *session, own), failing);
    if (status.code)
      return finish(status);
  }

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
