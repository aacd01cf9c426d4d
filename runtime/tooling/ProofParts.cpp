//===- ProofParts.cpp - The proofs of a query range, on their own ---------===//
#include "tooling/ProofParts.h"

#include "outputs/ProofFormats.h"
#include "support/Checksum.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/InputFile.h"
#include "support/JsonNode.h"
#include "support/MessageText.h"
#include "support/Sha256.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace proofc {
namespace {

using json = nlohmann::json;

int64_t lineCount(std::string_view lines) {
  return std::count(lines.begin(), lines.end(), '\n');
}

/// The first line's start: the magic word and the version; the checksum
/// (Checksum.h) of the rest of the file follows, then '\n'.
std::string magicWords() {
  return fmt::format("{} {} ", kProofsPartMagic, kProofsPartVersion);
}

} // namespace

std::string serializeProofsPart(const ProofsPart &part) {
  const json header{
      {"inputs", part.identity.json()},
      {"inputs_sha256", part.identity.sha256()},
      {"queries", {part.range.queryBegin, part.range.queryEnd}},
      {"candidates", {part.range.candidateBegin, part.range.candidateEnd}},
      {"format", part.format},
      {"version", kProofsFormatVersion},
      {"of", part.of},
      {"count", lineCount(part.lines)},
      {"sha256", sha256Hex(part.lines)},
  };
  const std::string rest = header.dump() + "\n" + part.lines;
  return magicWords() + checksumText(rest) + "\n" + rest;
}

bool looksLikeProofsPart(const std::string &bytes) {
  return bytes.rfind(std::string(kProofsPartMagic) + " ", 0) == 0;
}

ProofsPart parseProofsPart(const std::string &bytes, const std::string &path) {
  const std::string words = magicWords();
  if (!looksLikeProofsPart(bytes))
    fail("{}: not a proofc proofs part (it does not start with \"{} \")", path,
         kProofsPartMagic);
  if (bytes.rfind(words, 0) != 0) {
    const size_t word = std::char_traits<char>::length(kProofsPartMagic) + 1;
    const size_t end = bytes.find_first_of(" \n", word);
    fail("{}: a proofs part of version {} (this proofc reads version {}; "
         "the proofs parts of an older proofc have no checksum or another "
         "header: run the shards or the checkpoint again)",
         path,
         escapeForMessage(std::string_view(bytes).substr(
             word, end == std::string::npos ? std::string::npos : end - word)),
         kProofsPartVersion);
  }
  // The checksum of everything after the first line, checked before any
  // of it is believed.
  const std::string magic = words + std::string(kChecksumTextBytes, ' ') + "\n";
  if (bytes.size() < magic.size() || bytes[magic.size() - 1] != '\n' ||
      bytes.compare(
          words.size(), kChecksumTextBytes,
          checksumText(std::string_view(bytes).substr(magic.size()))) != 0)
    fail("{}: the proofs part's checksum does not match its contents (the "
         "file is cut off or damaged)",
         path);
  const size_t headerEnd = bytes.find('\n', magic.size());
  if (headerEnd == std::string::npos)
    fail("{}: the proofs part's header is cut off", path);
  ProofsPart part;
  int64_t count = 0, formatVersion = 0;
  std::string sha;
  json header;
  try {
    header = json::parse(
        std::string_view(bytes).substr(magic.size(), headerEnd - magic.size()));
  } catch (const json::exception &e) {
    fail("{}: the proofs part's header is not JSON: {}", path,
         escapeForMessage(e.what()));
  }
  const JsonNode root(header, "", path);
  root.expectObject({"inputs", "inputs_sha256", "queries", "candidates",
                     "format", "version", "of", "count", "sha256"});
  part.identity = RunIdentity::fromJson(root["inputs"].json(), path);
  if (root["inputs_sha256"].text() != part.identity.sha256())
    fail("{}: the proofs part header's inputs_sha256 does not match its "
         "inputs",
         path);
  const std::vector<int64_t> queries = root["queries"].i64s(0);
  const std::vector<int64_t> candidates = root["candidates"].i64s(0);
  if (queries.size() != 2 || candidates.size() != 2 ||
      queries[0] > queries[1] || candidates[0] > candidates[1])
    fail("{}: the proofs part's \"queries\" and \"candidates\" are not "
         "ranges [begin, end)",
         path);
  part.range = {queries[0], queries[1], candidates[0], candidates[1]};
  part.format = root["format"].text();
  formatVersion = root["version"].i64();
  part.of = root["of"].text();
  count = root["count"].i64(0);
  sha = root["sha256"].text();
  if (formatVersion != kProofsFormatVersion)
    fail("{}: proofs of format version {} (this proofc writes version {}); "
         "run the range again",
         path, formatVersion, kProofsFormatVersion);
  parseProofFormat(part.format, path + ": format");
  parseProofSelection(part.of, path + ": of");
  part.lines = bytes.substr(headerEnd + 1);
  if (lineCount(part.lines) != count ||
      (!part.lines.empty() && part.lines.back() != '\n'))
    fail("{}: {} proof lines, the header says {}: the file is cut off or has "
         "extra bytes",
         path, lineCount(part.lines), count);
  if (sha256Hex(part.lines) != sha)
    fail("{}: the proofs' SHA-256 does not match the header (the file is "
         "damaged)",
         path);
  return part;
}

std::string withProofsPartChecksum(std::string bytes) {
  const std::string words = magicWords();
  const size_t restAt = words.size() + kChecksumTextBytes + 1;
  if (bytes.rfind(words, 0) != 0 || bytes.size() < restAt)
    return bytes;
  bytes.replace(words.size(), kChecksumTextBytes,
                checksumText(std::string_view(bytes).substr(restAt)));
  return bytes;
}

ProofsPart readProofsPart(const std::string &path) {
  return parseProofsPart(readFile(path), path);
}

void checkProofsPart(const ProofsPart &part, const std::string &path,
                     const RunIdentity &identity, const QueryRange &range,
                     const std::string &format, const std::string &of,
                     bool ignoreShardIndex, const std::string &remedy) {
  const std::string diff = RunIdentity::difference(
      part.identity, path, identity, "this run", ignoreShardIndex);
  if (!diff.empty())
    fail("{}: proofs made from other inputs: {}; {}", path, diff, remedy);
  if (!(part.range == range))
    fail("{}: the proofs of queries [{}, {}), not of [{}, {}); {}", path,
         part.range.queryBegin, part.range.queryEnd, range.queryBegin,
         range.queryEnd, remedy);
  if (part.format != format || part.of != of)
    fail("{}: proofs written with --proofs-format {} --proofs-of {}, this run "
         "asks for {} and {}; {}",
         path, part.format, part.of, format, of, remedy);
}

std::vector<std::string> takeProofsParts(std::vector<std::string> &files) {
  std::vector<std::string> proofs, rest;
  const std::string magic = std::string(kProofsPartMagic) + " ";
  for (std::string &path : files) {
    std::string start(magic.size(), '\0');
    bool isProofs = false;
    try { // InputFile: a FIFO or a device is refused, not waited on
      const InputFile in(path);
      isProofs = in.readAt(0, start.data(), start.size()) == start.size() &&
                 looksLikeProofsPart(start);
    } catch (const Error &) {
    }
    (isProofs ? proofs : rest).push_back(std::move(path));
  }
  files = std::move(rest);
  return proofs;
}

MergedProofs mergeProofsParts(const std::string &output,
                              const std::vector<std::string> &paths,
                              const std::vector<ShardOfRun> &shards) {
  if (output.empty()) {
    if (!paths.empty())
      fail("{}: a proofs part; give --proofs FILE to merge the shards' "
           "proofs (or leave the proofs parts out)",
           paths.front());
    return {};
  }
  const int64_t count = static_cast<int64_t>(shards.size());
  std::vector<std::string> lines(shards.size()), from(shards.size());
  MergedProofs merged;
  for (const std::string &path : paths) {
    ProofsPart part = readProofsPart(path);
    const int64_t i = part.identity.shardIndex;
    if (part.identity.shardCount != count || i < 0 || i >= count)
      fail("{}: the proofs of shard {}/{}, the parts are of {} shards", path, i,
           part.identity.shardCount, count);
    if (!from[static_cast<size_t>(i)].empty())
      fail("{}: the proofs of shard {}/{} are also {}", path, i, count,
           from[static_cast<size_t>(i)]);
    const ShardOfRun &shard = shards[static_cast<size_t>(i)];
    if (merged.format.empty()) { // the first part sets them
      merged.format = part.format;
      merged.of = part.of;
    }
    checkProofsPart(part, path, shard.identity, shard.range, merged.format,
                    merged.of, /*ignoreShardIndex=*/false,
                    "give the proofs part written with that shard's part");
    from[static_cast<size_t>(i)] = path;
    lines[static_cast<size_t>(i)] = std::move(part.lines);
  }
  for (int64_t i = 0; i < count; ++i)
    if (from[static_cast<size_t>(i)].empty())
      fail("--proofs {}: the proofs of shard {}/{} are missing (give every "
           "shard's proofs part, written by --shard i/n --proofs FILE, with "
           "the parts)",
           escapeForMessage(output), i, count);
  merged.text =
      proofsFileHeader(parseProofFormat(merged.format, "--proofs-format"));
  for (const std::string &l : lines) {
    merged.count += lineCount(l);
    merged.text += l;
  }
  return merged;
}

std::string checkpointProofsPath(const std::string &rangeFile) {
  return rangeFile + ".proofs";
}

} // namespace proofc
