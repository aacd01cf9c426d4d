//===- KernelCacheTest.cpp - The on-disk kernel cache, without a GPU ------===//
#include "cuda/KernelCache.h"
#include "TestUtil.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace proofc::test {
namespace {
namespace fs = std::filesystem;

KernelKey sampleKey(const std::string &code = "__global__ void k() {}") {
  return {code,   {"-DPROOFC_A=6", "-DPROOFC_S=120"}, "sm_90", "13.0", 13000,
          "0.1.0"};
}

KernelCacheOptions inDir(const std::string &dir, uint64_t maxBytes = 1 << 20) {
  KernelCacheOptions o;
  o.dir = dir;
  o.maxBytes = maxBytes;
  return o;
}

/// A compile callback that counts its calls.
struct CountingCompiler {
  std::atomic<int> calls{0};
  std::string payload;
  explicit CountingCompiler(std::string p) : payload(std::move(p)) {}
  KernelCache::Compile fn() {
    return [this] {
      ++calls;
      return payload;
    };
  }
};

TEST(KernelCache, KeyCoversEveryFieldAndIgnoresOptionOrder) {
  const KernelKey base = sampleKey();
  const std::string h = kernelKeyHex(base);
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
  KernelKey k = base;
  std::swap(k.options[0], k.options[1]);
  EXPECT_EQ(kernelKeyHex(k), h);
  std::vector<KernelKey> variants(7, base);
  variants[0].code += " ";
  variants[1].options.push_back("-lineinfo");
  variants[2].arch = "sm_80";
  variants[3].compilerVersion = "13.1";
  variants[4].driverVersion = 13010;
  variants[5].proofcVersion = "0.1.1";
  variants[6].options = {"-DPROOFC_A=6-DPROOFC_S=120"}; // length prefixes
  for (const KernelKey &v : variants)
    EXPECT_NE(kernelKeyHex(v), h);
}

TEST(KernelCache, MissCompilesAndStoresThenHitReadsBack) {
  TempDir dir;
  CountingCompiler compiler(std::string("cubin\0bytes", 11)); // binary-safe
  {
    KernelCache cache(inDir(dir.path()));
    EXPECT_EQ(cache.get(sampleKey(), compiler.fn()), compiler.payload);
    EXPECT_EQ(cache.stats().misses, 1);
    EXPECT_EQ(cache.stats().hits, 0);
    EXPECT_EQ(cache.get(sampleKey(), compiler.fn()), compiler.payload);
    EXPECT_EQ(cache.stats().hits, 1);
  }
  KernelCache again(inDir(dir.path())); // a later process
  EXPECT_EQ(again.get(sampleKey(), compiler.fn()), compiler.payload);
  EXPECT_EQ(again.stats().hits, 1);
  EXPECT_EQ(again.stats().misses, 0);
  EXPECT_EQ(compiler.calls, 1);
  EXPECT_EQ(listDir(dir.path()),
            std::vector<std::string>{kernelKeyHex(sampleKey()) + ".cubin"});
  // Another key is another entry.
  EXPECT_EQ(again.get(sampleKey("other"), compiler.fn()), compiler.payload);
  EXPECT_EQ(compiler.calls, 2);
}

/// Damages the stored entry with `damage`, then expects a rebuild.
void expectRebuildAfter(
    const std::function<void(const std::string &)> &damage) {
  TempDir dir;
  CountingCompiler compiler(std::string(1000, 'x'));
  KernelCache cache(inDir(dir.path()));
  cache.get(sampleKey(), compiler.fn());
  const std::string path = cache.entryPath(kernelKeyHex(sampleKey()));
  damage(path);
  KernelCache reader(inDir(dir.path()));
  EXPECT_EQ(reader.get(sampleKey(), compiler.fn()), compiler.payload);
  EXPECT_EQ(compiler.calls, 2);
  EXPECT_EQ(reader.stats().discarded, 1);
  EXPECT_EQ(reader.stats().misses, 1);
  // The rebuilt entry is valid again.
  KernelCache third(inDir(dir.path()));
  EXPECT_EQ(third.get(sampleKey(), compiler.fn()), compiler.payload);
  EXPECT_EQ(third.stats().hits, 1);
  EXPECT_EQ(compiler.calls, 2);
}

TEST(KernelCache, CorruptedPayloadIsDiscardedAndRebuilt) {
  expectRebuildAfter([](const std::string &path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500);
    f.put('y');
  });
}

TEST(KernelCache, TruncatedEntryIsDiscardedAndRebuilt) {
  expectRebuildAfter(
      [](const std::string &path) { fs::resize_file(path, 700); });
  expectRebuildAfter(
      [](const std::string &path) { fs::resize_file(path, 10); }); // header
}

TEST(KernelCache, EntryOfAnotherKeyOrFormatIsDiscarded) {
  expectRebuildAfter([](const std::string &path) { // header's key differs
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(32);
    f.put('Z');
  });
  expectRebuildAfter([](const std::string &path) { // format version
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.put(99);
  });
}

TEST(KernelCache, EvictsLeastRecentlyUsedBeyondTheCap) {
  TempDir dir;
  // Entries are 64 header bytes + 1000; the cap holds three.
  KernelCache cache(inDir(dir.path(), 3 * 1064 + 10));
  CountingCompiler compiler(std::string(1000, 'p'));
  const auto now = fs::file_time_type::clock::now();
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    cache.get(sampleKey("k" + std::to_string(i)), compiler.fn());
    paths.push_back(
        cache.entryPath(kernelKeyHex(sampleKey("k" + std::to_string(i)))));
    fs::last_write_time(paths.back(), now - std::chrono::minutes(10 - i));
  }
  // A hit makes k0 the most recently used.
  cache.get(sampleKey("k0"), compiler.fn());
  EXPECT_EQ(cache.stats().hits, 1);
  cache.get(sampleKey("k3"), compiler.fn()); // over the cap: evict k1
  EXPECT_EQ(cache.stats().evicted, 1);
  EXPECT_TRUE(fs::exists(paths[0]));
  EXPECT_FALSE(fs::exists(paths[1]));
  EXPECT_TRUE(fs::exists(paths[2]));
  EXPECT_TRUE(fs::exists(cache.entryPath(kernelKeyHex(sampleKey("k3")))));
  // An entry larger than the cap is still returned, and kept until the next
  // write needs the room.
  KernelCache tiny(inDir(dir.path(), 100));
  CountingCompiler big(std::string(5000, 'b'));
  EXPECT_EQ(tiny.get(sampleKey("big"), big.fn()), big.payload);
  EXPECT_EQ(
      listDir(dir.path()),
      std::vector<std::string>{kernelKeyHex(sampleKey("big")) + ".cubin"});
}

TEST(KernelCache, TwoConcurrentWritersOfOneKeyLeaveOneValidEntry) {
  TempDir dir;
  std::atomic<int> calls{0};
  const std::string payload(200000, 'c');
  auto slowCompile = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return payload;
  };
  std::string results[2];
  std::thread writers[2];
  for (int i = 0; i < 2; ++i)
    writers[i] = std::thread([&, i] {
      KernelCache cache(inDir(dir.path())); // as two processes would
      results[i] = cache.get(sampleKey(), slowCompile);
    });
  for (std::thread &t : writers)
    t.join();
  EXPECT_EQ(calls, 2); // both missed: neither saw a torn entry
  EXPECT_EQ(results[0], payload);
  EXPECT_EQ(results[1], payload);
  EXPECT_EQ(listDir(dir.path()),
            std::vector<std::string>{kernelKeyHex(sampleKey()) + ".cubin"});
  KernelCache reader(inDir(dir.path()));
  EXPECT_EQ(reader.get(sampleKey(), slowCompile), payload);
  EXPECT_EQ(reader.stats().hits, 1);
  EXPECT_EQ(reader.stats().discarded, 0);
}

TEST(KernelCache, ContainsOnlyValidEntriesAndCountsNothing) {
  TempDir dir;
  CountingCompiler compiler(std::string(1000, 'x'));
  KernelCache cache(inDir(dir.path()));
  EXPECT_FALSE(cache.contains(sampleKey()));
  cache.get(sampleKey(), compiler.fn());
  EXPECT_TRUE(cache.contains(sampleKey()));
  EXPECT_FALSE(cache.contains(sampleKey("other")));
  EXPECT_EQ(cache.stats().hits, 0);
  EXPECT_EQ(cache.stats().misses, 1);
  // A damaged entry is not there, and goes as get() would remove it.
  fs::resize_file(cache.entryPath(kernelKeyHex(sampleKey())), 700);
  EXPECT_FALSE(cache.contains(sampleKey()));
  EXPECT_EQ(cache.stats().discarded, 1);
  EXPECT_TRUE(listDir(dir.path()).empty());
  // Disabled, nothing is.
  KernelCacheOptions off = inDir(dir.path());
  off.disabled = true;
  KernelCache disabled(off);
  cache.get(sampleKey(), compiler.fn());
  EXPECT_FALSE(disabled.contains(sampleKey()));
}

TEST(KernelCache, DisabledCompilesInMemoryOnly) {
  TempDir dir;
  KernelCacheOptions o = inDir(dir.path());
  o.disabled = true;
  KernelCache cache(o);
  CountingCompiler compiler("x");
  cache.get(sampleKey(), compiler.fn());
  cache.get(sampleKey(), compiler.fn());
  EXPECT_EQ(compiler.calls, 2);
  EXPECT_EQ(cache.stats().misses, 2);
  EXPECT_TRUE(listDir(dir.path()).empty());
}

TEST(KernelCache, UncreatableDirectoryFallsBackToMemory) {
  TempDir dir;
  const std::string file = dir.write("a-file", "not a directory");
  KernelCache cache(inDir(file + "/cache"));
  EXPECT_TRUE(cache.options().disabled);
  CountingCompiler compiler("x");
  EXPECT_EQ(cache.get(sampleKey(), compiler.fn()), "x");
}

TEST(KernelCache, OptionsFromTheEnvironment) {
  ScopedEnv home("HOME", "/home/u");
  {
    ScopedEnv a("PROOFC_CACHE_DIR", nullptr), b("XDG_CACHE_HOME", nullptr),
        c("PROOFC_CACHE_DISABLE", nullptr),
        d("PROOFC_CACHE_MAX_BYTES", nullptr);
    KernelCacheOptions o = KernelCacheOptions::fromEnvironment();
    EXPECT_EQ(o.dir, "/home/u/.cache/proofc");
    EXPECT_FALSE(o.disabled);
    EXPECT_EQ(o.maxBytes, 256ull << 20);
  }
  {
    ScopedEnv a("PROOFC_CACHE_DIR", nullptr), b("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(KernelCacheOptions::fromEnvironment().dir, "/xdg/proofc");
  }
  {
    ScopedEnv a("PROOFC_CACHE_DIR", "/explicit"), b("XDG_CACHE_HOME", "/xdg"),
        c("PROOFC_CACHE_DISABLE", "1"), d("PROOFC_CACHE_MAX_BYTES", "4096");
    KernelCacheOptions o = KernelCacheOptions::fromEnvironment();
    EXPECT_EQ(o.dir, "/explicit");
    EXPECT_TRUE(o.disabled);
    EXPECT_EQ(o.maxBytes, 4096u);
  }
  {
    ScopedEnv d("PROOFC_CACHE_MAX_BYTES", "12MB");
    try {
      KernelCacheOptions::fromEnvironment();
      FAIL() << "no error";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("PROOFC_CACHE_MAX_BYTES: '12MB'"),
                std::string::npos);
    }
  }
}

} // namespace
} // namespace proofc::test
