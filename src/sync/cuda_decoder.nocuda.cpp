// The build without CUDA: asking for the CUDA decoder is an error that says so.
#include "sync/decoder_engine.hpp"

namespace gpufec::sync::detail {

std::unique_ptr<decoder_engine> make_cuda_engine(const tvb_code&, const geometry&,
                                                 const decoder_options&, std::size_t,
                                                 storage_mode&) {
  throw invalid_argument("the CUDA sync decoder was requested but gpufec was built without CUDA");
}

}  // namespace gpufec::sync::detail
