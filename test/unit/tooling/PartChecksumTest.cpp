//===- PartChecksumTest.cpp - Hostile part files: checksum, sizes, counts -===//
//
// The second round of hostile parts (issue 25; PartFile.h, RowCounts.h): a
// part's header is checksummed, so one flipped bit anywhere in it (a count,
// a path of the embedded report) is refused by name; behind the checksum
// (made right again, as a forger would), every size and offset is checked
// against the file without overflow -- a part claiming ~10^18 queries is a
// message naming the file and the field, never an allocation -- and counts
// forged against the rows they describe are refused as the rows are read.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "support/FileIO.h"
#include "tooling/PartFile.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include <cstring>

namespace proofc::test {
namespace {

/// 4 candidates: 1 proved, 2 failed, 1 truncated; depths add up to 27.
constexpr const char *kRows = "0\thead\ta\tproved\t3\t-1\n"
                              "0\thead\tb\tfailed\t8\t-inf\n"
                              "1\ttail\tc\tfailed\t8\t-inf\n"
                              "1\ttail\td\ttruncated\t8\t-inf\n";

PartFile shardPart() {
  PartFile p;
  p.kind = "shard";
  p.identity.programSha256 = "sha256:aa";
  p.identity.weightsSha256 = "sha256:bb";
  p.identity.datasetFingerprint = "sha256:cc";
  p.identity.split = "test";
  p.identity.corruptions = 1;
  p.identity.queries = 2;
  p.identity.shardIndex = 0;
  p.identity.shardCount = 2;
  p.range = {0, 2, 0, 4};
  p.totalQueries = 4;
  p.totalCandidates = 8;
  p.pairs = {{0, Mode::Head, 1, 2, {1, 2, 1.5}},
             {0, Mode::Tail, 1, 1, {1, 1, 1}},
             {1, Mode::Head, 1, 1, {1, 1, 1}},
             {1, Mode::Tail, 1, 1, {1, 1, 1}}};
  p.counts = {4, 1, 2, 1, 27};
  p.report = {{"dataset", {{"dir", "/data/kinship"}}},
              {"metrics", {{"proved", 1}}},
              {"timings", nlohmann::json::object()}};
  return p;
}

/// The header line's offset in `bytes` (a well-formed part).
size_t headerAt(const std::string &bytes) {
  const size_t word = bytes.rfind("proofc-part-header ");
  return static_cast<size_t>(std::stoull(bytes.substr(word + 19, 20)));
}

nlohmann::json headerOf(const std::string &bytes) {
  const size_t at = headerAt(bytes);
  return nlohmann::json::parse(bytes.substr(at, bytes.find('\n', at) - at));
}

/// A part of `body` (between the magic line and the header) and `header`,
/// its trailer and checksum made as a writer makes them.
std::string assemble(const std::string &body, const nlohmann::json &header) {
  std::string out = "proofc-part 3\n" + body;
  const size_t at = out.size();
  out += header.dump() + "\n" +
         fmt::format("proofc-part-header {:020} xxh3:{}\n", at,
                     std::string(32, '0'));
  return withPartChecksum(out);
}

TEST(PartChecksum, EveryFlippedBitOfTheHeaderIsRefusedByName) {
  const std::string bytes = serializePart(shardPart());
  EXPECT_EQ(withPartChecksum(bytes), bytes); // the writer's checksum
  const size_t from = headerAt(bytes);
  // Every bit of the header line and the trailer: never accepted.
  for (size_t i = from; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      const std::string error = errorOf([&] { parsePart(damaged, "p.part"); });
      ASSERT_EQ(error.rfind("p.part: ", 0), 0u)
          << "byte " << i << " bit " << bit << ": " << error;
    }
  // depth_sum and the report's dataset path: the checksum says so.
  for (auto [from, to] : {std::pair{"\"depth_sum\":27", "\"depth_sum\":26"},
                          std::pair{"/data/kinship", "/data/kinshiq"}}) {
    std::string damaged = bytes;
    damaged.replace(damaged.find(from), std::strlen(from), to);
    EXPECT_EQ(errorOf([&] { parsePart(damaged, "p.part"); }),
              "p.part: the part's checksum does not match its header (the "
              "file is damaged)");
  }
}

TEST(PartChecksum, SizesAndOffsetsNeverWrap) {
  const std::string bytes = serializePart(shardPart());
  nlohmann::json header = headerOf(bytes);
  const std::string tally = bytes.substr(14, headerAt(bytes) - 14); // 4 records
  // ~10^18 queries: a message naming the file and the field.
  nlohmann::json huge = header;
  huge["queries"] = {0, 1000000000000000000};
  huge["total_queries"] = 1000000000000000000;
  EXPECT_EQ(errorOf([&] { parsePart(assemble(tally, huge), "p.part"); }),
            "p.part: the part header's \"queries\" [0, 1000000000000000000) "
            "need 2000000000000000000 tally records of 41 bytes, the file "
            "has 164 bytes for them (after 0 bytes of rows): the file is cut "
            "off, has extra bytes or a wrong header");
  // A count whose tally size wraps past 2^64 to 2 bytes (82 n = 2 mod
  // 2^64), the rows' size set to leave exactly those 2 bytes: refused.
  const int64_t n = 1124801467909119001;
  nlohmann::json wrap = header;
  wrap["queries"] = {0, n};
  wrap["total_queries"] = n;
  wrap["rows"] = {{"bytes", 162}, {"sha256", "0"}};
  EXPECT_EQ(errorOf([&] { parsePart(assemble(tally, wrap), "p.part"); }),
            fmt::format("p.part: the part header's \"queries\" [0, {}) need "
                        "{} tally records of 41 bytes, the file has 2 bytes "
                        "for them (after 162 bytes of rows): the file is cut "
                        "off, has extra bytes or a wrong header",
                        n, 2 * static_cast<uint64_t>(n)));
  // rows.bytes past the file, and past 2^63.
  nlohmann::json rows = header;
  rows["rows"] = {{"bytes", 1000}, {"sha256", "0"}};
  EXPECT_EQ(errorOf([&] { parsePart(assemble(tally, rows), "p.part"); }),
            "p.part: the part header's rows.bytes is 1000, but the file has "
            "164 bytes before its header");
  rows["rows"] = {{"bytes", 18446744073709551615u}, {"sha256", "0"}};
  EXPECT_EQ(errorOf([&] { parsePart(assemble(tally, rows), "p.part"); }),
            "p.part: rows.bytes: 18446744073709551615 is out of range [0, "
            "9223372036854775807]");
  // A header offset of 20 nines (past 2^64) is not taken modulo 2^64.
  std::string offset = bytes;
  offset.replace(offset.rfind("proofc-part-header ") + 19, 20,
                 std::string(20, '9'));
  EXPECT_EQ(errorOf([&] { parsePart(offset, "p.part"); }),
            "p.part: the part is cut off or damaged (its last line does not "
            "locate the header)");
  const TempDir dir;
  const std::string path = dir.write("huge.part", assemble(tally, huge));
  EXPECT_NE(errorOf([&] {
              readPart(path);
            }).find(path + ": the part header's \"queries\""),
            std::string::npos);
}

// The fuzzer's find: a float where an integer belongs (9.2e19 read as an
// int64 was undefined behaviour); every integer field is read as one.
TEST(PartChecksum, FloatsAndWrongTypesInTheHeaderAreRefused) {
  const std::string bytes = serializePart(shardPart());
  const nlohmann::json header = headerOf(bytes);
  const std::string tally = bytes.substr(14, headerAt(bytes) - 14);
  auto errorWith = [&](const std::function<void(nlohmann::json &)> &edit) {
    nlohmann::json h = header;
    edit(h);
    return errorOf([&] { parsePart(assemble(tally, h), "p.part"); });
  };
  EXPECT_EQ(errorWith([](nlohmann::json &h) {
              h["rank_metrics"]["bootstrap"] = 9.2233720368547758e19;
            }),
            "p.part: rank_metrics.bootstrap: expected an integer");
  EXPECT_EQ(errorWith([](nlohmann::json &h) {
              h["rank_metrics"]["hits"] = {1, 3.5};
            }),
            "p.part: rank_metrics.hits[1]: expected an integer");
  EXPECT_EQ(errorWith([](nlohmann::json &h) {
              h["rank_metrics"]["bootstrap_seed"] = -1;
            }),
            "p.part: rank_metrics.bootstrap_seed: -1 is negative");
  EXPECT_EQ(errorWith([](nlohmann::json &h) { h["counts"]["proved"] = 2.0; }),
            "p.part: counts.proved: expected an integer");
  EXPECT_EQ(
      errorWith([](nlohmann::json &h) { h["inputs"]["corruptions"] = 1e30; }),
      "p.part: inputs.corruptions: expected an integer");
  EXPECT_EQ(errorWith([](nlohmann::json &h) { h["queries"] = {0}; }),
            "p.part: queries: expected 2 items, got 1");
  EXPECT_EQ(errorWith([](nlohmann::json &h) { h.erase("total_queries"); }),
            "p.part: total_queries: missing field");
  EXPECT_EQ(errorWith([](nlohmann::json &h) { h["inputs"]["extra"] = 1; }),
            "p.part: inputs.extra: unknown field");
}

TEST(PartChecksum, CountsForgedAgainstTheRowsAreRefused) {
  const TempDir dir;
  PartFile p = shardPart();
  p.counts = {4, 2, 1, 1, 27}; // the rows say 1 proved, 2 failed
  const std::string path = dir.file("forged.part");
  {
    PartWriter writer(path, /*rows=*/true);
    writer.appendRows(kRows);
    writer.commit(p);
  }
  // The header is consistent (and checksummed): read; the rows refuse it.
  const PartFile part = readPart(path);
  const std::string expected =
      path + ": the part's counts (4 candidates: 2 proved, 1 failed, 1 "
             "truncated, depth sum 27) are not those of its outcome rows (4: "
             "1, 2, 1, 27); the file is damaged or forged";
  EXPECT_EQ(errorOf([&] { copyRows({part.rows}, [](std::string_view) {}, 7); }),
            expected);
  EXPECT_EQ(errorOf([&] { parsePart(readFile(path), path); }), expected);
  // The same rows with the right counts pass, in pieces of any size.
  p.counts = {4, 1, 2, 1, 27};
  {
    PartWriter writer(path, /*rows=*/true);
    writer.appendRows(kRows);
    writer.commit(p);
  }
  for (size_t piece : {1, 5, 64}) {
    std::string copied;
    copyRows(
        {readPart(path).rows}, [&](std::string_view b) { copied += b; }, piece);
    EXPECT_EQ(copied, kRows);
  }
  // A depth sum forged by one: refused.
  p.counts.depthSum = 28;
  {
    PartWriter writer(path, /*rows=*/true);
    writer.appendRows(kRows);
    writer.commit(p);
  }
  EXPECT_NE(errorOf([&] {
              copyRows({readPart(path).rows}, [](std::string_view) {});
            }).find("depth sum 28) are not those of its outcome rows"),
            std::string::npos);
}

TEST(PartChecksum, TheFuzzSeedsAreOfThisVersion) {
  // test/fuzz/corpus/fuzz-part: the seeds the fuzzer mutates must pass the
  // checksum, or it would learn nothing past it.
  for (const char *seed : {"range.part", "shard.part"}) {
    const std::string path =
        std::string(PROOFC_SOURCE_DIR) + "/test/fuzz/corpus/fuzz-part/" + seed;
    const std::string bytes = readFile(path);
    EXPECT_EQ(withPartChecksum(bytes), bytes) << seed;
    EXPECT_EQ(errorOf([&] { parsePart(bytes, path); }), "(no error)");
  }
}

} // namespace
} // namespace proofc::test
