//===- FuzzPart.cpp - libFuzzer target for the part file reader -----------===//
//
// The input is a whole part file (`--shard --part`, a checkpoint range;
// docs/scale-out.md). A rejected file must be a proofc::Error naming it; an
// accepted one must hold as many outcomes as its candidate range, and must
// survive serializePart + parsePart unchanged (every outcome bit, the range,
// the identity and its hash).
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "PartFile.h"
#include "proofc/runtime/Error.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace proofc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string bytes(reinterpret_cast<const char *>(data), size);
  PartFile part;
  try {
    part = parsePart(bytes, "fuzz.part");
  } catch (const Error &e) {
    FUZZ_CHECK(std::strncmp(e.what(), "fuzz.part: ", 11) == 0,
               "message does not name the file: %s", e.what());
    proofc::fuzz::checkMessage(e.what());
    return 0;
  }
  FUZZ_CHECK(static_cast<int64_t>(part.outcomes.size()) ==
                 part.range.candidates(),
             "%zu outcomes for a range of %lld candidates",
             part.outcomes.size(),
             static_cast<long long>(part.range.candidates()));
  const PartFile back = parsePart(serializePart(part), "fuzz.part");
  FUZZ_CHECK(back.kind == part.kind, "round trip changed the kind");
  FUZZ_CHECK(back.range == part.range, "round trip changed the range");
  FUZZ_CHECK(back.identity.sha256() == part.identity.sha256(),
             "round trip changed the inputs");
  FUZZ_CHECK(back.outcomes.size() == part.outcomes.size(),
             "round trip changed the outcome count");
  for (size_t i = 0; i < part.outcomes.size(); ++i) {
    const Outcome &a = part.outcomes[i], &b = back.outcomes[i];
    FUZZ_CHECK(a.status == b.status && a.depth == b.depth &&
                   std::memcmp(&a.logp, &b.logp, 4) == 0,
               "round trip changed outcome %zu", i);
  }
  return 0;
}
