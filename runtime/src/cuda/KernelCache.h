//===- KernelCache.h - On-disk cache of compiled kernel modules -*- C++ -*-===//
//
// Compiling the bundle's modules (NVRTC for CUDA C++, the driver's JIT for
// PTX) costs seconds; the cubins are cached on disk, keyed by everything that
// can change them. Device-independent: the compile step is a callback, so the
// cache logic is tested on machines without a GPU.
//
//  * key   = XXH3-128 over a length-prefixed record of {code, sorted options,
//            arch, compiler version, driver version, proofc version, cache
//            format version}, as 32 hex digits; entry file <dir>/<key>.cubin.
//  * entry = header {magic "PRFCKRNL", format version, payload length,
//            XXH3-64 of the payload, the key} + payload. A truncated or
//            corrupted entry is detected, removed and rebuilt.
//  * writes are atomic (a unique temporary file in the same directory, then
//            rename), so concurrent writers of one key never expose a torn
//            entry; the last rename wins and both entries are equal.
//  * size cap: after a write, least recently used entries (by mtime; a hit
//            touches its entry) are evicted until the total fits.
//  * location: $PROOFC_CACHE_DIR, else $XDG_CACHE_HOME/proofc, else
//            ~/.cache/proofc; PROOFC_CACHE_MAX_BYTES (default 256 MiB);
//            PROOFC_CACHE_DISABLE=1 compiles in memory only.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_KERNELCACHE_H
#define PROOFC_RUNTIME_CUDA_KERNELCACHE_H

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace proofc {

inline constexpr uint32_t kKernelCacheFormatVersion = 1;

/// Everything a compiled module depends on.
struct KernelKey {
  std::string code; ///< CUDA C++ source or PTX text
  std::vector<std::string> options;
  std::string arch;            ///< e.g. "sm_90"
  std::string compilerVersion; ///< NVRTC version ("ptx-jit" for PTX)
  int driverVersion = 0;       ///< cuDriverGetVersion
  std::string proofcVersion;
};

/// The key as 32 lowercase hex digits (XXH3-128 of the record).
std::string kernelKeyHex(const KernelKey &key);

class KernelCache;

/// The key of CUDA C++ `source` compiled by NVRTC with `options` for
/// sm_<major><minor>: the source, the options with NVRTC's implicit ones,
/// the arch, NVRTC's and the driver's versions and proofc's. Throws
/// proofc::Error when NVRTC cannot be loaded.
KernelKey nvrtcKernelKey(const std::string &source,
                         const std::vector<std::string> &options, int ccMajor,
                         int ccMinor, int driverVersion);

/// CUDA C++ `source` compiled by NVRTC for sm_<major><minor> with
/// `options`, through `cache` (nvrtcKernelKey): a bundle's CUDA C++
/// modules and the kernels the runtime embeds (the device prologue, the
/// trajectories' finishing pass). `name` names the source in NVRTC's
/// errors.
std::string cachedNvrtcCubin(KernelCache &cache, int driverVersion,
                             const std::string &source, const std::string &name,
                             int ccMajor, int ccMinor,
                             const std::vector<std::string> &options = {});

struct KernelCacheOptions {
  std::string dir;
  bool disabled = false;
  uint64_t maxBytes = 256ull << 20;
  /// From the environment (see the file comment). Throws proofc::Error for a
  /// malformed PROOFC_CACHE_MAX_BYTES.
  static KernelCacheOptions fromEnvironment();
};

struct KernelCacheStats {
  int64_t hits = 0, misses = 0;
  int64_t discarded = 0; ///< corrupt or truncated entries removed
  int64_t evicted = 0;
  double compileSeconds = 0; ///< in the compile callback (misses)
  double loadSeconds = 0;    ///< reading and checking entries (hits)
};

class KernelCache {
public:
  using Compile = std::function<std::string()>;

  explicit KernelCache(KernelCacheOptions options);

  /// The payload for `key`: from disk when a valid entry exists, else from
  /// `compile()` (then stored). A directory that cannot be created or written
  /// (read-only, full) disables storing with a one-line notice on stderr,
  /// given once per process however many caches meet it (compiling still
  /// works); an exception from `compile` propagates.
  std::string get(const KernelKey &key, const Compile &compile);

  /// Whether a valid entry for `key` is on disk (false when disabled); a
  /// corrupt one is removed as get() would. Counts no hit or miss.
  bool contains(const KernelKey &key);

  KernelCacheStats stats() const;
  const KernelCacheOptions &options() const { return options_; }
  /// Path of the entry file for a key hex.
  std::string entryPath(const std::string &keyHex) const;

private:
  bool readEntry(const std::string &path, const std::string &keyHex,
                 std::string &payload);
  void writeEntry(const std::string &path, const std::string &keyHex,
                  const std::string &payload);
  void evict(const std::string &keep);

  KernelCacheOptions options_;
  bool writable_ = true;
  mutable std::mutex mutex_;
  KernelCacheStats stats_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_KERNELCACHE_H
