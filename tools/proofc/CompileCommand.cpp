//===- CompileCommand.cpp - proofc compile --------------------------------===//
//
// proofc compile PROGRAM.mlir -o X.pcb [--emit=bundle|ptx|mlir]: the bundle
// (JSON, docs/bundle.md), the generated PTX alone, or the module after the
// pipeline. Every output is written atomically.
//
//===----------------------------------------------------------------------===//
#include "CompileCommand.h"

#include "CommandLine.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/Target/ChipLimits.h"
#include "support/FileIO.h"
#include "support/SameFile.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <limits>

using namespace proofc;

CLI::App *driver::addCompileCommand(CLI::App &app, CompileOptions &o) {
  CLI::App *compile = app.add_subcommand(
      "compile", "Compile PROGRAM to a self-contained bundle (PTX, CUDA C++ "
                 "templates, GPU plan)");
  compile->add_option("program", o.program, "The eval program (.mlir)")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("PROGRAM.mlir");
  compile->add_option("-o,--output", o.output, "Output file")
      ->required()
      ->check(cli::nonEmptyPath())
      ->type_name("FILE");
  compile
      ->add_option("--emit", o.emit,
                   "bundle (.pcb), ptx (the policy kernel) or mlir (the "
                   "lowered module)")
      ->check(CLI::IsMember({"bundle", "ptx", "mlir"}))
      ->capture_default_str();
  // Each flag is a field of the pipeline's options (EvalPasses.td), whose
  // defaults it shows: proofc-opt's eval-gpu-pipeline{...} takes the same.
  mlir::eval::EvalGpuPipelineOptions &c = o.compiler.pipeline;
  cli::addIntegerOption(*compile, "--slots", c.shapes.slots,
                        "B, the slots run in parallel (speed only, never "
                        "results; default: the program's B attribute)",
                        1, std::numeric_limits<int32_t>::max())
      ->default_str("the program's B")
      ->type_name("B");
  compile->add_option("--chip", c.lower.chip, "NVVM target chip of the PTX")
      ->capture_default_str();
  compile
      ->add_option("--ptx-features", c.lower.features,
                   "NVVM target features, e.g. +ptx87: the PTX ISA version")
      ->default_str("+ptx86, or the first PTX ISA that knows --chip");
  compile
      ->add_option("--libdevice", c.lower.libdevice,
                   "libdevice.10.bc to link (default: the configured CUDA "
                   "toolkit's)")
      ->type_name("FILE");
  cli::addIntegerOption(*compile, "--groups", c.lower.groups,
                        "Warps per policy-kernel block (default: chosen from "
                        "B and --policy-matmul)",
                        1, 32)
      ->default_str("auto");
  cli::addIntegerOption(*compile, "--states-per-thread",
                        c.lower.statesPerThread,
                        "States each policy-kernel thread encodes at once (FMA "
                        "layers; with the tensor cores a warp holds 16 rows)",
                        1, 8);
  compile
      ->add_option("--engine-threads", c.lower.engineThreads,
                   "Block size of the engine kernels (a power of two; "
                   "default: chosen from B)")
      ->check(CLI::IsMember({32, 64, 128, 256, 512, 1024}))
      ->default_str("auto");
  cli::addIntegerOption(*compile, "--engine-max-registers",
                        c.lower.engineMaxRegisters,
                        "Registers a thread of the step schedule's fused "
                        "advance-engine kernel may use (0: no cap; default: "
                        "chosen from B)",
                        0, proofc::kMaxRegistersPerThread)
      ->default_str("auto");
  cli::addIntegerOption(*compile, "--memo-max-waits", c.lower.memoMaxWaits,
                        "Steps a slot of the step schedule may wait for a "
                        "step another slot is computing instead of computing "
                        "it too (0: never; default: chosen from B)",
                        0, mlir::eval::kMaxMemoWaits)
      ->default_str("auto");
  cli::addIntegerOption(*compile, "--tail-handoff", c.lower.tailHandoff,
                        "Slots active from which the step schedule hands its "
                        "last steps to the persistent kernel (0: never; "
                        "default: chosen from B)",
                        0, std::numeric_limits<int32_t>::max())
      ->default_str("auto");
  cli::addIntegerOption(*compile, "--min-blocks-per-sm", c.lower.minBlocksPerSm,
                        "Policy kernel blocks that must fit on one SM (caps "
                        "its registers; 0: no cap; default: chosen from B and "
                        "--policy-matmul)",
                        0, 32)
      ->default_str("auto");
  compile
      ->add_option("--policy-matmul", c.plan.matmul,
                   "The policy's linear layers: tf32x3 (mma.sync on the "
                   "tensor cores, each operand split into two TF32 parts: "
                   "FP32 accuracy), f16x3 (the same with two f16 parts over "
                   "half the k-steps: FP32's bits with half's exponent "
                   "range; inputs 16-aligned), fma (FP32 on the CUDA "
                   "cores), or auto (f16x3 when every linear's input is "
                   "16-aligned and its output 8-aligned, tf32x3 when both "
                   "are 8-aligned)")
      ->check(CLI::IsMember({"auto", "fma", "tf32x3", "f16x3"}))
      ->capture_default_str();
  compile->add_flag_callback(
      "--no-atom-layer-table", [&c] { c.plan.atomLayer = false; },
      "Keep the policy's first linear in the kernel: no table of every "
      "atom's product with it, made when the weights load and read by the "
      "tensor-core kernel when the run's table fits its budget");
  compile
      ->add_option("--schedule", c.lower.schedule,
                   "The proof loop: step (a policy and an advance-engine "
                   "kernel per step, every slot in lockstep), persistent (one "
                   "kernel whose block per slot scores, advances and derives "
                   "it until the pool is empty), or auto (chosen from B and "
                   "--policy-matmul)")
      ->check(CLI::IsMember({"auto", "step", "persistent"}))
      ->capture_default_str();
  compile->add_flag_callback(
      "--unfused-step", [&c] { c.lower.fuseAdvanceEngine = false; },
      "Keep the advance and the engine (under its cond) as separate launches: "
      "three kernels per step instead of two");
  compile->add_flag(
      "--advance-in-policy", c.lower.advanceInPolicy,
      "The step schedule's policy block that selects a slot's action also "
      "advances and derives that slot: one policy launch and a one-thread "
      "step end a step instead of the policy and the advance-engine (B >= "
      "1024). Measured slower than without it on V10 (docs/performance.md, "
      "\"The advance in the policy, built\"); its bundles run no rollouts");
  return compile;
}

int driver::compileCommand(const CompileOptions &o) {
  checkWritable(o.output); // before the compilation
  checkOutputsApart({{o.output, "output", "-o"}}, {{o.program, "program", ""}});
  BundleCompilerOptions options = o.compiler;
  options.keepMlir = o.emit == "mlir";
  options.keepPtx = o.emit == "ptx";
  std::optional<CompiledProgram> compiled =
      compileProgramToBundle(o.program, options);
  if (!compiled)
    return 1;
  if (o.emit == "ptx")
    writeAtomically(o.output, compiled->ptx);
  else if (o.emit == "mlir")
    writeAtomically(o.output, compiled->loweredMlir);
  else
    writeBundle(o.output, compiled->bundle);
  return 0;
}
