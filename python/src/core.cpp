// gpufec._core: the compiled half of the Python package. The command line as a function (Command:
// gpufec.simulate runs `simulate <family> ...` through it, in this process, with the GIL released),
// the families' codes, encoders and decoders (conv.cpp, polar.cpp, sync.cpp), the channels
// (channel.cpp), and what this build and machine offer (build_info, cuda_devices). The library's
// exceptions become Python's: invalid_argument ValueError (backend_unavailable RuntimeError),
// out_of_memory MemoryError, the rest RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "embedding.hpp"
#include "gpufec/common/device.hpp"
#include "gpufec/common/enum_names.hpp"
#include "gpufec/common/error.hpp"
#include "gpufec/common/provenance.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// One command line, run once: run() on a worker thread (it releases the GIL), interrupt() and
// progress() from any other.
class command {
 public:
  explicit command(std::vector<std::string> args) : args_(std::move(args)) {
    host_.on_progress = [this](const gpufec::sim::progress& p) {
      const std::lock_guard<std::mutex> lock(mutex_);
      latest_ = p;
    };
  }

  // (status, stdout, stderr, failure kind, failure message)
  std::tuple<int, std::string, std::string, std::string, std::string> run() {
    gpufec::cli::embedded_result r;
    {
      const nb::gil_scoped_release unlocked;
      r = gpufec::cli::run_embedded(args_, host_);
    }
    return {r.status, std::move(r.out), std::move(r.err), std::string(gpufec::name_of(r.kind)),
            std::move(r.message)};
  }

  void interrupt() { host_.interrupt = true; }

  // The last progress report of the running sweep, as a dict; None before the first.
  std::optional<nb::dict> progress() {
    std::optional<gpufec::sim::progress> p;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      p = latest_;
    }
    if (!p) return std::nullopt;
    nb::dict d;
    d["point_index"] = p->index;
    d["points"] = p->points;
    d["point"] = p->point;
    d["frames"] = p->frames;
    d["frame_errors"] = p->frame_errors;
    d["bit_errors"] = p->bit_errors;
    d["seconds"] = p->seconds;
    d["frames_per_second"] = p->frames_per_second;
    d["seconds_left"] = p->seconds_left >= 0 ? nb::cast(p->seconds_left) : nb::none();
    return d;
  }

 private:
  std::vector<std::string> args_;
  gpufec::cli::embedding host_;
  std::mutex mutex_;
  std::optional<gpufec::sim::progress> latest_;
};

nb::dict build_info() {
  const gpufec::build_info b = gpufec::get_build_info();
  nb::dict d;
  d["version"] = b.version;
  d["git_commit"] = std::string(gpufec::git_commit());
  d["build_type"] = b.build_type;
  d["cuda"] = b.cuda;
  d["cuda_architectures"] = b.cuda_architectures;
  d["cuda_runtime_version"] = b.cuda_runtime_version;
  d["openmp_max_threads"] = b.openmp_max_threads;
  return d;
}

nb::list cuda_devices() {
  nb::list out;
  for (const gpufec::cuda_device_info& c : gpufec::cuda_devices()) {
    nb::dict d;
    d["index"] = c.index;
    d["name"] = c.name;
    d["compute_capability"] = nb::make_tuple(c.compute_major, c.compute_minor);
    d["sm_count"] = c.sm_count;
    d["total_memory"] = c.total_memory;
    d["free_memory"] = c.free_memory;
    out.append(d);
  }
  return out;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "gpufec's compiled core: the command line in process, the families, the build";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const gpufec::backend_unavailable& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const gpufec::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const gpufec::out_of_memory& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    } catch (const gpufec::error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  gpufec::python::bind_conv(m);
  gpufec::python::bind_polar(m);
  gpufec::python::bind_sync(m);
  gpufec::python::bind_channel(m);
  nb::class_<command>(m, "Command", "One `gpufec ARGS...` command line, run once in this process")
      .def(nb::init<std::vector<std::string>>(), "args"_a)
      .def("run", &command::run,
           "Runs the command (without the GIL); returns (status, stdout, stderr, failure kind, "
           "failure message). Kinds: 'none', 'usage', 'value', 'memory', 'runtime', "
           "'internal'.")
      .def("interrupt", &command::interrupt,
           "Ends a running sweep's current point as a Ctrl-C does (status 130, marked "
           "interrupted); safe from any thread.")
      .def("progress", &command::progress,
           "The running sweep's last progress report, or None before the first.");
  m.def("build_info", &build_info, "Version, commit, build type and the CUDA backend's build.");
  m.def("cuda_devices", &cuda_devices, "The CUDA devices this process can use (none: []).");
}
