// Host batch memory (gpufec/common/page_locked.hpp): page-locked through the CUDA entry when it is
// compiled and grants it, else ordinary 64-byte aligned memory. Each block starts with a header
// that says which kind it is, so that release needs no CUDA query.
#include "gpufec/common/page_locked.hpp"

#include <cstdint>

#include "common/host_memory_ops.hpp"

namespace gpufec {
namespace {

// The 64 bytes before the caller's pointer: the kind, and the block's own start.
struct header {
  bool page_locked;
  void* block;
};
constexpr std::size_t kHeader = 64;
static_assert(sizeof(header) <= kHeader);

header* header_of(void* p) {
  return reinterpret_cast<header*>(static_cast<char*>(p) - kHeader);
}

}  // namespace

void* allocate_host_batch_memory(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(-1) - kHeader) throw std::bad_alloc();
  const std::size_t total = kHeader + bytes;
  void* block = nullptr;
  bool locked = false;
  if (const host_memory_ops* ops = cuda_factory_or_null<host_memory_entry>()) {
    block = ops->allocate(total);  // 256-byte aligned by the runtime
    locked = block != nullptr;
  }
  if (!block) block = ::operator new (total, std::align_val_t{kHeader});
  void* user = static_cast<char*>(block) + kHeader;
  *header_of(user) = header{locked, block};
  return user;
}

void free_host_batch_memory(void* p) noexcept {
  if (!p) return;
  const header h = *header_of(p);
  if (h.page_locked)
    cuda_factory_or_null<host_memory_entry>()->release(h.block);
  else
    ::operator delete (h.block, std::align_val_t{kHeader});
}

bool is_page_locked(const void* p) noexcept {
  const host_memory_ops* ops = cuda_factory_or_null<host_memory_entry>();
  return p && ops && ops->page_locked(p);
}

}  // namespace gpufec
