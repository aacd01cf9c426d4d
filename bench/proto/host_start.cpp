// host_start.cpp - the host's part of a whole split's start, phase by phase,
// on any machine (no GPU): what docs/performance.md's "Where a whole
// split's wall time goes" puts before the first kernel.
//
// Times, as a streamed session makes them (SessionEngine.cpp's stream()):
// the dataset read (loadDataset), the pool's layout (CandidateBuilder),
// the shared lists' plan (SharedLists over the whole pool), the blocks cut
// by the candidates that run (streamBlocks, --block's default, the two
// device workers of one GPU), and the first two blocks built
// (SharedLists::runSet, room for the largest block as a CUDA call keeps),
// one after the other (the pipeline's two builders build them at once);
// three rounds.
// Build (after `ninja -C build proofc_runtime`):
//   g++ -O2 -std=c++20 -Iruntime/include -Iruntime/contract/include \
//     -Iruntime/src \
//     bench/proto/host_start.cpp build/lib/libproofc_runtime.a \
//     -lfmt -lxxhash -lpthread -ldl -o /tmp/host_start
// Use: /tmp/host_start ../shared/data/fb15k-237
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/QueryRanges.h"
#include "session/SharedLists.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace proofc;

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_start DATASET_DIR\n");
    return 2;
  }
  constexpr int64_t kBlock = 4194304; // --block's default
  constexpr int64_t kWorkers = 2;     // --workers-per-device's on CUDA
  for (int round = 1; round <= 3; ++round) {
    double t = now();
    Dataset ds = loadDataset(argv[1]);
    const double loaded = now() - t;
    t = now();
    CandidateOptions options; // test split, every filtered corruption
    CandidateBuilder builder(ds, options);
    const double laidOut = now() - t;
    t = now();
    const QueryRange all = wholeRange(builder.layout());
    SharedLists shared(builder, all, true, 0, SharedLists::defaultKeepBytes());
    const double planned = now() - t;
    t = now();
    const CandidateLayout &runLayout = shared.runLayout();
    const std::vector<QueryRange> blocks = streamBlocks(
        runLayout, queryRange(runLayout, all.queryBegin, all.queryEnd), kBlock,
        kWorkers);
    const double cut = now() - t;
    int64_t largest = 0;
    for (const QueryRange &b : blocks)
      largest = std::max(largest, b.candidates());
    double first = 0;
    for (size_t b = 0; b < 2 && b < blocks.size(); ++b) {
      t = now();
      CandidateSet set = shared.runSet(builder, blocks[b].queryBegin,
                                       blocks[b].queryEnd, largest);
      const double s = now() - t;
      if (b == 0)
        first = s;
      std::printf("round %d block %zu: %lld queries, %zu candidates run, "
                  "%.3f s\n",
                  round, b, static_cast<long long>(blocks[b].queries()),
                  set.candidates.size(), s);
    }
    std::printf("round %d: dataset %.3f s, layout %.3f s, plan %.3f s, "
                "blocks cut %.3f s (%zu blocks), first block %.3f s\n",
                round, loaded, laidOut, planned, cut, blocks.size(), first);
  }
  return 0;
}
