//===- KernelCache.cpp - On-disk cache of compiled kernel modules ---------===//
//
// See KernelCache.h for the key, entry format and policies. Readers trust
// nothing: an entry is used only when its magic, format version, key,
// length and payload hash all check out.
//
//===----------------------------------------------------------------------===//
#include "cuda/KernelCache.h"

#include "cuda/Nvrtc.h"

#include "proofc/runtime/Notices.h"
#include "support/Fail.h"
#include "support/Timing.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace proofc {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'P', 'R', 'F', 'C', 'K', 'R', 'N', 'L'};
constexpr size_t kKeyHexLen = 32;
constexpr const char *kEntrySuffix = ".cubin";

#pragma pack(push, 1)
struct EntryHeader {
  char magic[8];
  uint32_t formatVersion;
  uint32_t reserved;
  uint64_t payloadLength;
  uint64_t payloadHash;
  char key[kKeyHexLen];
};
#pragma pack(pop)
static_assert(sizeof(EntryHeader) == 64, "entry header is 64 bytes");

void appendField(std::string &record, std::string_view bytes) {
  const uint64_t n = bytes.size();
  for (int i = 0; i < 8; ++i)
    record.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  record.append(bytes.data(), bytes.size());
}

bool readWhole(const std::string &path, std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (ok && done < out.size()) {
      ssize_t n = ::read(fd, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        ok = false;
      else
        done += static_cast<size_t>(n);
    }
  }
  ::close(fd);
  return ok;
}

bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// The cache's one complaint per process: a cache that cannot store entries
/// (read-only or full directory, one that cannot be created) is not an error,
/// kernels are compiled in memory instead; saying so once is enough, however
/// many caches (one per backend run, e.g. per pool chunk) hit the problem.
void noticeOnce(const std::string &message) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    notice(message);
}

bool isEntryName(const std::string &name) {
  const size_t suffix = std::strlen(kEntrySuffix);
  return name.size() == kKeyHexLen + suffix &&
         name.compare(kKeyHexLen, suffix, kEntrySuffix) == 0;
}

} // namespace

std::string kernelKeyHex(const KernelKey &key) {
  std::string record;
  appendField(record, "proofc-kernel-cache");
  appendField(record, std::to_string(kKernelCacheFormatVersion));
  appendField(record, key.code);
  std::vector<std::string> options = key.options;
  std::sort(options.begin(), options.end());
  appendField(record, std::to_string(options.size()));
  for (const std::string &o : options)
    appendField(record, o);
  appendField(record, key.arch);
  appendField(record, key.compilerVersion);
  appendField(record, std::to_string(key.driverVersion));
  appendField(record, key.proofcVersion);
  const XXH128_hash_t h = XXH3_128bits(record.data(), record.size());
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

KernelCacheOptions KernelCacheOptions::fromEnvironment() {
  KernelCacheOptions options;
  auto env = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string dir = env("PROOFC_CACHE_DIR"); !dir.empty())
    options.dir = dir;
  else if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    options.dir = xdg + "/proofc";
  else if (std::string home = env("HOME"); !home.empty())
    options.dir = home + "/.cache/proofc";
  else
    options.disabled = true; // nowhere to put it
  if (std::string v = env("PROOFC_CACHE_DISABLE"); !v.empty() && v != "0")
    options.disabled = true;
  if (std::string v = env("PROOFC_CACHE_MAX_BYTES"); !v.empty()) {
    size_t used = 0;
    unsigned long long bytes = 0;
    try {
      bytes = std::stoull(v, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used != v.size() || v[0] == '-')
      fail("PROOFC_CACHE_MAX_BYTES: '{}' is not a byte count", v);
    options.maxBytes = bytes;
  }
  return options;
}

KernelCache::KernelCache(KernelCacheOptions options)
    : options_(std::move(options)) {
  if (options_.disabled)
    return;
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  if (ec || !fs::is_directory(options_.dir)) {
    noticeOnce(fmt::format("kernel cache disabled: cannot create {}: {}; "
                           "compiling in memory",
                           options_.dir,
                           ec ? ec.message() : "not a directory"));
    options_.disabled = true;
  }
}

std::string KernelCache::entryPath(const std::string &keyHex) const {
  return options_.dir + "/" + keyHex + kEntrySuffix;
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool KernelCache::readEntry(const std::string &path, const std::string &keyHex,
                            std::string &payload) {
  std::string bytes;
  if (!readWhole(path, bytes))
    return false; // absent (or unreadable): miss
  EntryHeader h;
  bool valid = bytes.size() >= sizeof h;
  if (valid) {
    std::memcpy(&h, bytes.data(), sizeof h);
    valid =
        std::memcmp(h.magic, kMagic, sizeof kMagic) == 0 &&
        h.formatVersion == kKernelCacheFormatVersion &&
        std::string(h.key, kKeyHexLen) == keyHex &&
        h.payloadLength == bytes.size() - sizeof h &&
        XXH3_64bits(bytes.data() + sizeof h, h.payloadLength) == h.payloadHash;
  }
  if (!valid) {
    ::unlink(path.c_str()); // rebuilt by the caller
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.discarded;
    return false;
  }
  payload.assign(bytes, sizeof h, std::string::npos);
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); // LRU: touch on hit
  return true;
}

void KernelCache::writeEntry(const std::string &path, const std::string &keyHex,
                             const std::string &payload) {
  EntryHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.formatVersion = kKernelCacheFormatVersion;
  h.payloadLength = payload.size();
  h.payloadHash = XXH3_64bits(payload.data(), payload.size());
  std::memcpy(h.key, keyHex.data(), kKeyHexLen);

  std::string tmp = options_.dir + "/.tmp-" + keyHex + "-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  bool ok = fd >= 0;
  int err = ok ? 0 : errno;
  if (ok) {
    ok = writeAll(fd, reinterpret_cast<const char *>(&h), sizeof h) &&
         writeAll(fd, payload.data(), payload.size());
    if (!ok)
      err = errno;
    if (::close(fd) != 0 && ok)
      ok = false, err = errno;
    if (ok && ::rename(tmp.c_str(), path.c_str()) != 0)
      ok = false, err = errno;
    if (!ok)
      ::unlink(tmp.c_str());
  }
  if (!ok) {
    noticeOnce(fmt::format("kernel cache: cannot write {} ({}); compiling "
                           "in memory",
                           path,
                           err == 0 ? "short write" : std::strerror(err)));
    std::lock_guard<std::mutex> lock(mutex_);
    writable_ = false;
  }
}

void KernelCache::evict(const std::string &keep) {
  struct Entry {
    fs::file_time_type mtime;
    uint64_t size;
    std::string path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  const auto staleTemp =
      fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const fs::directory_entry &e :
       fs::directory_iterator(options_.dir, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code ec2;
    const fs::file_time_type mtime = e.last_write_time(ec2);
    if (ec2)
      continue;
    if (name.rfind(".tmp-", 0) == 0) { // a crashed writer's leftover
      if (mtime < staleTemp)
        fs::remove(e.path(), ec2);
      continue;
    }
    if (!isEntryName(name))
      continue;
    const uint64_t size = e.file_size(ec2);
    if (ec2)
      continue;
    total += size;
    entries.push_back({mtime, size, e.path().string()});
  }
  if (total <= options_.maxBytes)
    return;
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.mtime < b.mtime; });
  int64_t evicted = 0;
  for (const Entry &e : entries) {
    if (total <= options_.maxBytes)
      break;
    if (e.path == keep)
      continue;
    std::error_code ec2;
    if (fs::remove(e.path, ec2)) {
      total -= e.size;
      ++evicted;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.evicted += evicted;
}

std::string KernelCache::get(const KernelKey &key, const Compile &compile) {
  const std::string keyHex = kernelKeyHex(key);
  const std::string path = entryPath(keyHex);
  if (!options_.disabled) {
    const auto start = Clock::now();
    std::string payload;
    if (readEntry(path, keyHex, payload)) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.hits;
      stats_.loadSeconds += secondsSince(start);
      return payload;
    }
  }
  const auto start = Clock::now();
  std::string payload = compile();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.misses;
    stats_.compileSeconds += secondsSince(start);
  }
  bool writable;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    writable = writable_;
  }
  if (!options_.disabled && writable) {
    writeEntry(path, keyHex, payload);
    evict(path);
  }
  return payload;
}

bool KernelCache::contains(const KernelKey &key) {
  if (options_.disabled)
    return false;
  const std::string keyHex = kernelKeyHex(key);
  std::string payload;
  return readEntry(entryPath(keyHex), keyHex, payload);
}

KernelKey nvrtcKernelKey(const std::string &source,
                         const std::vector<std::string> &options, int ccMajor,
                         int ccMinor, int driverVersion) {
  KernelKey key;
  key.code = source;
  key.options = options;
  for (const std::string &o : Nvrtc::implicitOptions(ccMajor, ccMinor))
    key.options.push_back(o);
  key.arch = Nvrtc::arch(ccMajor, ccMinor);
  key.compilerVersion = "nvrtc " + Nvrtc::get().version();
  key.driverVersion = driverVersion;
  key.proofcVersion = PROOFC_VERSION;
  return key;
}

std::string cachedNvrtcCubin(KernelCache &cache, int driverVersion,
                             const std::string &source, const std::string &name,
                             int ccMajor, int ccMinor,
                             const std::vector<std::string> &options) {
  return cache.get(
      nvrtcKernelKey(source, options, ccMajor, ccMinor, driverVersion), [&] {
        return Nvrtc::get().compileToCubin(source, name, options, ccMajor,
                                           ccMinor);
      });
}

} // namespace proofc
