//===- OutcomesWriter.cpp - The outcomes TSV written block by block -------===//
#include "outputs/OutcomesWriter.h"

#include "outputs/Report.h"
#include "support/Fail.h"

#include <algorithm>
#include <exception>
#include <thread>

namespace proofc {
namespace {

/// About this many candidates' lines per formatted piece (~6 MB of text).
constexpr int64_t kPieceCandidates = int64_t{1} << 16;

} // namespace

OutcomesWriter::OutcomesWriter(OutputSet &set, const std::string &path,
                               const Dataset &dataset, int threads)
    : set_(&set), handle_(set.open(path)), path_(path), dataset_(dataset),
      threads_(std::max(1, threads)) {
  emit(outcomesTsvHeader());
}

OutcomesWriter::OutcomesWriter(std::function<void(std::string_view)> sink,
                               const Dataset &dataset, int threads)
    : sink_(std::move(sink)), path_("outcome rows"), dataset_(dataset),
      threads_(std::max(1, threads)) {}

void OutcomesWriter::emit(std::string_view bytes) {
  if (set_)
    set_->append(handle_, bytes);
  else
    sink_(bytes);
  hash_.update(bytes);
}

void OutcomesWriter::appendRows(std::string_view rows) { emit(rows); }

void OutcomesWriter::write(const CandidateSet &candidates,
                           const std::vector<Outcome> &outcomes,
                           const std::vector<PairRanks> &pairs) {
  const std::vector<CandidateGroup> &groups = candidates.groups;
  if (outcomes.size() != candidates.candidates.size() ||
      pairs.size() != groups.size())
    fail("{}: {} outcomes and {} ranked lists for {} candidates in {} lists",
         path_, outcomes.size(), pairs.size(), candidates.candidates.size(),
         groups.size());
  // Pieces of whole groups, in order; `threads_` of them formatted at once,
  // then written in order.
  std::vector<size_t> cuts{0};
  int64_t pieceStart = groups.empty() ? 0 : groups.front().begin;
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].end - pieceStart >= kPieceCandidates) {
      cuts.push_back(g + 1);
      pieceStart = groups[g].end;
    }
  if (cuts.back() != groups.size())
    cuts.push_back(groups.size());
  const size_t pieces = cuts.size() - 1;
  auto format = [&](size_t piece, std::string &text) {
    for (size_t g = cuts[piece]; g < cuts[piece + 1]; ++g)
      appendOutcomesTsvGroup(text, candidates, dataset_, outcomes, groups[g],
                             pairs[g].rank);
  };
  const size_t wave = static_cast<size_t>(threads_);
  std::vector<std::string> texts(wave);
  for (size_t first = 0; first < pieces; first += wave) {
    const size_t n = std::min(wave, pieces - first);
    for (std::string &t : texts)
      t.clear();
    if (n == 1) {
      format(first, texts[0]);
    } else {
      std::vector<std::exception_ptr> errors(n);
      std::vector<std::thread> workers;
      for (size_t i = 0; i < n; ++i)
        workers.emplace_back([&, i] {
          try {
            format(first + i, texts[i]);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        });
      for (std::thread &w : workers)
        w.join();
      for (const std::exception_ptr &e : errors)
        if (e)
          std::rethrow_exception(e);
    }
    for (size_t i = 0; i < n; ++i)
      emit(texts[i]);
  }
}

std::string OutcomesWriter::finish() {
  if (set_)
    set_->close(handle_);
  return hash_.hexDigest();
}

} // namespace proofc
