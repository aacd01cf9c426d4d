//===- FuzzPart.cpp - libFuzzer target for the part file reader -----------===//
//
// The input is a whole part file (`--shard --part`, a checkpoint range;
// docs/scale-out.md). A rejected file must be a proofc::Error naming it; an
// accepted one must hold two tally records per query of its range and
// counts of as many candidates, and must survive serializePart + parsePart
// unchanged (every tally bit, the range, the identity and its hash).
// Each input is parsed twice: as it is (the checksum refuses nearly every
// mutation, which is its job), then with its checksum made that of its
// mutated bytes (withPartChecksum), so that the fuzzer reaches the checks
// behind the checksum: the header's fields, every size and offset against
// the real size, the tally, the rows and their counts.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "proofc/runtime/Error.h"
#include "tooling/PartFile.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace proofc;

namespace {

void parseAndCheck(const std::string &bytes) {
  PartFile part;
  try {
    part = parsePart(bytes, "fuzz.part");
  } catch (const Error &e) {
    FUZZ_CHECK(std::strncmp(e.what(), "fuzz.part: ", 11) == 0,
               "message does not name the file: %s", e.what());
    proofc::fuzz::checkMessage(e.what());
    return;
  }
  FUZZ_CHECK(static_cast<int64_t>(part.pairs.size()) ==
                     2 * part.range.queries() &&
                 part.counts.candidates == part.range.candidates(),
             "%zu tally records and %lld counted for a range of %lld "
             "queries and %lld candidates",
             part.pairs.size(),
             static_cast<long long>(part.counts.candidates),
             static_cast<long long>(part.range.queries()),
             static_cast<long long>(part.range.candidates()));
  const PartFile back = parsePart(serializePart(part), "fuzz.part");
  FUZZ_CHECK(back.kind == part.kind, "round trip changed the kind");
  FUZZ_CHECK(back.range == part.range, "round trip changed the range");
  FUZZ_CHECK(back.identity.sha256() == part.identity.sha256(),
             "round trip changed the inputs");
  FUZZ_CHECK(back.pairs.size() == part.pairs.size(),
             "round trip changed the tally's size");
  for (size_t i = 0; i < part.pairs.size(); ++i) {
    const PairRanks &a = part.pairs[i], &b = back.pairs[i];
    FUZZ_CHECK(a.query == b.query && a.mode == b.mode &&
                   a.relation == b.relation && a.listSize == b.listSize &&
                   std::memcmp(a.rank.data(), b.rank.data(), 24) == 0,
               "round trip changed tally record %zu", i);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string bytes(reinterpret_cast<const char *>(data), size);
  parseAndCheck(bytes);
  const std::string sealed = withPartChecksum(bytes);
  if (sealed != bytes)
    parseAndCheck(sealed);
  return 0;
}
