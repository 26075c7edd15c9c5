// Built only without the CUDA backend: asking for the CUDA chain is a run-time error, not a crash.
#include "gpufec/common/error.hpp"
#include "gpufec/uncoded/uncoded.hpp"

namespace gpufec::uncoded {

std::unique_ptr<sim::chain> make_cuda_chain(const params&, double, std::uint64_t) {
  throw error("the CUDA uncoded chain is unavailable: gpufec was built without CUDA");
}

}  // namespace gpufec::uncoded
