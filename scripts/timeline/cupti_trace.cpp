// A CUPTI injection library for GPU machines without Nsight Systems: loaded through
// CUDA_INJECTION64_PATH, it records every kernel and memory copy (start, end, stream) of the
// process and appends them to $TRACE_OUT as lines
//   K <start ns> <end ns> <stream> <grid x> <grid y> <grid z> <name>
//   M <start ns> <end ns> <stream> <bytes>
// (graph launches included). scripts/kernel-timeline builds it, runs a command under it and
// summarizes the lines; it shows which kernels of different streams really ran side by side,
// which ncu (one kernel at a time) cannot.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr std::size_t buffer_bytes = std::size_t{32} << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes));
  *size = *buffer ? buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  const char* path = std::getenv("TRACE_OUT");
  FILE* out = path ? std::fopen(path, "a") : stderr;
  if (!out) out = stderr;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::fprintf(out, "K %llu %llu %u %d %d %d %s\n", static_cast<unsigned long long>(k->start),
                   static_cast<unsigned long long>(k->end), k->streamId, k->gridX, k->gridY,
                   k->gridZ, k->name);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      std::fprintf(out, "M %llu %llu %u %llu\n", static_cast<unsigned long long>(m->start),
                   static_cast<unsigned long long>(m->end), m->streamId,
                   static_cast<unsigned long long>(m->bytes));
    }
  }
  if (std::size_t dropped = 0;
      cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped)
    std::fprintf(stderr, "cupti_trace: %zu records dropped\n", dropped);
  if (out != stderr) std::fclose(out);
  std::free(buffer);
}

void flush_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

}  // namespace

extern "C" int InitializeInjection() {
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cupti_trace: CUPTI activity tracing could not be enabled\n");
    return 0;
  }
  std::atexit(flush_at_exit);
  return 1;
}
