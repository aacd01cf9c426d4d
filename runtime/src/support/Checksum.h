//===- Checksum.h - The checksum of proofc's own files ----------*- C++ -*-===//
//
// The files one proofc writes for another to read back -- shard parts,
// checkpoint ranges, proofs parts (PartFile.h, ProofParts.h) -- carry a
// checksum of their header, so that one flipped bit in a count, a path or a
// report field is refused by name instead of merged or resumed with a wrong
// number. It is XXH3-128 (the xxhash the project links already): fast, not
// a defence against a forger, who would also have to forge the SHA-256s the
// header holds and pass every check of the reader. Written as "xxh3:" and
// 32 lower-case hex digits. The same hash names weights given in memory in a
// report's provenance (`weights_xxh3`, docs/report-schema.md): a training
// loop's call hashes its tensors in place, at memory speed.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CHECKSUM_H
#define PROOFC_RUNTIME_CHECKSUM_H

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

/// "xxh3:" + 32 hex digits: the length of checksumText()'s result.
inline constexpr size_t kChecksumTextBytes = 5 + 32;

/// XXH3-128 of `bytes` as "xxh3:<32 lower-case hex digits>".
std::string checksumText(std::string_view bytes);

/// XXH3-128 of the concatenation of `pieces` (streamed: nothing is copied),
/// as checksumText of the concatenated bytes.
std::string checksumText(const std::vector<std::string_view> &pieces);

} // namespace proofc

#endif // PROOFC_RUNTIME_CHECKSUM_H
