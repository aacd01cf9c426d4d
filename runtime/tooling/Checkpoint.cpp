//===- Checkpoint.cpp - Resumable runs: finished ranges on disk -----------===//
#include "tooling/Checkpoint.h"

#include "support/DirectoryLock.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>

namespace proofc {
namespace fs = std::filesystem;
namespace {

std::string rangeName(const QueryRange &r) {
  return fmt::format("range-{}-{}.part", r.queryBegin, r.queryEnd);
}

} // namespace

Checkpoint::Checkpoint(std::string dir, const RunIdentity &identity,
                       const CandidateLayout &set, const QueryRange &scope)
    : dir_(std::move(dir)), identity_(identity), set_(set), scope_(scope) {
  ensureDirectory(dir_, "checkpoint");
  // One process at a time: a second would take this one's temporaries for
  // a killed run's (DirectoryLock.h).
  lock_ = std::make_unique<DirectoryLock>(dir_, "checkpoint directory");
  std::error_code ec;
  // Temporaries of a run killed while writing (OutputSet's
  // `<name>.tmp-<hex>`): never complete, never read.
  for (const fs::directory_entry &e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if ((name.rfind("range-", 0) == 0 || name.rfind("manifest.json", 0) == 0) &&
        name.find(".tmp-") != std::string::npos)
      fs::remove(e.path(), ec);
  }
  if (ec)
    fail("{}: cannot read the checkpoint directory: {}", dir_, ec.message());
  const std::string manifestPath = (fs::path(dir_) / "manifest.json").string();
  if (!fs::exists(manifestPath, ec)) {
    nlohmann::json manifest{{"schema", kCheckpointSchema},
                            {"version", kCheckpointVersion},
                            {"inputs", identity_.json()},
                            {"inputs_sha256", identity_.sha256()}};
    writeAtomically(manifestPath, manifest.dump(2) + "\n");
    return;
  }
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(readFile(manifestPath, 1 << 20));
  } catch (const nlohmann::json::exception &e) {
    fail("{}: not a checkpoint manifest (not JSON: {})", manifestPath,
         escapeForMessage(e.what()));
  }
  if (!manifest.is_object() || !manifest.contains("schema") ||
      manifest["schema"] != kCheckpointSchema)
    fail("{}: not a proofc checkpoint manifest (\"schema\" is not \"{}\")",
         manifestPath, kCheckpointSchema);
  if (!manifest.contains("version") ||
      manifest["version"] != kCheckpointVersion)
    fail("{}: a checkpoint of version {} (this proofc reads version {}, "
         "whose ranges carry a checksum and hold the tally); remove the "
         "directory and run again",
         manifestPath,
         manifest.contains("version")
             ? escapeForMessage(manifest["version"].dump())
             : std::string("unknown"),
         kCheckpointVersion);
  if (!manifest.contains("inputs"))
    fail("{}: the checkpoint manifest has no \"inputs\"", manifestPath);
  const RunIdentity there =
      RunIdentity::fromJson(manifest.at("inputs"), manifestPath);
  if (!manifest.contains("inputs_sha256") ||
      manifest["inputs_sha256"] != there.sha256())
    fail("{}: the checkpoint manifest's inputs_sha256 does not match its "
         "inputs (the file is damaged); remove the directory and run again",
         manifestPath);
  const std::string diff =
      RunIdentity::difference(there, "the checkpoint", identity_, "this run");
  if (!diff.empty())
    fail("{}: the checkpoint was made from other inputs: {} (a checkpoint is "
         "bound to {}); give another --checkpoint directory or remove this "
         "one",
         dir_, diff, kIdentityWords);
}

std::vector<QueryRange> Checkpoint::resume(int64_t every, bool rows,
                                           std::vector<PartFile> &parts,
                                           int64_t &recordedCandidates) {
  recordedCandidates = 0;
  parts.clear();
  std::map<int64_t, std::pair<QueryRange, std::string>> recorded;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const fs::directory_entry &e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("range-", 0) == 0 && name.size() > 5 &&
        name.compare(name.size() - 5, 5, ".part") == 0)
      files.push_back(e.path());
  }
  if (ec)
    fail("{}: cannot read the checkpoint directory: {}", dir_, ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    const std::string path = file.string();
    PartFile part = readPart(path);
    const std::string diff =
        RunIdentity::difference(part.identity, path, identity_, "this run");
    if (part.kind != "range" || !diff.empty())
      fail("{}: not a range of this checkpoint ({}); remove it or the "
           "directory",
           path, part.kind != "range" ? "kind " + part.kind : diff);
    const QueryRange want =
        queryRange(set_, part.range.queryBegin, part.range.queryEnd);
    if (!(want == part.range) ||
        part.totalCandidates != set_.candidateCount() ||
        part.range.queryBegin < scope_.queryBegin ||
        part.range.queryEnd > scope_.queryEnd ||
        file.filename().string() != rangeName(part.range))
      fail("{}: its range (queries [{}, {}), candidates [{}, {})) is not one "
           "of this run's; remove it or the directory",
           path, part.range.queryBegin, part.range.queryEnd,
           part.range.candidateBegin, part.range.candidateEnd);
    if (part.range.queries() == 0)
      continue;
    checkTally(set_, part, path);
    if (rows && !part.hasRows) {
      // Recorded by a run without an outcomes file: run again, with rows.
      fs::remove(file, ec);
      if (ec)
        fail("{}: cannot remove a range recorded without outcome rows: {}",
             path, ec.message());
      continue;
    }
    auto next = recorded.lower_bound(part.range.queryBegin);
    if ((next != recorded.end() &&
         next->second.first.queryBegin < part.range.queryEnd) ||
        (next != recorded.begin() &&
         std::prev(next)->second.first.queryEnd > part.range.queryBegin)) {
      const auto &other =
          next != recorded.end() &&
                  next->second.first.queryBegin < part.range.queryEnd
              ? next->second.second
              : std::prev(next)->second.second;
      fail("{}: overlaps {}; remove the checkpoint directory", path, other);
    }
    recordedCandidates += part.range.candidates();
    recorded.emplace(part.range.queryBegin, std::make_pair(part.range, path));
    parts.push_back(std::move(part));
  }
  std::sort(parts.begin(), parts.end(),
            [](const PartFile &a, const PartFile &b) {
              return a.range.queryBegin < b.range.queryBegin;
            });
  resumed_.clear();
  for (const auto &[begin, entry] : recorded)
    resumed_.push_back(entry);
  // The gaps between recorded ranges, cut to size.
  std::vector<QueryRange> pending;
  int64_t at = scope_.queryBegin;
  auto gap = [&](int64_t end) {
    if (at < end)
      for (const QueryRange &r :
           splitRange(set_, queryRange(set_, at, end), every))
        pending.push_back(r);
  };
  for (const auto &[begin, entry] : recorded) {
    gap(begin);
    at = entry.first.queryEnd;
  }
  gap(scope_.queryEnd);
  return pending;
}

std::string Checkpoint::rangeFile(const QueryRange &range) const {
  return (fs::path(dir_) / rangeName(range)).string();
}

std::unique_ptr<PartWriter> Checkpoint::begin(const QueryRange &range,
                                              bool rows) const {
  return std::make_unique<PartWriter>(rangeFile(range), rows);
}

PartFile Checkpoint::record(PartWriter &writer, const QueryRange &range,
                            std::vector<PairRanks> pairs,
                            const OutcomeCounts &counts) {
  PartFile part;
  part.kind = "range";
  part.identity = identity_;
  part.range = range;
  part.totalQueries = set_.queryCount();
  part.totalCandidates = set_.candidateCount();
  part.pairs = std::move(pairs);
  part.counts = counts;
  // OutputSet: exclusive temporary, fsync, rename, directory fsync.
  writer.commit(part);
  ++recorded_;
  if (const char *kill = std::getenv(kCheckpointKillEnv))
    if (std::atoll(kill) > 0 && recorded_ == std::atoll(kill))
      std::raise(SIGKILL);
  return part;
}

} // namespace proofc
