// The parts of gpufec._core, each binding one piece of the library (core.cpp makes the module).
// Arrays cross as C-contiguous host ndarrays of the exact dtype: the Python side
// (gpufec/_arrays.py) converts and reshapes, so the C++ side sees [frames, n] and never copies.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <string>

namespace gpufec::python {

namespace nb = nanobind;

template <class T>
using host_in = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <class T>
using host_out = nb::ndarray<T, nb::c_contig, nb::device::cpu>;

// Frames of `length` values in an array of `size` values (invalid_argument when it does not
// divide; the Python side has already shaped it [frames, length]).
std::size_t frames_of(std::size_t size, std::size_t length, const char* what);

// The frames a decoder plan takes a call: `max_batch`, or (0) what the simulator's chain plans for
// frames of these sizes on `where` (about 2^20 values on the CPU, 2^28 on CUDA).
std::size_t plan_batch(std::size_t max_batch, std::size_t info_bits, std::size_t coded_bits,
                       const std::string& where);

void bind_conv(nb::module_& m);
void bind_polar(nb::module_& m);
void bind_sync(nb::module_& m);
void bind_channel(nb::module_& m);

}  // namespace gpufec::python
