//===- PartFile.cpp - Partial results: shards and checkpoint ranges -------===//
#include "tooling/PartFile.h"

#include "support/Checksum.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/InputFile.h"
#include "support/JsonNode.h"
#include "support/MessageText.h"
#include "support/Sha256.h"
#include "tooling/Interrupts.h"
#include "tooling/RowCounts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {
namespace {

using json = nlohmann::json;

/// One tally record: query, mode, relation, list size, three ranks.
constexpr size_t kPairBytes = 4 + 1 + 4 + 8 + 3 * 8;
/// "proofc-part-header " + 20 digits + " " + checksum + "\n".
constexpr size_t kTrailerDigits = 20;
constexpr const char *kTrailerWord = "proofc-part-header ";
constexpr size_t kTrailerBytes =
    19 + kTrailerDigits + 1 + kChecksumTextBytes + 1;

/// The part's checksum (Checksum.h): over its magic line, its header line
/// and its trailer up to the checksum. The header holds the SHA-256s of the
/// tally and the rows, so every byte of the part is bound to it.
std::string partChecksum(std::string_view magic, std::string_view headerLine,
                         std::string_view trailerStart) {
  std::string covered;
  covered.reserve(magic.size() + headerLine.size() + trailerStart.size());
  covered.append(magic).append(headerLine).append(trailerStart);
  return checksumText(covered);
}
/// A header (with the shard's report) is far below this.
constexpr uint64_t kMaxHeaderBytes = uint64_t{64} << 20;

void putU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void putU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t getU32(const unsigned char *p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}

uint64_t getU64(const unsigned char *p) {
  return uint64_t{getU32(p)} | uint64_t{getU32(p + 4)} << 32;
}

std::string tallyBytes(const std::vector<PairRanks> &pairs) {
  std::string out;
  out.reserve(pairs.size() * kPairBytes);
  for (const PairRanks &p : pairs) {
    putU32(out, static_cast<uint32_t>(p.query));
    out.push_back(static_cast<char>(p.mode));
    putU32(out, static_cast<uint32_t>(p.relation));
    putU64(out, static_cast<uint64_t>(p.listSize));
    for (double r : p.rank) {
      uint64_t bits;
      std::memcpy(&bits, &r, 8);
      putU64(out, bits);
    }
  }
  return out;
}

std::string magicLine() {
  return fmt::format("{} {}\n", kPartMagic, kPartVersion);
}

json pairJson(int64_t a, int64_t b) { return json::array({a, b}); }

/// [begin, end) with 0 <= begin <= end.
std::pair<int64_t, int64_t> pairOf(const JsonNode &v) {
  const std::vector<JsonNode> items = v.array(2);
  const int64_t begin = items[0].i64(0), end = items[1].i64(0);
  if (begin > end)
    v.error(fmt::format("[{}, {}) is not a range [begin, end)", begin, end));
  return {begin, end};
}

} // namespace

json RunIdentity::json() const {
  return {{"program_sha256", programSha256},
          {"weights_sha256", weightsSha256},
          {"dataset_fingerprint", datasetFingerprint},
          {"split", split},
          {"corruptions", corruptions},
          {"seed", seed},
          {"queries", queries},
          {"facts", factsIncludeValid ? "train+valid" : "train"},
          {"shard", fmt::format("{}/{}", shardIndex, shardCount)}};
}

std::string RunIdentity::sha256() const {
  return "sha256:" + sha256Hex(json().dump());
}

RunIdentity RunIdentity::fromJson(const nlohmann::json &j,
                                  const std::string &path) {
  const JsonNode in(j, "inputs", path);
  in.expectObject({"program_sha256", "weights_sha256", "dataset_fingerprint",
                   "split", "corruptions", "seed", "queries", "facts",
                   "shard"});
  RunIdentity id;
  id.programSha256 = in["program_sha256"].text();
  id.weightsSha256 = in["weights_sha256"].text();
  id.datasetFingerprint = in["dataset_fingerprint"].text();
  id.split = in["split"].text();
  id.corruptions = in["corruptions"].i64(0);
  id.seed = in["seed"].u64();
  id.queries = in["queries"].i64(-1);
  const std::string facts = in["facts"].text();
  if (facts != "train" && facts != "train+valid")
    fail("{}: the part header's \"facts\" is {}, not train or train+valid",
         path, escapeForMessage(facts));
  id.factsIncludeValid = facts == "train+valid";
  const std::string shard = in["shard"].text();
  long long i = -1, n = -1;
  char end = 0;
  if (std::sscanf(shard.c_str(), "%lld/%lld%c", &i, &n, &end) != 2 || n < 1 ||
      i < 0 || i >= n)
    fail("{}: the part header's \"shard\" is {}, not i/n with 0 <= i < n", path,
         escapeForMessage(shard));
  id.shardIndex = i;
  id.shardCount = n;
  return id;
}

std::string RunIdentity::difference(const RunIdentity &a,
                                    const std::string &aName,
                                    const RunIdentity &b,
                                    const std::string &bName,
                                    bool ignoreShardIndex) {
  const nlohmann::json ja = a.json(), jb = b.json();
  for (const auto &[key, value] : ja.items()) {
    if (ignoreShardIndex && key == "shard")
      continue;
    if (jb.at(key) != value)
      return fmt::format("{} is {} in {}, {} in {}", key,
                         escapeForMessage(value.dump()), aName,
                         escapeForMessage(jb.at(key).dump()), bName);
  }
  if (ignoreShardIndex && a.shardCount != b.shardCount)
    return fmt::format("the shard count is {} in {}, {} in {}", a.shardCount,
                       aName, b.shardCount, bName);
  return "";
}

namespace {

/// The tally, header and trailer of `part` whose rows (`rowsBytes` bytes of
/// SHA-256 `rowsSha256`, when it has rows) come after the magic line.
std::string partTail(const PartFile &part, uint64_t rowsBytes,
                     const std::string &rowsSha256) {
  const std::string tally = tallyBytes(part.pairs);
  const OutcomeCounts &c = part.counts;
  nlohmann::json header{
      {"kind", part.kind},
      {"inputs", part.identity.json()},
      {"inputs_sha256", part.identity.sha256()},
      {"queries", pairJson(part.range.queryBegin, part.range.queryEnd)},
      {"candidates",
       pairJson(part.range.candidateBegin, part.range.candidateEnd)},
      {"total_queries", part.totalQueries},
      {"total_candidates", part.totalCandidates},
      {"counts",
       {{"candidates", c.candidates},
        {"proved", c.proved},
        {"failed", c.failed},
        {"truncated", c.truncated},
        {"depth_sum", c.depthSum}}},
      {"tally_sha256", sha256Hex(tally)},
      {"rows", part.hasRows ? json{{"bytes", rowsBytes}, {"sha256", rowsSha256}}
                            : json(nullptr)},
  };
  if (part.kind == "shard") {
    const RankMetricOptions &o = part.rankMetrics;
    header["rank_metrics"] = {{"hits", o.hits},
                              {"per_relation", o.perRelation},
                              {"bootstrap", o.bootstrapSamples},
                              {"bootstrap_seed", o.bootstrapSeed}};
    header["report"] = part.report;
  }
  const uint64_t headerAt = magicLine().size() + rowsBytes + tally.size();
  const std::string headerLine = header.dump() + "\n";
  const std::string trailerStart =
      fmt::format("{}{:0{}} ", kTrailerWord, headerAt, kTrailerDigits);
  return tally + headerLine + trailerStart +
         partChecksum(magicLine(), headerLine, trailerStart) + "\n";
}

/// Reads `n` bytes at `offset` of the part (its size known).
using ReadAt = std::function<std::string(uint64_t offset, uint64_t n)>;

/// The part's header and tally (`size` bytes in all); its rows' slice names
/// `path` (the in-memory parser checks their SHA-256 itself).
PartFile parsePartAt(const ReadAt &read, uint64_t size,
                     const std::string &path) {
  const std::string magic = magicLine();
  const std::string start = read(0, std::min<uint64_t>(size, 32));
  const std::string word = std::string(kPartMagic) + " ";
  if (start.rfind(word, 0) != 0)
    fail("{}: not a proofc part file (it does not start with \"{} \")", path,
         kPartMagic);
  if (start.rfind(magic, 0) != 0) {
    const size_t end = start.find('\n', word.size());
    fail("{}: a proofc part file of version {} (this proofc reads version "
         "{}: the parts and checkpoint ranges of an older proofc have no "
         "checksum, or hold outcomes, not the tally; run the shards or the "
         "checkpoint again)",
         path,
         escapeForMessage(start.substr(word.size(), end == std::string::npos
                                                        ? std::string::npos
                                                        : end - word.size())),
         kPartVersion);
  }
  const uint64_t trailerBytes = kTrailerBytes;
  if (size < magic.size() + trailerBytes)
    fail("{}: the part is cut off (no header)", path);
  const std::string trailer = read(size - trailerBytes, trailerBytes);
  const size_t digitsAt = std::char_traits<char>::length(kTrailerWord);
  uint64_t headerAt = 0;
  bool digits =
      trailer.size() == trailerBytes && trailer.rfind(kTrailerWord, 0) == 0 &&
      trailer[digitsAt + kTrailerDigits] == ' ' && trailer.back() == '\n';
  for (size_t i = digitsAt; digits && i < digitsAt + kTrailerDigits; ++i) {
    const uint64_t d = static_cast<uint64_t>(trailer[i] - '0');
    // 20 digits can say more than 2^64 - 1: refused, never wrapped.
    if (trailer[i] < '0' || trailer[i] > '9' ||
        headerAt > (UINT64_MAX - d) / 10)
      digits = false;
    else
      headerAt = headerAt * 10 + d;
  }
  if (!digits || headerAt < magic.size() || headerAt >= size - trailerBytes)
    fail("{}: the part is cut off or damaged (its last line does not locate "
         "the header)",
         path);
  const uint64_t headerBytes = size - trailerBytes - headerAt;
  if (headerBytes > kMaxHeaderBytes)
    fail("{}: the part header is larger than {} bytes", path, kMaxHeaderBytes);
  std::string headerText = read(headerAt, headerBytes);
  if (headerText.size() != headerBytes || headerText.front() != '{' ||
      headerText.back() != '\n')
    fail("{}: the part is cut off or damaged (its last line does not locate "
         "the header)",
         path);
  const std::string trailerStart =
      trailer.substr(0, digitsAt + kTrailerDigits + 1);
  if (trailer.compare(trailerStart.size(), kChecksumTextBytes,
                      partChecksum(magic, headerText, trailerStart)) != 0)
    fail("{}: the part's checksum does not match its header (the file is "
         "damaged)",
         path);
  headerText.pop_back();
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(headerText);
  } catch (const nlohmann::json::exception &e) {
    fail("{}: the part header is not JSON: {}", path,
         escapeForMessage(e.what()));
  }
  const JsonNode root(header, "", path);
  if (!root.isObject())
    root.error("the part header is not a JSON object");
  PartFile part;
  part.kind = root["kind"].text();
  if (part.kind != "shard" && part.kind != "range")
    fail("{}: the part's kind is {}, not shard or range", path,
         escapeForMessage(part.kind));
  part.identity = RunIdentity::fromJson(root["inputs"].json(), path);
  if (root["inputs_sha256"].text() != part.identity.sha256())
    fail("{}: the part header's inputs_sha256 does not match its inputs", path);
  auto [qb, qe] = pairOf(root["queries"]);
  auto [cb, ce] = pairOf(root["candidates"]);
  part.range = {qb, qe, cb, ce};
  part.totalQueries = root["total_queries"].i64(0);
  part.totalCandidates = root["total_candidates"].i64(0);
  if (qb < 0 || qb > qe || qe > part.totalQueries || cb < 0 || cb > ce ||
      ce > part.totalCandidates)
    fail("{}: the part's range (queries [{}, {}), candidates [{}, {})) is "
         "not within its {} queries and {} candidates",
         path, qb, qe, cb, ce, part.totalQueries, part.totalCandidates);
  const JsonNode counts = root["counts"];
  OutcomeCounts &c = part.counts;
  c.candidates = counts["candidates"].i64();
  c.proved = counts["proved"].i64();
  c.failed = counts["failed"].i64();
  c.truncated = counts["truncated"].i64();
  c.depthSum = counts["depth_sum"].i64();
  if (c.candidates != ce - cb || c.proved < 0 || c.failed < 0 ||
      c.truncated < 0 || c.depthSum < 0 ||
      c.proved + c.failed + c.truncated != c.candidates)
    fail("{}: the part's counts ({} candidates: {} proved, {} failed, {} "
         "truncated) are not those of its {} candidates",
         path, c.candidates, c.proved, c.failed, c.truncated, ce - cb);
  const JsonNode rows = root["rows"];
  uint64_t rowsBytes = 0;
  if (!rows.json().is_null()) {
    const int64_t bytes = rows["bytes"].i64(0);
    part.hasRows = true;
    rowsBytes = static_cast<uint64_t>(bytes);
    if (rowsBytes > headerAt - magic.size())
      fail("{}: the part header's rows.bytes is {}, but the file has {} "
           "bytes before its header",
           path, rowsBytes, headerAt - magic.size());
    // The counts are checked against the rows as they are copied.
    part.rows = {path,        magic.size(), rowsBytes, rows["sha256"].text(),
                 part.counts, true};
  }
  // The tally's size from the queries, without overflow: compared by
  // division with the bytes the file has for it.
  const uint64_t pairs = 2 * static_cast<uint64_t>(qe - qb);
  const uint64_t tallyAt = magic.size() + rowsBytes;
  const uint64_t tallyBytes = headerAt - tallyAt;
  if (tallyBytes % kPairBytes != 0 || tallyBytes / kPairBytes != pairs)
    fail("{}: the part header's \"queries\" [{}, {}) need {} tally records of "
         "{} bytes, the file has {} bytes for them (after {} bytes of rows): "
         "the file is cut off, has extra bytes or a wrong header",
         path, qb, qe, pairs, kPairBytes, tallyBytes, rowsBytes);
  const std::string tally = read(tallyAt, headerAt - tallyAt);
  if (sha256Hex(tally) != root["tally_sha256"].text())
    fail("{}: the tally's SHA-256 does not match the header (the file is "
         "damaged)",
         path);
  part.pairs.resize(static_cast<size_t>(pairs));
  const auto *p = reinterpret_cast<const unsigned char *>(tally.data());
  for (size_t i = 0; i < part.pairs.size(); ++i, p += kPairBytes) {
    PairRanks &r = part.pairs[i];
    r.query = static_cast<int32_t>(getU32(p));
    r.relation = static_cast<int32_t>(getU32(p + 5));
    r.listSize = static_cast<int64_t>(getU64(p + 9));
    for (size_t k = 0; k < 3; ++k) {
      const uint64_t bits = getU64(p + 17 + 8 * k);
      std::memcpy(&r.rank[k], &bits, 8);
    }
    const int64_t query = qb + static_cast<int64_t>(i / 2);
    if (r.query != query || p[4] != i % 2 || r.listSize < 1 ||
        !(r.rank[0] >= 1 && r.rank[0] <= r.rank[2] && r.rank[2] <= r.rank[1] &&
          r.rank[1] <= static_cast<double>(r.listSize)))
      fail("{}: tally record {} is not the ranks of query {}'s {} list", path,
           i, query, i % 2 ? "tail" : "head");
    r.mode = static_cast<Mode>(p[4]);
  }
  if (part.kind == "shard") {
    const JsonNode rm = root["rank_metrics"];
    rm.expectObject({"hits", "per_relation", "bootstrap", "bootstrap_seed"});
    part.rankMetrics.hits = rm["hits"].i64s(1);
    part.rankMetrics.perRelation = rm["per_relation"].boolean();
    part.rankMetrics.bootstrapSamples = rm["bootstrap"].i64(0);
    part.rankMetrics.bootstrapSeed = rm["bootstrap_seed"].u64();
    const JsonNode report = root["report"];
    if (!report.isObject())
      report.error("expected an object");
    part.report = report.json();
  }
  return part;
}

} // namespace

void checkTally(const CandidateLayout &layout, const PartFile &part,
                const std::string &path) {
  const QueryRange &r = part.range;
  if (r.queryEnd > layout.queryCount() ||
      r.candidateBegin != layout.firstCandidateOf(r.queryBegin) ||
      r.candidateEnd != layout.firstCandidateOf(r.queryEnd) ||
      part.counts.candidates != r.candidates() ||
      static_cast<int64_t>(part.pairs.size()) != 2 * r.queries())
    fail("{}: the part's range (queries [{}, {}), candidates [{}, {})) is "
         "not one of this run's",
         path, r.queryBegin, r.queryEnd, r.candidateBegin, r.candidateEnd);
  for (size_t i = 0; i < part.pairs.size(); ++i) {
    const PairRanks &p = part.pairs[i];
    if (p.listSize !=
            layout.listSize(2 * r.queryBegin + static_cast<int64_t>(i)) ||
        p.relation != layout.queries[static_cast<size_t>(p.query)].r)
      fail("{}: tally record {} (query {}'s {} list) is not of this run's "
           "candidates",
           path, i, p.query, p.mode == Mode::Head ? "head" : "tail");
  }
}

std::string serializePart(const PartFile &part) {
  PartFile bare = part;
  bare.hasRows = false;
  return magicLine() + partTail(bare, 0, "");
}

std::string withPartChecksum(std::string bytes) {
  const std::string magic = magicLine();
  const size_t digitsAt = std::char_traits<char>::length(kTrailerWord);
  if (bytes.size() < magic.size() + kTrailerBytes)
    return bytes;
  const size_t trailerAt = bytes.size() - kTrailerBytes;
  uint64_t headerAt = 0;
  for (size_t i = 0; i < kTrailerDigits; ++i) {
    const char c = bytes[trailerAt + digitsAt + i];
    if (c < '0' || c > '9' || headerAt > (UINT64_MAX - 9) / 10)
      return bytes;
    headerAt = headerAt * 10 + static_cast<uint64_t>(c - '0');
  }
  if (headerAt > trailerAt)
    return bytes;
  const size_t checksumAt = trailerAt + digitsAt + kTrailerDigits + 1;
  const std::string sum = partChecksum(
      std::string_view(bytes).substr(0, magic.size()),
      std::string_view(bytes).substr(headerAt, trailerAt - headerAt),
      std::string_view(bytes).substr(trailerAt, checksumAt - trailerAt));
  bytes.replace(checksumAt, sum.size(), sum);
  return bytes;
}

PartFile parsePart(const std::string &bytes, const std::string &path) {
  const ReadAt read = [&](uint64_t offset, uint64_t n) {
    return bytes.substr(static_cast<size_t>(offset), static_cast<size_t>(n));
  };
  PartFile part = parsePartAt(read, bytes.size(), path);
  if (part.hasRows &&
      sha256Hex(std::string_view(bytes).substr(
          static_cast<size_t>(part.rows.offset),
          static_cast<size_t>(part.rows.bytes))) != part.rows.sha256)
    fail("{}: the outcome rows' SHA-256 does not match the header (the file "
         "is damaged)",
         path);
  if (part.hasRows) {
    RowCounter counter(path);
    counter.update(
        std::string_view(bytes).substr(static_cast<size_t>(part.rows.offset),
                                       static_cast<size_t>(part.rows.bytes)));
    counter.check(part.counts);
  }
  return part;
}

PartFile readPart(const std::string &path) {
  const InputFile file(path);
  const ReadAt read = [&](uint64_t offset, uint64_t n) {
    std::string out(static_cast<size_t>(n), '\0');
    out.resize(file.readAt(offset, out.data(), out.size()));
    return out;
  };
  return parsePartAt(read, file.size(), path);
}

void copyRows(const std::vector<RowSlice> &slices,
              const std::function<void(std::string_view)> &sink, size_t piece) {
  std::string buffer(std::max<size_t>(piece, 1), '\0');
  for (const RowSlice &slice : slices) {
    if (slice.bytes == 0 && slice.sha256.empty())
      continue;
    const InputFile file(slice.path);
    Sha256 hash;
    RowCounter rowCounts(slice.path);
    for (uint64_t at = 0; at < slice.bytes;) {
      const size_t n = static_cast<size_t>(
          std::min<uint64_t>(slice.bytes - at, buffer.size()));
      if (file.readAt(slice.offset + at, buffer.data(), n) != n)
        fail("{}: the outcome rows are cut off ({} of {} bytes)",
             escapeForMessage(slice.path), at, slice.bytes);
      const std::string_view bytes(buffer.data(), n);
      if (!slice.sha256.empty())
        hash.update(bytes);
      if (slice.checkCounts)
        rowCounts.update(bytes);
      sink(bytes);
      at += n;
    }
    if (!slice.sha256.empty() && hash.hexDigest() != slice.sha256)
      fail("{}: the outcome rows' SHA-256 does not match the header (the "
           "file is damaged)",
           escapeForMessage(slice.path));
    if (slice.checkCounts)
      rowCounts.check(slice.counts);
  }
}

PartWriter::PartWriter(const std::string &path, bool rows)
    : path_(path), rows_(rows) {
  handle_ = set_.open(path);
  set_.append(handle_, magicLine());
}

void PartWriter::appendRows(std::string_view bytes) {
  if (!rows_)
    fail("{}: outcome rows for a part made without them", path_);
  set_.append(handle_, bytes);
  rowsHash_.update(bytes);
  rowsBytes_ += bytes.size();
}

void PartWriter::commit(PartFile &part) {
  part.hasRows = rows_;
  const std::string sha = rowsHash_.hexDigest();
  set_.append(handle_, partTail(part, rowsBytes_, sha));
  set_.close(handle_);
  set_.commit();
  part.rows = rows_ ? RowSlice{path_, magicLine().size(), rowsBytes_,
                               sha,   part.counts,        true}
                    : RowSlice{};
}

} // namespace proofc
