//===- PartFile.cpp - Partial results: shards and checkpoint ranges -------===//
#include "PartFile.h"

#include "Fail.h"
#include "FileIO.h"
#include "MessageText.h"
#include "Sha256.h"

#include <fmt/format.h>

#include <cstring>

namespace proofc {
namespace {

using json = nlohmann::json;

constexpr size_t kRecordBytes = 9;

void putU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t getU32(const unsigned char *p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}

std::string outcomeBytes(const std::vector<Outcome> &outcomes) {
  std::string out;
  out.reserve(outcomes.size() * kRecordBytes);
  for (const Outcome &o : outcomes) {
    out.push_back(static_cast<char>(o.status));
    putU32(out, static_cast<uint32_t>(o.depth));
    uint32_t bits;
    std::memcpy(&bits, &o.logp, 4);
    putU32(out, bits);
  }
  return out;
}

/// The member `key` of `j` (an object), or an error naming `path`.
const json &member(const json &j, const char *key, const std::string &path) {
  if (!j.is_object() || !j.contains(key))
    fail("{}: the part header has no \"{}\"", path, key);
  return j.at(key);
}

int64_t integer(const json &j, const char *key, const std::string &path) {
  const json &v = member(j, key, path);
  if (!v.is_number_integer())
    fail("{}: the part header's \"{}\" is not an integer", path, key);
  return v.get<int64_t>();
}

std::string text(const json &j, const char *key, const std::string &path) {
  const json &v = member(j, key, path);
  if (!v.is_string())
    fail("{}: the part header's \"{}\" is not a string", path, key);
  return v.get<std::string>();
}

json pairJson(int64_t a, int64_t b) { return json::array({a, b}); }

std::pair<int64_t, int64_t> pairOf(const json &j, const char *key,
                                   const std::string &path) {
  const json &v = member(j, key, path);
  if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() ||
      !v[1].is_number_integer())
    fail("{}: the part header's \"{}\" is not [begin, end]", path, key);
  return {v[0].get<int64_t>(), v[1].get<int64_t>()};
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
  RunIdentity id;
  id.programSha256 = text(j, "program_sha256", path);
  id.weightsSha256 = text(j, "weights_sha256", path);
  id.datasetFingerprint = text(j, "dataset_fingerprint", path);
  id.split = text(j, "split", path);
  id.corruptions = integer(j, "corruptions", path);
  const nlohmann::json &seed = member(j, "seed", path);
  if (!seed.is_number_unsigned() && !seed.is_number_integer())
    fail("{}: the part header's \"seed\" is not an integer", path);
  id.seed = seed.get<uint64_t>();
  id.queries = integer(j, "queries", path);
  const std::string facts = text(j, "facts", path);
  if (facts != "train" && facts != "train+valid")
    fail("{}: the part header's \"facts\" is {}, not train or train+valid",
         path, escapeForMessage(facts));
  id.factsIncludeValid = facts == "train+valid";
  const std::string shard = text(j, "shard", path);
  long long i = -1, n = -1;
  char end = 0;
  if (std::sscanf(shard.c_str(), "%lld/%lld%c", &i, &n, &end) != 2 || n < 1 ||
      i < 0 || i >= n)
    fail("{}: the part header's \"shard\" is {}, not i/n with 0 <= i < n",
         path, escapeForMessage(shard));
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

std::string serializePart(const PartFile &part) {
  const std::string payload = outcomeBytes(part.outcomes);
  nlohmann::json header{
      {"kind", part.kind},
      {"inputs", part.identity.json()},
      {"inputs_sha256", part.identity.sha256()},
      {"queries", pairJson(part.range.queryBegin, part.range.queryEnd)},
      {"candidates",
       pairJson(part.range.candidateBegin, part.range.candidateEnd)},
      {"total_queries", part.totalQueries},
      {"total_candidates", part.totalCandidates},
      {"outcomes_sha256", sha256Hex(payload)},
  };
  if (part.kind == "shard") {
    const RankMetricOptions &o = part.rankMetrics;
    header["rank_metrics"] = {{"hits", o.hits},
                              {"per_relation", o.perRelation},
                              {"bootstrap", o.bootstrapSamples},
                              {"bootstrap_seed", o.bootstrapSeed}};
    header["report"] = part.report;
  }
  return fmt::format("{} {}\n{}\n", kPartMagic, kPartVersion, header.dump()) +
         payload;
}

PartFile parsePart(const std::string &bytes, const std::string &path) {
  const std::string magic = fmt::format("{} {}\n", kPartMagic, kPartVersion);
  if (bytes.rfind(std::string(kPartMagic) + " ", 0) != 0)
    fail("{}: not a proofc part file (it does not start with \"{} \")", path,
         kPartMagic);
  if (bytes.rfind(magic, 0) != 0)
    fail("{}: a proofc part file of another version (this proofc reads "
         "version {})",
         path, kPartVersion);
  const size_t headerEnd = bytes.find('\n', magic.size());
  if (headerEnd == std::string::npos)
    fail("{}: the part header is cut off", path);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(
        std::string_view(bytes).substr(magic.size(), headerEnd - magic.size()));
  } catch (const nlohmann::json::exception &e) {
    fail("{}: the part header is not JSON: {}", path, escapeForMessage(e.what()));
  }
  PartFile part;
  part.kind = text(header, "kind", path);
  if (part.kind != "shard" && part.kind != "range")
    fail("{}: the part's kind is {}, not shard or range", path,
         escapeForMessage(part.kind));
  part.identity = RunIdentity::fromJson(member(header, "inputs", path), path);
  if (text(header, "inputs_sha256", path) != part.identity.sha256())
    fail("{}: the part header's inputs_sha256 does not match its inputs",
         path);
  auto [qb, qe] = pairOf(header, "queries", path);
  auto [cb, ce] = pairOf(header, "candidates", path);
  part.range = {qb, qe, cb, ce};
  part.totalQueries = integer(header, "total_queries", path);
  part.totalCandidates = integer(header, "total_candidates", path);
  if (qb < 0 || qb > qe || qe > part.totalQueries || cb < 0 || cb > ce ||
      ce > part.totalCandidates)
    fail("{}: the part's range (queries [{}, {}), candidates [{}, {})) is "
         "not within its {} queries and {} candidates",
         path, qb, qe, cb, ce, part.totalQueries, part.totalCandidates);
  const std::string_view payload =
      std::string_view(bytes).substr(headerEnd + 1);
  const uint64_t want = static_cast<uint64_t>(ce - cb) * kRecordBytes;
  if (payload.size() != want)
    fail("{}: {} bytes of outcomes for {} candidates ({} expected): the "
         "file is cut off or has extra bytes",
         path, payload.size(), ce - cb, want);
  if (sha256Hex(payload) != text(header, "outcomes_sha256", path))
    fail("{}: the outcomes' SHA-256 does not match the header (the file is "
         "damaged)",
         path);
  if (part.kind == "shard") {
    const nlohmann::json &rm = member(header, "rank_metrics", path);
    try {
      part.rankMetrics.hits = rm.at("hits").get<std::vector<int64_t>>();
      part.rankMetrics.perRelation = rm.at("per_relation").get<bool>();
      part.rankMetrics.bootstrapSamples = rm.at("bootstrap").get<int64_t>();
      part.rankMetrics.bootstrapSeed = rm.at("bootstrap_seed").get<uint64_t>();
    } catch (const nlohmann::json::exception &e) {
      fail("{}: the part header's rank_metrics is malformed: {}", path,
           escapeForMessage(e.what()));
    }
    part.report = member(header, "report", path);
    if (!part.report.is_object())
      fail("{}: the part header's report is not an object", path);
  }
  part.outcomes.resize(static_cast<size_t>(ce - cb));
  const auto *p = reinterpret_cast<const unsigned char *>(payload.data());
  for (Outcome &o : part.outcomes) {
    if (p[0] > 2)
      fail("{}: outcome {} has status byte {} (0, 1 or 2 expected)", path,
           cb + (&o - part.outcomes.data()), p[0]);
    o.status = static_cast<ProofStatus>(p[0]);
    o.depth = static_cast<int32_t>(getU32(p + 1));
    const uint32_t bits = getU32(p + 5);
    std::memcpy(&o.logp, &bits, 4);
    p += kRecordBytes;
  }
  return part;
}

PartFile readPart(const std::string &path) {
  return parsePart(readFile(path), path);
}

} // namespace proofc
