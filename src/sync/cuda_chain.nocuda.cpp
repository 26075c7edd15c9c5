// The build without CUDA: the CUDA simulation chain is an error that says so.
#include "gpufec/sync/simulation.hpp"

namespace gpufec::sync::detail {

std::unique_ptr<sim::chain> make_cuda_chain(const sim_setup&, const bsid_params&, std::uint64_t) {
  throw invalid_argument(
      "the CUDA sync simulation was requested but gpufec was built without CUDA");
}

}  // namespace gpufec::sync::detail
