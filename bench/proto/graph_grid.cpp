// graph_grid.cpp - what an idle grid costs a step, and whether a step kernel
// can shrink the next step's grid from the device.
//
// V10's tail (steps 21-40 at B = 4,096, bench/proto/kernel_timeline.cpp)
// spends >= 20.7 us a step in the policy kernel even when no slot is left:
// its 32,768 one-warp blocks each read the guard and return. This program
// builds the proof loop's graph shape with the driver API as the runtime
// does (NVRTC, a WHILE conditional node, U steps per iteration, each step
// an idle "policy" grid then a 4,096-block "advance" grid whose block 0
// counts the steps and ends the loop) and times a step for:
//   - the policy grid fixed at G blocks (32,768, 4,096, 256);
//   - the policy nodes device-updatable, each step's advance setting the
//     next policy node's grid (cudaGraphKernelNodeSetGridDim) to g blocks,
//     a setup kernel resetting them to G at every launch;
//   - U = 1, 8, 40 steps per WHILE iteration (the iteration's round trip).
// A step's time is a graph launch's over its steps, so it includes the
// launch's share of its three one-word resets and (updated grids) of its
// setup kernel: under 0.1 us a step at 40 steps; the comparisons are
// between configurations that all pay it.
// Build (GPU machine): g++ -O2 graph_grid.cpp -I/usr/local/cuda/include
//   -L/usr/local/cuda/lib64 -lcuda -lnvrtc -o graph_grid
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <nvrtc.h>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorName(r_, &s_);                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static const char *kSource = R"(
extern "C" __device__ void cudaGraphSetConditional(unsigned long long, unsigned);
struct Dim3 { unsigned x, y, z; };
extern "C" __device__ int cudaGraphKernelNodeSetGridDim(unsigned long long, Dim3);
extern "C" __global__ void policy(const int *guard, const int *count, int n,
                                  int *sink) {
  if (*guard == 0) return;
  int s = blockIdx.x % n;
  if (count[s] == 0) return;
  if (threadIdx.x == 0) atomicAdd(sink, 1);
}
extern "C" __global__ void advance(int *guard, int *iter, int steps,
                                   unsigned long long loop,
                                   const unsigned long long *next, int grid) {
  if (*guard == 0) return;
  if (blockIdx.x || threadIdx.x) return;
  int i = ++*iter;
  if (i >= steps) { *guard = 0; cudaGraphSetConditional(loop, 0); }
  if (next && *next) cudaGraphKernelNodeSetGridDim(*next, Dim3{(unsigned)grid, 1, 1});
}
extern "C" __global__ void reset(const unsigned long long *nodes, int k, int grid) {
  if (threadIdx.x < k) cudaGraphKernelNodeSetGridDim(nodes[threadIdx.x], Dim3{(unsigned)grid, 1, 1});
}
)";

static CUfunction fPolicy, fAdvance, fReset;
static CUcontext ctx;

static CUgraphNode kernelNode(CUgraph g, CUgraphNode dep, CUfunction f,
                              unsigned grid, unsigned block, void **args,
                              bool updatable, CUgraphDeviceNode *dev) {
  CUgraphNodeParams p{};
  p.type = CU_GRAPH_NODE_TYPE_KERNEL;
  p.kernel.func = f;
  p.kernel.gridDimX = grid;
  p.kernel.gridDimY = p.kernel.gridDimZ = 1;
  p.kernel.blockDimX = block;
  p.kernel.blockDimY = p.kernel.blockDimZ = 1;
  p.kernel.kernelParams = args;
  CUgraphNode n = nullptr;
  CK(cuGraphAddNode(&n, g, dep ? &dep : nullptr, nullptr, dep ? 1 : 0, &p));
  if (updatable) {
    CUlaunchAttributeValue v{};
    v.deviceUpdatableKernelNode.deviceUpdatable = 1;
    CK(cuGraphKernelNodeSetAttribute(
        n, CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &v));
    CUlaunchAttributeValue out{};
    CK(cuGraphKernelNodeGetAttribute(
        n, CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, &out));
    *dev = out.deviceUpdatableKernelNode.devNode;
  }
  return n;
}

struct Buffers {
  CUdeviceptr guard, iter, count, sink, nodes;
};

// One configuration: T steps, U per WHILE iteration, policy grid G, updated
// to g from the device when g > 0. Returns us per step (median of 5 x 20).
static double run(const Buffers &b, int T, int U, unsigned G, int g, int n,
                  int *policyBlocksSeen) {
  CUgraph graph;
  CK(cuGraphCreate(&graph, 0));
  CUgraphConditionalHandle loop;
  CK(cuGraphConditionalHandleCreate(&loop, graph, ctx, 1,
                                    CU_GRAPH_COND_ASSIGN_DEFAULT));
  std::vector<CUgraphDeviceNode> dev(U, 0);
  static unsigned long long storage[128][8];
  static void *params[128][8];
  int slot = 0;
  auto args = [&](std::vector<unsigned long long> v) {
    for (size_t i = 0; i < v.size(); ++i) {
      storage[slot][i] = v[i];
      params[slot][i] = &storage[slot][i];
    }
    return params[slot++];
  };
  const bool upd = g > 0;
  CUgraphNode setup = nullptr;
  if (upd)
    setup =
        kernelNode(graph, nullptr, fReset, 1, 64,
                   args({b.nodes, (unsigned long long)U, G}), false, nullptr);
  CUgraphNodeParams cp{};
  cp.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  cp.conditional.handle = loop;
  cp.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
  cp.conditional.size = 1;
  cp.conditional.ctx = ctx;
  CUgraphNode cn;
  CK(cuGraphAddNode(&cn, graph, setup ? &setup : nullptr, nullptr,
                    setup ? 1 : 0, &cp));
  CUgraph body = cp.conditional.phGraph_out[0];
  CUgraphNode last = nullptr;
  for (int k = 0; k < U; ++k) {
    last = kernelNode(body, last, fPolicy, G, 32,
                      args({b.guard, b.count, (unsigned long long)n, b.sink}),
                      upd, &dev[k]);
    unsigned long long next = upd ? b.nodes + 8ull * ((k + 1) % U) : 0;
    last = kernelNode(
        body, last, fAdvance, 4096, 32,
        args({b.guard, b.iter, (unsigned long long)T, (unsigned long long)loop,
              next, (unsigned long long)g}),
        false, nullptr);
  }
  CUgraphExec exec;
  CK(cuGraphInstantiateWithFlags(&exec, graph, 0));
  if (upd)
    CK(cuMemcpyHtoD(b.nodes, dev.data(), 8 * U));
  CUstream st;
  CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
  CK(cuGraphUpload(exec, st));
  CUevent e0, e1;
  CK(cuEventCreate(&e0, 0));
  CK(cuEventCreate(&e1, 0));
  std::vector<double> t;
  for (int rep = 0; rep < 6; ++rep) {
    CK(cuEventRecord(e0, st));
    for (int i = 0; i < 20; ++i) {
      CK(cuMemsetD32Async(b.guard, 1, 1, st));
      CK(cuMemsetD32Async(b.iter, 0, 1, st));
      CK(cuMemsetD32Async(b.sink, 0, 1, st));
      CK(cuGraphLaunch(exec, st));
    }
    CK(cuEventRecord(e1, st));
    CK(cuStreamSynchronize(st));
    float ms;
    CK(cuEventElapsedTime(&ms, e0, e1));
    if (rep)
      t.push_back(ms * 1e3 / (20.0 * T));
  }
  int seen = 0, it = 0;
  CK(cuMemcpyDtoH(&seen, b.sink, 4));
  CK(cuMemcpyDtoH(&it, b.iter, 4));
  *policyBlocksSeen = seen;
  if (it != T) {
    fprintf(stderr, "ran %d steps, not %d\n", it, T);
    exit(1);
  }
  CK(cuGraphExecDestroy(exec));
  CK(cuGraphDestroy(graph));
  CK(cuStreamDestroy(st));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  CK(cuInit(0));
  CUdevice d;
  CK(cuDeviceGet(&d, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, d));
  CK(cuCtxSetCurrent(ctx));
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, kSource, "graph_grid.cu", 0, nullptr, nullptr);
  const char *opts[] = {"--gpu-architecture=sm_90"};
  if (nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS) {
    size_t n;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, 0);
    nvrtcGetProgramLog(prog, &log[0]);
    fprintf(stderr, "%s\n", log.c_str());
    return 1;
  }
  size_t size;
  nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog, cubin.data());
  CUmodule mod;
  CK(cuModuleLoadData(&mod, cubin.data()));
  CK(cuModuleGetFunction(&fPolicy, mod, "policy"));
  CK(cuModuleGetFunction(&fAdvance, mod, "advance"));
  CK(cuModuleGetFunction(&fReset, mod, "reset"));
  Buffers b;
  CK(cuMemAlloc(&b.guard, 4));
  CK(cuMemAlloc(&b.iter, 4));
  CK(cuMemAlloc(&b.sink, 4));
  CK(cuMemAlloc(&b.nodes, 8 * 64));
  const int n = 4096;
  CK(cuMemAlloc(&b.count, 4 * n));
  CK(cuMemsetD32(b.count, 0, n)); // every slot idle: the tail's floor
  struct Cfg {
    int U;
    unsigned G;
    int g;
  } cfgs[] = {{8, 32768, 0},   {8, 4096, 0},      {8, 256, 0},
              {8, 32768, 256}, {8, 32768, 32768}, {1, 256, 0},
              {40, 256, 0},    {40, 32768, 0},    {40, 32768, 256}};
  const int T = 40;
  for (const Cfg &c : cfgs) {
    int seen = 0;
    double us = run(b, T, c.U, c.G, c.g, n, &seen);
    printf("U=%2d policy grid %5u%s: %.2f us a step\n", c.U, c.G,
           c.g ? (std::string(" updated to ") + std::to_string(c.g)).c_str()
               : "",
           us);
  }
  // The update really changes the grid: count the blocks that run.
  CK(cuMemsetD32(b.count, 1, n));
  for (const Cfg &c : {Cfg{8, 32768, 256}, Cfg{8, 32768, 0}}) {
    int seen = 0;
    double us = run(b, T, c.U, c.G, c.g, n, &seen);
    printf("every slot busy, U=%d G=%u g=%d: %.2f us a step, %d policy "
           "blocks ran in the last launch (%d expected)\n",
           c.U, c.G, c.g, us, seen,
           c.g ? (int)c.G + (T - 1) * c.g : T * (int)c.G);
  }
  return 0;
}
