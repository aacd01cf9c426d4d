// kernel_timeline.cpp - every kernel's start and end at the run's own clock,
// for a GPU machine without Nsight Systems.
//
// Nsight Compute serializes launches and locks the clocks, so its per-launch
// times neither add up to a graph replay's span nor show the gaps between a
// graph's kernel nodes. This CUDA injection library (CUPTI's activity API,
// concurrent-kernel records, which do not serialize) writes one line per
// kernel and memset/memcpy to $PROOFC_TIMELINE_OUT:
//   kind,start_ns,end_ns,graph_node_id,name
// With PROOFC_TIMELINE_API=1 also one line per driver API call ("api", the
// node id 0, the call's name), so that a setup's host time can be split by
// call (bench/proto/api_time.py sums them); off by default, since the
// records cost host time of their own.
// Build (on the GPU machine): scripts/build-timeline-lib.sh kt.so (against
// the toolkit's newest activity records).
// Use: CUDA_INJECTION64_PATH=$PWD/kt.so PROOFC_TIMELINE_OUT=t.csv <program>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cupti.h>

#if !defined(KERNEL_RECORD) || !defined(MEMSET_RECORD) ||                      \
    !defined(MEMCPY_RECORD)
#error "define KERNEL_RECORD, MEMSET_RECORD, MEMCPY_RECORD: the header's newest"
#endif

static FILE *out = nullptr;

static void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size,
                                     size_t *maxRecords) {
  *size = 16 << 20;
  *buffer = static_cast<uint8_t *>(aligned_alloc(8, *size));
  *maxRecords = 0;
}

static void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer,
                                     size_t, size_t valid) {
  CUpti_Activity *r = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto *k = reinterpret_cast<KERNEL_RECORD *>(r);
      fprintf(out, "kernel,%llu,%llu,%llu,%s,%u\n",
              (unsigned long long)k->start, (unsigned long long)k->end,
              (unsigned long long)k->graphNodeId, k->name, k->streamId);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      auto *m = reinterpret_cast<MEMSET_RECORD *>(r);
      fprintf(out, "memset,%llu,%llu,0,%llu,%u\n", (unsigned long long)m->start,
              (unsigned long long)m->end, (unsigned long long)m->bytes,
              m->streamId);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      auto *m = reinterpret_cast<MEMCPY_RECORD *>(r);
      fprintf(out, "memcpy,%llu,%llu,0,%llu,%u\n", (unsigned long long)m->start,
              (unsigned long long)m->end, (unsigned long long)m->bytes,
              m->streamId);
    } else if (r->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      auto *a = reinterpret_cast<CUpti_ActivityAPI *>(r);
      const char *name = nullptr;
      if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name) !=
          CUPTI_SUCCESS)
        name = "?";
      fprintf(out, "api,%llu,%llu,0,%s\n", (unsigned long long)a->start,
              (unsigned long long)a->end, name);
    }
  }
  free(buffer);
}

static bool marks = false;

static void mark(const char *what) {
  uint64_t now = 0;
  if (marks && cuptiGetTimestamp(&now) == CUPTI_SUCCESS)
    fprintf(out, "mark,%llu,%llu,0,%s\n", (unsigned long long)now,
            (unsigned long long)now, what);
}

static void flushAtExit() {
  mark("exit");
  cuptiActivityFlushAll(1);
  if (out)
    fclose(out);
}

extern "C" int InitializeInjection(void) {
  const char *path = getenv("PROOFC_TIMELINE_OUT");
  out = fopen(path ? path : "timeline.csv", "w");
  if (!out)
    return 0;
  cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  const char *api = getenv("PROOFC_TIMELINE_API");
  if (api && !strcmp(api, "1"))
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  const char *wanted = getenv("PROOFC_TIMELINE_MARKS");
  marks = wanted && !strcmp(wanted, "1");
  mark("init");
  atexit(flushAtExit);
  return 1;
}
