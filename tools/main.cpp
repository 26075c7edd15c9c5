// gpufec: the command-line program (the frame is frame.cpp).
#include "embedding.hpp"

int main(int argc, char** argv) {
  return gpufec::cli::run_command_line(argc, argv);
}
