//===- main.cpp - Two weight sets through one proofc::Session -------------===//
//
// The smallest useful embedding of the runtime, built against an installed
// proofc (find_package(proofc), the public headers only): bind a compiled
// bundle, a dataset and the test split's first queries once, then evaluate
// two weight sets over the same candidates -- a safetensors file and random
// weights drawn by proofc::initWeights -- and print each one's MRR.
//
//   proofc-embed-example BUNDLE.pcb DATA_DIR WEIGHTS.safetensors [QUERIES]
//
// e.g. with the bundle of examples/v10.mlir (`proofc compile`), nations
// and its trained weights. docs/embedding.md walks through it.
//
//===----------------------------------------------------------------------===//
#include <proofc/runtime/Session.h>

#include <cstdio>
#include <string>

namespace {

// MRR over both modes, with the digits a double round-trips with (so a
// script can compare it with the report of `proofc-run`).
void printResult(const char *label, const proofc::SessionResult &result) {
  std::printf(
      "%-8s MRR %.17g  (head %.4f, tail %.4f; %lld proved of %lld "
      "candidates, %.3f s)\n",
      label, result.metrics.both.mrr, result.metrics.head.mrr,
      result.metrics.tail.mrr, static_cast<long long>(result.metrics.proved),
      static_cast<long long>(result.metrics.candidates), result.callSeconds);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr,
                 "usage: %s BUNDLE.pcb DATA_DIR WEIGHTS.safetensors "
                 "[QUERIES]\n",
                 argv[0]);
    return 2;
  }
  try {
    proofc::SessionOptions options;
    options.data = argv[2];
    options.split = "test";
    options.queries = argc == 5 ? std::stoll(argv[4]) : 50;
    options.corruptions = 100;
    options.device = "auto"; // the GPU when there is one, else every core

    // Everything but the weights is bound here, once.
    proofc::Session session(argv[1], options);
    std::printf("%s on %s: %zu queries, %zu candidates\n",
                session.program().name.c_str(), session.deviceName().c_str(),
                session.candidates().queries.size(),
                session.candidates().candidates.size());

    // A weights file, read and checked against the program.
    printResult("trained", session.evaluateFile(argv[3]));

    // Weights made in memory: any map from tensor name to float32 tensor of
    // the shapes session.expectedTensors() lists.
    proofc::TensorMap random =
        proofc::initWeights(session.program(), session.dataset(), /*seed=*/1);
    printResult("random", session.evaluate(random));
  } catch (const proofc::Error &e) {
    // Every bad input (file, tensor, flag) is one proofc::Error naming it.
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) { // std::stoll on a bad QUERIES
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
