#include "embedding.hpp"

#include <omp.h>

#include <iostream>
#include <mutex>
#include <sstream>

namespace gpufec::cli {
namespace {

std::mutex embedded_command;
std::atomic<embedding*> running{nullptr};

// Standard output and error into strings for a scope, and back.
class captured_streams {
 public:
  captured_streams()
      : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~captured_streams() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
    std::cout.clear();
    std::cerr.clear();
  }
  captured_streams(const captured_streams&) = delete;
  captured_streams& operator=(const captured_streams&) = delete;
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

// `e` as the running command's embedding for a scope, and the process's OpenMP thread count
// (which a command's --threads sets) as it was after it, however the scope ends.
class running_command {
 public:
  explicit running_command(embedding& e) : threads_(omp_get_max_threads()) { running = &e; }
  ~running_command() {
    running = nullptr;
    omp_set_num_threads(threads_);
  }
  running_command(const running_command&) = delete;
  running_command& operator=(const running_command&) = delete;

 private:
  int threads_;
};

}  // namespace

embedding* current_embedding() {
  return running.load();
}

embedded_result run_embedded(const std::vector<std::string>& args, embedding& e) {
  const std::lock_guard<std::mutex> one_at_a_time(embedded_command);
  std::vector<std::string> words{"gpufec"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  e.kind = failure_kind::none;
  e.message.clear();
  embedded_result r;
  {
    const running_command scope(e);
    const captured_streams streams;
    r.status = run_command_line(static_cast<int>(words.size()), argv.data());
    std::cout.flush();
    r.out = streams.out();
    r.err = streams.err();
  }
  r.kind = e.kind;
  r.message = e.message;
  return r;
}

}  // namespace gpufec::cli
