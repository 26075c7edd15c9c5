// What the bindings share: frame counts of flat arrays, and the batch a plan is made for.
#include "bindings.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/sim/awgn_chain.hpp"

namespace gpufec::python {

std::size_t frames_of(std::size_t size, std::size_t length, const char* what) {
  require(length > 0, "frames of no ", what);
  require(size % length == 0, size, " ", what, " are not whole frames of ", length);
  return size / length;
}

std::size_t plan_batch(std::size_t max_batch, std::size_t info_bits, std::size_t coded_bits,
                       const std::string& where) {
  if (max_batch) return max_batch;
  return sim::chain_batch_frames(info_bits, coded_bits,
                                 resolve_backend(parse_name<backend>(where, "backend")));
}

}  // namespace gpufec::python
