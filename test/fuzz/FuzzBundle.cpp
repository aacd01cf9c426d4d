//===- FuzzBundle.cpp - libFuzzer target for the bundle reader ------------===//
//
// The input is the JSON text of a bundle. A rejected text must be a
// proofc::Error naming the file; an accepted bundle must serialize to a text
// that parses again and serializes to the same text (nothing accepted that
// the writer cannot reproduce, no field silently changed on the way).
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "bundle/Bundle.h"
#include "proofc/runtime/Error.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace proofc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Bundle bundle;
  try {
    bundle = parseBundle(text, "fuzz.pcb");
  } catch (const Error &e) {
    FUZZ_CHECK(std::strncmp(e.what(), "fuzz.pcb: ", 10) == 0,
               "message does not name the file: %s", e.what());
    proofc::fuzz::checkMessage(e.what());
    return 0;
  }
  std::string first = serializeBundle(bundle);
  Bundle again;
  try {
    again = parseBundle(first, "serialized.pcb");
  } catch (const Error &e) {
    FUZZ_CHECK(false, "an accepted bundle serializes to a rejected one: %s",
               e.what());
  }
  std::string second = serializeBundle(again);
  FUZZ_CHECK(first == second, "serialize(parse(serialize(b))) differs:\n%s\n%s",
             first.c_str(), second.c_str());
  return 0;
}
