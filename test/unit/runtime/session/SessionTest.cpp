//===- SessionTest.cpp - The load-once embedding API on the host ----------===//
//
// A Session binds the dataset and the candidates once and evaluates several
// weight sets: every call must equal a fresh RunSession (what `proofc run`
// does) with the same weights, bit for bit, whatever was evaluated before
// (A, B, A); tensors given as views are checked by name, dtype, shape,
// layout and device; a cancelled call leaves the session usable.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "session/Devices.h"
#include "session/SessionAccess.h"

#include "bundle/Bundle.h"
#include "host/HostBackend.h"
#include "outputs/Provenance.h"
#include "outputs/Report.h"
#include "proofc/runtime/Session.h"
#include "support/Checksum.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>

using namespace proofc;
using namespace proofc::test;

namespace {

SessionOptions nationsSession(int64_t queries = 6,
                              const std::string &dataset = "nations") {
  return splitSession(dataset, queries, 20, 3);
}

/// What a fresh `proofc run` of the same candidates gives with `weights`.
RunOutput freshRun(const std::string &weights, int64_t queries = 6,
                   const std::string &dataset = "nations") {
  RunSessionOptions o = sessionOptions(dataset, queries);
  o.weights = weights;
  o.corruptions = 20;
  o.seed = 3;
  HostBackend backend(HostBackendOptions{2});
  RunSession session(v10Program(), backend, "cpu", o);
  return session.evaluate();
}

/// The report's metric sections, which do not depend on when or how the
/// run was made.
nlohmann::json metricSections(const std::string &report) {
  nlohmann::json j = nlohmann::json::parse(report);
  return {{"metrics", j["metrics"]},
          {"rank_metrics", j["rank_metrics"]},
          {"candidates", j["candidates"]}};
}

TensorViews viewsOf(const TensorMap &weights) {
  TensorViews views;
  for (const auto &[name, t] : weights)
    views[name] = TensorView{t.data.data(), t.shape};
  return views;
}

TEST(Session, EachCallEqualsAFreshRunWhateverCameBefore) {
  HostBackend backend(HostBackendOptions{2});
  // kinship: its outcomes depend on the policy (nations' first queries
  // are proved alike by any weights).
  Session session = SessionAccess::make(v10Program(), {&backend}, "cpu",
                                        nationsSession(6, "kinship"));
  const std::string a = weightsFile("kinship");
  const TensorMap b = initWeights(v10Program(), session.dataset(), 11);
  const RunOutput freshA = freshRun(a, 6, "kinship");

  const SessionResult first = session.evaluateFile(a);
  const SessionResult other = session.evaluate(b);
  const SessionResult again = session.evaluate(session.loadWeights(a));
  expectSameOutcomes(first.outcomes, freshA.outcomes);
  expectSameOutcomes(again.outcomes, freshA.outcomes);
  EXPECT_EQ(metricSections(first.reportJson()),
            metricSections(again.reportJson()));
  EXPECT_EQ(metricSections(first.reportJson()),
            metricSections(reportJson(freshA.report).dump()));
  // B really is other weights: other outcomes.
  bool differs = false;
  for (size_t i = 0; i < other.outcomes.size(); ++i)
    differs |= other.outcomes[i].logp != first.outcomes[i].logp;
  EXPECT_TRUE(differs);
  EXPECT_DOUBLE_EQ(first.metrics.both.mrr, freshA.report.metrics.both.mrr);
}

TEST(Session, ViewsEqualTheFileAndRecordWhereTheWeightsCameFrom) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession());
  const WeightsFile file = session.loadWeights(weightsFile("nations"));
  const SessionResult fromFile = session.evaluate(file);
  const SessionResult fromViews = session.evaluate(viewsOf(file.tensors));
  expectSameOutcomes(fromFile.outcomes, fromViews.outcomes);
  const nlohmann::json r = nlohmann::json::parse(fromViews.reportJson());
  EXPECT_TRUE(r["weights"]["file"].is_null());
  EXPECT_EQ(r["weights"]["in_memory"], "host");
  // Tensors in memory: no file to take the SHA-256 of; their XXH3-128.
  EXPECT_TRUE(r["provenance"]["weights_sha256"].is_null());
  const std::string xxh3 = r["provenance"]["weights_xxh3"].get<std::string>();
  EXPECT_EQ(xxh3.rfind("xxh3:", 0), 0u);
  EXPECT_EQ(xxh3.size(), kChecksumTextBytes);
  // The same tensors as a TensorMap: the same digest; one value changed
  // (a last bit): another.
  const nlohmann::json m =
      nlohmann::json::parse(session.evaluate(file.tensors).reportJson());
  EXPECT_EQ(m["provenance"]["weights_xxh3"], xxh3);
  TensorMap changed = file.tensors;
  float &v = changed.begin()->second.data.back();
  v = std::nextafter(v, 1e9f);
  const nlohmann::json c =
      nlohmann::json::parse(session.evaluate(changed).reportJson());
  EXPECT_NE(c["provenance"]["weights_xxh3"], xxh3);
  // A weights file: the SHA-256 of its bytes, what sha256sum prints.
  const nlohmann::json f = nlohmann::json::parse(fromFile.reportJson());
  EXPECT_EQ(f["provenance"]["weights_sha256"], file.sha256);
  EXPECT_FALSE(f["provenance"].contains("weights_xxh3"));
}

TEST(Session, TheReportNamesTheDatasetByItsFingerprint) {
  // Computed in the background from the session's start (SessionState's
  // `fingerprint`): every report and the parts' identity name the same
  // string datasetFingerprint() gives.
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession());
  const std::string expected =
      datasetFingerprint(loadDataset(dataDir("nations")));
  EXPECT_EQ(SessionAccess::datasetFingerprint(session), expected);
  const WeightsFile file = session.loadWeights(weightsFile("nations"));
  for (int call = 0; call < 2; ++call) {
    const nlohmann::json r =
        nlohmann::json::parse(session.evaluate(file).reportJson());
    EXPECT_EQ(r["provenance"]["dataset_fingerprint"], expected);
  }
}

TEST(Session, TensorsDigestIsXxh3OfTheDocumentedBytes) {
  // docs/report-schema.md: per tensor in name order its name, a NUL, rank
  // and sizes as little-endian int64, its float32 data. Rebuilt here by
  // hand for the trained weights and compared with the report's.
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession());
  const WeightsFile file = session.loadWeights(weightsFile("nations"));
  std::string bytes;
  auto putI64 = [&](int64_t x) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(
          static_cast<char>((static_cast<uint64_t>(x) >> (8 * i)) & 0xff));
  };
  for (const auto &[name, t] : file.tensors) {
    bytes += name;
    bytes.push_back('\0');
    putI64(static_cast<int64_t>(t.shape.size()));
    for (int64_t s : t.shape)
      putI64(s);
    bytes.append(reinterpret_cast<const char *>(t.data.data()),
                 t.data.size() * 4);
  }
  const nlohmann::json r =
      nlohmann::json::parse(session.evaluate(file.tensors).reportJson());
  EXPECT_EQ(r["provenance"]["weights_xxh3"], checksumText(bytes));
}

TEST(Session, ExpectedTensorsAreTheSpecTable) {
  HostBackend backend;
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession());
  std::map<std::string, std::vector<int64_t>> got;
  for (const TensorSpec &t : session.expectedTensors()) {
    EXPECT_EQ(t.dtype, "F32");
    got[t.name] = t.shape;
  }
  const int64_t R = session.dataset().numRelations();
  const int64_t E = session.dataset().numEntities();
  EXPECT_EQ(got.size(), 13u);
  EXPECT_EQ(got["pred_emb"], (std::vector<int64_t>{R + 2, 64}));
  EXPECT_EQ(got["const_emb"], (std::vector<int64_t>{E, 64}));
  EXPECT_EQ(got["var_emb"], (std::vector<int64_t>{12, 64}));
  EXPECT_EQ(got["atom.weight"], (std::vector<int64_t>{64, 192}));
  EXPECT_EQ(got["mlp.1.ln.bias"], (std::vector<int64_t>{64}));
}

TEST(Session, BadViewsAreRefusedByName) {
  HostBackend backend;
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession(2));
  const TensorMap good = initWeights(v10Program(), session.dataset(), 1);
  auto errorWith = [&](const std::function<void(TensorViews &)> &change) {
    TensorViews views = viewsOf(good);
    change(views);
    return errorOf([&] { session.evaluate(views); });
  };
  EXPECT_EQ(errorWith([](TensorViews &v) { v.erase("atom.bias"); }),
            "weights: tensor 'atom.bias' [64] is missing");
  EXPECT_EQ(errorWith([](TensorViews &v) { v["extra"] = v["atom.bias"]; }),
            "weights: tensor 'extra' is not used by program 'v10'");
  EXPECT_EQ(errorWith([](TensorViews &v) { v["atom.bias"].dtype = "F64"; }),
            "weights: tensor 'atom.bias' has dtype F64, the policy takes F32 "
            "(float32)");
  EXPECT_EQ(errorWith([](TensorViews &v) { v["atom.bias"].shape = {32, 2}; }),
            "weights: tensor 'atom.bias' has shape [32, 2], the program "
            "needs [64]");
  EXPECT_EQ(errorWith([](TensorViews &v) {
              v["atom.weight"].strides = {1, 64}; // a transposed view
            }),
            "weights: tensor 'atom.weight' is not contiguous (strides [1, 64] "
            "for shape [64, 192]); pass a row-major copy (e.g. .contiguous())");
  EXPECT_EQ(errorWith([](TensorViews &v) {
              v["atom.weight"].memory = MemoryKind::Cuda;
            }),
            "weights: some tensors are on the host and some on a CUDA device; "
            "give them all on one (e.g. all on the session's device)");
  EXPECT_EQ(errorWith([](TensorViews &v) {
              for (auto &[name, view] : v)
                view.memory = MemoryKind::Cuda;
            }),
            "weights: tensor 'atom.bias' is on a CUDA device but the session "
            "runs on cpu; give host tensors (e.g. .cpu()) or open the session "
            "on cuda");
  std::vector<float> nan(64, 0.f);
  nan[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(
      errorWith([&](TensorViews &v) { v["atom.bias"].data = nan.data(); }),
      "weights: tensor 'atom.bias' holds a non-finite value (nan) at "
      "element 5");
  // Row-major strides given explicitly are fine; so is the session after
  // every refusal.
  TensorViews explicitStrides = viewsOf(good);
  explicitStrides["atom.weight"].strides = {192, 1};
  EXPECT_EQ(errorOf([&] { session.evaluate(explicitStrides); }), "(no error)");
}

TEST(Session, ACancelledCallLeavesTheSessionUsable) {
  HostBackend backend(HostBackendOptions{2});
  Session session =
      SessionAccess::make(v10Program(), {&backend}, "cpu", nationsSession(12));
  const WeightsFile weights = session.loadWeights(weightsFile("nations"));
  std::atomic<bool> cancel{false};
  EvaluateControl control;
  control.cancel = &cancel;
  int64_t last = 0, total = 0;
  control.progress = [&](int64_t done, int64_t all) {
    last = done;
    total = all;
    cancel = true; // at the first report
  };
  EXPECT_THROW(session.evaluate(weights, control), Interrupted);
  EXPECT_LT(last, static_cast<int64_t>(session.candidates().candidates.size()));
  cancel = false;
  control.progress = [&](int64_t done, int64_t all) {
    last = done;
    total = all;
  };
  const SessionResult after = session.evaluate(weights, control);
  EXPECT_EQ(last, total);
  EXPECT_EQ(total, static_cast<int64_t>(after.outcomes.size()));
  expectSameOutcomes(after.outcomes,
                     freshRun(weightsFile("nations"), 12).outcomes);
}

TEST(Session, OpensTheDeviceItIsAskedFor) {
  SessionOptions o = nationsSession(2);
  o.device = "gpu";
  EXPECT_EQ(errorOf([&] { openDevice(Bundle{}, "x.pcb", o); }),
            "device gpu: expected cpu, cuda, cuda:N or auto");
  o.device = "cpu";
  o.threads = 3;
  Bundle bundle;
  bundle.program = v10Program();
  SelectedDevice cpu = openDevice(bundle, "x.pcb", o);
  EXPECT_EQ(cpu.backend->name(), "host");
  EXPECT_EQ(cpu.name, "cpu (3 threads)");
}

} // namespace
