//===- SafetensorsTest.cpp - Strict float32 safetensors I/O ---------------===//
#include "TestUtil.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/Safetensors.h"
#include "support/FileIO.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

using namespace proofc;
using proofc::test::TempDir;

namespace {

/// A safetensors image: u64 header size, header text, data bytes.
std::string image(const std::string &header, const std::string &data) {
  std::string bytes(8, '\0');
  uint64_t n = header.size();
  std::memcpy(bytes.data(), &n, 8);
  return bytes + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

std::string parseError(std::string_view bytes) {
  try {
    parseSafetensors(bytes, "w.safetensors");
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(Tensor, Numel) {
  EXPECT_EQ((Tensor{{2, 3, 4}, {}}).numel(), 24);
  EXPECT_EQ((Tensor{{}, {}}).numel(), 1); // a scalar
  EXPECT_EQ((Tensor{{5, 0}, {}}).numel(), 0);
}

TEST(Safetensors, ParsesHandWrittenFile) {
  std::string data = floats({1, 2, 3, 4, 5, 6}) + floats({-1.5f});
  std::string header =
      R"({"__metadata__": {"format": "pt"},
          "b": {"dtype": "F32", "shape": [], "data_offsets": [24, 28]},
          "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
          "empty": {"dtype": "F32", "shape": [0, 4], "data_offsets": [24, 24]}})";
  TensorMap t = parseSafetensors(image(header, data), "x");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t["a"].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t["a"].data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t["b"].shape, std::vector<int64_t>{});
  EXPECT_EQ(t["b"].data, std::vector<float>{-1.5f});
  EXPECT_EQ(t["empty"].shape, (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(t["empty"].data.empty());
}

TEST(Safetensors, GapsAndTrailingBytesAreTolerated) {
  std::string data = floats({7}) + std::string(4, 'x') + floats({8}) + "tail";
  std::string header =
      R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
          "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})";
  TensorMap t = parseSafetensors(image(header, data), "x");
  EXPECT_EQ(t["a"].data, std::vector<float>{7});
  EXPECT_EQ(t["b"].data, std::vector<float>{8});
}

TEST(Safetensors, RoundTrip) {
  TempDir dir;
  TensorMap in;
  in["z.weight"] = {{2, 3}, {1, -2, 3.25f, 4e-30f, 5e30f, -0.0f}};
  in["a.bias"] = {{3}, {0.5f, 0.25f, 0.125f}};
  in["scalar"] = {{}, {42}};
  in["none"] = {{0}, {}};
  std::string path = dir.file("w.safetensors");
  writeSafetensors(path, in);
  TensorMap out = readSafetensors(path);
  ASSERT_EQ(out.size(), in.size());
  for (const auto &[name, tensor] : in) {
    ASSERT_TRUE(out.count(name)) << name;
    EXPECT_EQ(out[name].shape, tensor.shape) << name;
    ASSERT_EQ(out[name].data.size(), tensor.data.size()) << name;
    // memcmp on an empty tensor's null data pointer is UB (UBSan): skip it.
    if (!tensor.data.empty())
      EXPECT_EQ(std::memcmp(out[name].data.data(), tensor.data.data(),
                            tensor.data.size() * 4),
                0)
          << name;
  }
  // Layout: 8-byte aligned header padded with spaces, data in name order.
  std::string bytes = readFile(path);
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + (3 + 6 + 1) * 4);
  std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));
  EXPECT_LT(header.find("\"a.bias\""), header.find("\"none\""));
  EXPECT_LT(header.find("\"none\""), header.find("\"scalar\""));
  EXPECT_LT(header.find("\"scalar\""), header.find("\"z.weight\""));
  EXPECT_NE(header.find(R"("a.bias":{"data_offsets":[0,12])"),
            std::string::npos)
      << header;
  // Only the final file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(Safetensors, MetadataIsKeptAsStrings) {
  std::string header =
      R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
          "__metadata__": {"format": "pt", "proofc.program": "v10",
                           "note": "", "z\u0000": "a\nb"}})";
  SafetensorsMetadata metadata{{"stale", "entry"}};
  TensorMap t = parseSafetensors(image(header, floats({1})), "x", &metadata);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(metadata, (SafetensorsMetadata{{"format", "pt"},
                                           {"proofc.program", "v10"},
                                           {"note", ""},
                                           {std::string("z\0", 2), "a\nb"}}));
  // No "__metadata__": an empty map, whatever the caller's held before.
  parseSafetensors(
      image(R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
            floats({1})),
      "x", &metadata);
  EXPECT_TRUE(metadata.empty());
}

TEST(Safetensors, MetadataRoundTripsAndIsOmittedWhenEmpty) {
  TempDir dir;
  const TensorMap tensors{{"t", {{2}, {1, 2}}}};
  const SafetensorsMetadata written{
      {"format", "pt"}, {"proofc.program", "v\"10\""}, {"\u00e9t\u00e9", "ok"}};
  std::string path = dir.file("m.safetensors");
  writeSafetensors(path, tensors, written);
  SafetensorsMetadata read;
  TensorMap back = readSafetensors(path, &read);
  EXPECT_EQ(read, written);
  EXPECT_EQ(back.at("t").data, (std::vector<float>{1, 2}));
  // The data offsets do not move: metadata is only in the header.
  EXPECT_NE(readFile(path).find(R"("__metadata__":{)"), std::string::npos);

  std::string plain = dir.file("p.safetensors");
  writeSafetensors(plain, tensors);
  EXPECT_EQ(readFile(plain).find("__metadata__"), std::string::npos);
  readSafetensors(plain, &read);
  EXPECT_TRUE(read.empty());
}

TEST(Safetensors, WriteRefusesInvalidUtf8) {
  // The reader would refuse such a header: the writer does not produce it.
  TempDir dir;
  std::string path = dir.file("w.safetensors");
  for (const auto &[tensors, metadata] :
       std::vector<std::pair<TensorMap, SafetensorsMetadata>>{
           {{{"\xff", {{1}, {1}}}}, {}},
           {{{"t", {{1}, {1}}}}, {{"proofc.program", "\xc3("}}}}) {
    try {
      writeSafetensors(path, tensors, metadata);
      ADD_FAILURE() << "no error";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()),
                path + ": a tensor name or a metadata string is not valid "
                       "UTF-8");
    }
    EXPECT_FALSE(std::filesystem::exists(path));
  }
}

TEST(Safetensors, WriteRejectsInconsistentTensors) {
  TempDir dir;
  std::string path = dir.file("w.safetensors");
  TensorMap bad;
  bad["t"] = {{2, 2}, {1, 2, 3}};
  try {
    writeSafetensors(path, bad);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": tensor 't' has 3 values, but its shape needs 4");
  }
  bad["t"] = {{-1}, {}};
  EXPECT_THROW(writeSafetensors(path, bad), Error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Safetensors, WriteToMissingDirectoryNamesPath) {
  TempDir dir;
  std::string path = dir.file("no/such/w.safetensors");
  try {
    writeSafetensors(path, {{"t", {{1}, {1}}}});
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot write", 0), 0u)
        << e.what();
  }
}

TEST(Safetensors, ReadMissingFileNamesPath) {
  try {
    readSafetensors("/nonexistent/w.safetensors");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/w.safetensors: cannot read: No such file or "
              "directory");
  }
}

struct BadFileCase {
  const char *name;
  std::string bytes;
  const char *message; // after "w.safetensors: "
};

class BadSafetensors : public ::testing::TestWithParam<BadFileCase> {};

TEST_P(BadSafetensors, ErrorNamesFileAndTensor) {
  EXPECT_EQ(parseError(GetParam().bytes),
            std::string("w.safetensors: ") + GetParam().message);
}

namespace {
std::string one(const std::string &entry,
                const std::string &data = floats({1, 2})) {
  return image("{\"t\": " + entry + "}", data);
}
} // namespace

INSTANTIATE_TEST_SUITE_P(
    Safetensors, BadSafetensors,
    ::testing::Values(
        BadFileCase{"Short", std::string("\x10\0\0", 3),
                    "file is 3 bytes, shorter than the 8-byte header size"},
        BadFileCase{"HeaderPastEnd", image("{}", "").substr(0, 9),
                    "header size 2 runs past the end of the file (9 bytes)"},
        BadFileCase{"HugeHeader", std::string(8, '\xff') + "{}",
                    "header size 18446744073709551615 runs past the end of "
                    "the file (10 bytes)"},
        BadFileCase{"NotObject", image("[1, 2]", ""),
                    "header is not a JSON object"},
        BadFileCase{
            "DuplicateTensor",
            image(
                R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                              "t": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                floats({1, 2})),
            "tensor 't' is listed twice in the header"},
        BadFileCase{"MetadataNotObject", image(R"({"__metadata__": 3})", ""),
                    "'__metadata__' is not a JSON object"},
        BadFileCase{"EntryNotObject", one("[1]"),
                    "tensor 't': entry is not a JSON object"},
        BadFileCase{
            "F16",
            one(R"({"dtype": "F16", "shape": [2], "data_offsets": [0, 4]})"),
            "tensor 't' has dtype F16, only F32 is supported"},
        BadFileCase{"MissingDtype",
                    one(R"({"shape": [2], "data_offsets": [0, 8]})"),
                    "tensor 't': missing or non-string 'dtype'"},
        BadFileCase{
            "UnexpectedField",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1})"),
            "tensor 't': unexpected field 'x'"},
        BadFileCase{"MissingShape",
                    one(R"({"dtype": "F32", "data_offsets": [0, 8]})"),
                    "tensor 't': missing or non-array 'shape'"},
        BadFileCase{
            "NegativeDim",
            one(R"({"dtype": "F32", "shape": [2, -1], "data_offsets": [0, 8]})"),
            "tensor 't': negative dimension -1"},
        BadFileCase{
            "FractionalDim",
            one(R"({"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]})"),
            "tensor 't': dimension must be an integer, found 2.5"},
        BadFileCase{
            "HugeShape",
            one(R"({"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]})"),
            "tensor 't': shape is too large"},
        BadFileCase{
            "OffsetsNotPair",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [0]})"),
            "tensor 't': 'data_offsets' must be an array [begin, end]"},
        BadFileCase{
            "NegativeOffset",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]})"),
            "tensor 't': negative data offset -8"},
        BadFileCase{
            "BeginAfterEnd",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [8, 0]})"),
            "tensor 't': data_offsets [8, 0] has begin > end"},
        BadFileCase{
            "PastEnd",
            one(R"({"dtype": "F32", "shape": [3], "data_offsets": [0, 12]})"),
            "tensor 't': data_offsets [0, 12] run past the end of the "
            "data (8 bytes)"},
        BadFileCase{
            "SizeMismatch",
            one(R"({"dtype": "F32", "shape": [1], "data_offsets": [0, 8]})"),
            "tensor 't': data is 8 bytes, but shape needs 1 x 4 bytes"},
        BadFileCase{
            "Overlap",
            image(
                R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                              "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                floats({1, 2, 3})),
            "tensors 'a' and 'b' overlap (data_offsets [0, 8] and [4, "
            "12])"},
        // NaN or ±Inf anywhere: refused with the first bad value's index
        // (row-major); NaN weights used to give the all-ties result quietly.
        BadFileCase{
            "NanValue",
            one(R"({"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]})",
                floats({1, 2, 3, 4, std::nanf(""), INFINITY})),
            "tensor 't': non-finite value nan at index [1, 1]"},
        BadFileCase{
            "InfValue",
            one(R"({"dtype": "F32", "shape": [2, 1, 2], "data_offsets": [0, 16]})",
                floats({1, 2, INFINITY, std::nanf("")})),
            "tensor 't': non-finite value inf at index [1, 0, 0]"},
        BadFileCase{
            "NegativeInfValue",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})",
                floats({-INFINITY, 0})),
            "tensor 't': non-finite value -inf at index [0]"},
        BadFileCase{
            "NegativeNanScalar",
            one(R"({"dtype": "F32", "shape": [], "data_offsets": [0, 4]})",
                floats({-std::nanf("")})),
            "tensor 't': non-finite value nan at index []"},
        // Every object of the header, not only the top level, has unique keys.
        BadFileCase{
            "DuplicateField",
            one(R"({"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "dtype": "F16"})"),
            "tensor 't': duplicate key 'dtype'"},
        BadFileCase{"DuplicateMetadataKey",
                    image(R"({"__metadata__": {"a": "1", "a": "2"}})", ""),
                    "'__metadata__': duplicate key 'a'"},
        // The format's metadata maps strings to strings, nothing else.
        BadFileCase{
            "MetadataNumberValue",
            image(R"({"__metadata__": {"format": "pt", "epochs": 3}})", ""),
            "'__metadata__': value of 'epochs' is not a string "
            "(found 3)"},
        BadFileCase{"MetadataObjectValue",
                    image(R"({"__metadata__": {"a\u001b": {"b": null}}})", ""),
                    "'__metadata__': value of 'a\\x1b' is not a string "
                    "(found {\"b\":null})"},
        BadFileCase{"MetadataNullValue",
                    image(R"({"__metadata__": {"a": null}})", ""),
                    "'__metadata__': value of 'a' is not a string "
                    "(found null)"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Safetensors, InvalidJsonIsAnError) {
  std::string message = parseError(image("{\"t\": ", ""));
  EXPECT_EQ(message.rfind("w.safetensors: header is not valid JSON: ", 0), 0u)
      << message;
}

namespace {
/// A header of `n` empty tensors "t0", "t1", ... (the shape of the reported
/// 61 MB, 1,000,000-entry header).
std::string emptyTensors(size_t n) {
  std::string header = "{";
  header.reserve(n * 62 + 2);
  for (size_t i = 0; i < n; ++i)
    header += (i ? ",\"t" : "\"t") + std::to_string(i) +
              R"(": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]})";
  return image(header + "}", "");
}

double secondsOf(const std::function<void()> &f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

// The header parse is linear in the entries: nlohmann's parser-callback mode
// (used to spot duplicate tensors) rescanned the whole top-level object at
// the end of every entry, so 40,000 entries took 13.5 s (60,000 would take
// about 30). The bound is a guard far above the linear time (~0.5 s).
TEST(SafetensorsHeader, ManyEntriesParseInLinearTime) {
  std::string bytes = emptyTensors(60'000);
  TensorMap tensors;
  double seconds =
      secondsOf([&] { tensors = parseSafetensors(bytes, "w.safetensors"); });
  EXPECT_EQ(tensors.size(), 60'000u);
  EXPECT_LT(seconds, 10.0); // a guard: the old parse took about 30 s
}

// A 1,000,000-entry header is refused at its 100,001st entry: the parse
// stops there, it does not build the whole DOM first (it took over two
// minutes).
TEST(SafetensorsHeader, TooManyEntriesStopEarly) {
  std::string bytes = emptyTensors(1'000'000);
  ASSERT_GT(bytes.size(), 60'000'000u);
  std::string message;
  double seconds = secondsOf([&] { message = parseError(bytes); });
  EXPECT_EQ(message, "w.safetensors: the header lists more than 100000 "
                     "tensors (the limit)");
  EXPECT_LT(seconds, 10.0); // a guard: the old parse took over 2 minutes
  // At the limit, a file is still read.
  EXPECT_EQ(parseSafetensors(emptyTensors(kMaxSafetensorsTensors), "w").size(),
            kMaxSafetensorsTensors);
}

// The safetensors format's own header limit, checked before parsing.
TEST(SafetensorsHeader, HeaderPastTheSizeLimitIsRefusedBeforeParsing) {
  std::string bytes(8 + kMaxSafetensorsHeaderBytes + 1, ' ');
  uint64_t n = kMaxSafetensorsHeaderBytes + 1;
  std::memcpy(bytes.data(), &n, 8);
  EXPECT_EQ(parseError(bytes), "w.safetensors: header size 100000001 is "
                               "larger than 100000000 bytes (the limit)");
}
