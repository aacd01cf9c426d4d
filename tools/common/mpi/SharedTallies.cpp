//===- SharedTallies.cpp - Shared lists' tallies between MPI ranks --------===//
#include "mpi/SharedTallies.h"

#include "support/Fail.h"

#include <climits>

namespace proofc::cli::mpi {

bool sharesAcrossRanks(const RunSessionOptions &options, int ranks) {
  return ranks > 1 && options.shareLists && options.outcomes.empty() &&
         options.proofs.empty() && options.checkpoint.empty();
}

Status exchangeSharedTallies(const World &world, RunSession &session,
                             RunOutput &own) {
  const int ranks = world.size();
  std::vector<std::string> out;
  Status status = attempt([&] {
    if (!own.crossShard)
      fail("no shared lists' tallies to exchange");
    out = SharedLists::bytesForShards(*own.crossShard, ranks);
  });
  // Every rank takes part in the exchange, also one that failed above (it
  // sends nothing): agree() after it reports the failure.
  std::vector<int64_t> sendSizes(static_cast<size_t>(ranks), 0),
      receiveSizes(static_cast<size_t>(ranks), 0);
  for (size_t r = 0; r < out.size(); ++r)
    sendSizes[r] = static_cast<int64_t>(out[r].size());
  MPI_Request request;
  MPI_Ialltoall(sendSizes.data(), 1, MPI_INT64_T, receiveSizes.data(), 1,
                MPI_INT64_T, MPI_COMM_WORLD, &request);
  world.wait(request);
  // MPI counts and offsets are ints: a rank's tallies past 2 GiB in all
  // (more than 268 M proved corruptions of shared lists) are not sent.
  int64_t sendTotal = 0, receiveTotal = 0;
  for (size_t r = 0; r < sendSizes.size(); ++r) {
    sendTotal += sendSizes[r];
    receiveTotal += receiveSizes[r];
  }
  int tooLarge = sendTotal > INT_MAX || receiveTotal > INT_MAX;
  int anyTooLarge = 0;
  MPI_Iallreduce(&tooLarge, &anyTooLarge, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                 &request);
  world.wait(request);
  if (anyTooLarge) {
    if (!status.code)
      status = attempt([] {
        fail("the shared lists' tallies a rank sends or receives pass "
             "2 GiB; run with --no-shared-lists");
      });
    return status;
  }
  std::vector<int> sendCounts(static_cast<size_t>(ranks)),
      sendOffsets(static_cast<size_t>(ranks)),
      receiveCounts(static_cast<size_t>(ranks)),
      receiveOffsets(static_cast<size_t>(ranks));
  std::string sendBytes, receiveBytes;
  for (int r = 0; r < ranks; ++r) {
    const size_t i = static_cast<size_t>(r);
    sendOffsets[i] = static_cast<int>(sendBytes.size());
    sendCounts[i] = static_cast<int>(sendSizes[i]);
    if (i < out.size())
      sendBytes += out[i];
    receiveOffsets[i] = static_cast<int>(receiveBytes.size());
    receiveCounts[i] = static_cast<int>(receiveSizes[i]);
    receiveBytes.resize(receiveBytes.size() + receiveSizes[i]);
  }
  MPI_Ialltoallv(sendBytes.data(), sendCounts.data(), sendOffsets.data(),
                 MPI_BYTE, receiveBytes.data(), receiveCounts.data(),
                 receiveOffsets.data(), MPI_BYTE, MPI_COMM_WORLD, &request);
  world.wait(request);
  if (status.code)
    return status;
  return attempt([&] {
    std::vector<SharedTally> imported;
    for (int r = 0; r < ranks; ++r) {
      if (r == world.rank())
        continue;
      const size_t i = static_cast<size_t>(r);
      std::vector<SharedTally> from = SharedLists::parseTallies(
          std::string_view(receiveBytes)
              .substr(static_cast<size_t>(receiveOffsets[i]),
                      static_cast<size_t>(receiveCounts[i])),
          fmt::format("the shared lists' tallies from {}", rankName(r, ranks)));
      for (SharedTally &t : from)
        imported.push_back(std::move(t));
    }
    session.resolveCrossShard(own, std::move(imported));
  });
}

} // namespace proofc::cli::mpi
