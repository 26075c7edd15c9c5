// Placeholder entry point replaced by the CLI frame (issue 2).
#include <iostream>

#include "gpufec/common/device.hpp"

int main() {
  const auto b = gpufec::get_build_info();
  std::cout << "gpufec " << b.version << " cuda=" << b.cuda << " devices=" << gpufec::cuda_device_count()
            << "\n";
  return 0;
}
