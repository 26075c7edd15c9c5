// The per-call rules of the CUDA sync plan and its description (see cuda_plan.hpp). Host code:
// the shapes they read were chosen by plan_cuda() (src/sync/cuda/launch_plan.cu).
#include "sync/plan/cuda_plan.hpp"

#include <algorithm>
#include <sstream>

#include "gpufec/common/align.hpp"
#include "gpufec/common/error.hpp"
#include "sync/cuda/policy.hpp"

namespace gpufec::sync::detail {

int cuda_plan::stored_rows() const {
  return ring() ? std::min(N, policy::local_ring_rows) : N;
}

bool cuda_plan::folds_by_frames() const {
  if (fold != fold_kernel::automatic) return fold == fold_kernel::frames;
  return fold_frames.threads > 0 && Mn < policy::fold_items_min_width;
}

// The folded path pays once a chunk has enough frames, and when V saves enough of R's bytes (R
// has M_n / 2 times V's) to pay for the folding (policy.hpp: fold_items_min_width,
// fold_item_waves, frame_fold_waves). 0: never; decoder_options::fold_min_frames overrides.
int cuda_plan::fold_min_frames() const {
  if (fold_min_frames_option) return fold_min_frames_option;
  if (folds_by_frames()) return policy::frame_fold_waves * sm_count * fold_frames.blocks_per_sm;
  if (fold == fold_kernel::automatic && Mn < policy::fold_items_min_width) return 0;
  constexpr long long waves = policy::fold_item_waves;
  return static_cast<int>((waves * resident_fold_warps() + M - 1) / M);
}

long long cuda_plan::resident_fold_warps() const {
  return static_cast<long long>(sm_count) * fold_items.blocks_per_sm * (fold_items.threads / 32);
}

bool cuda_plan::chunk_folds(int count) const {
  const bool frames = folds_by_frames();
  if (!(frames ? fold_frames.threads : fold_items.threads)) return false;
  const int min_frames = fold_min_frames();
  if (min_frames == 0 || count < min_frames) return false;
  // An item is a warp of a 1-D grid: at most one per state, within grid.x.
  return frames || static_cast<long long>(N) * count * M <= 0x7fffffffLL;
}

int cuda_plan::parts_for(int count) const {
  int parts = 1, min_part = policy::min_part_frames;
  // A chunk folded by items is one part: the rounds of its items then hold all of its frames. So
  // is a chunk in local storage: its passes run on the ring's streams.
  const bool folds = chunk_folds(count);
  if ((folds && !folds_by_frames()) || ring()) min_part = count + 1;
  while (parts < policy::max_parts && count / ((parts + 1) * (parts + 2) / 2) >= min_part) ++parts;
  return parts;
}

int cuda_plan::gamma_states_per_warp(int frames, int indices) const {
  // As many states per warp as leave policy::gamma_waves waves of warps on the device, at most
  // gamma_warp_max_tasks, spread evenly over the warps of one (frame, i).
  const long long lattices = static_cast<long long>(frames) * indices * M;
  const long long resident =
      static_cast<long long>(sm_count) * gamma.blocks_per_sm * (gamma.threads / 32);
  const int want = static_cast<int>(std::clamp<long long>(
      lattices / (policy::gamma_waves * std::max(resident, 1LL)), 1, policy::gamma_warp_max_tasks));
  // Whole blocks of busy warps: a warp with nothing to do would hold its block's slot.
  const int per_block = gamma.threads / 32;
  const int warps = round_up((M + want - 1) / want, per_block);
  return (M + warps - 1) / warps;
}

int cuda_plan::fold_states_per_warp(int frames) const {
  // As many states per item as leave one wave of warps per round (one index of every frame): more
  // states share a warp's setup, fewer leave more items ready while rounds overlap.
  const long long round = static_cast<long long>(frames) * M;
  const int want = static_cast<int>(std::clamp<long long>(
      round / std::max(resident_fold_warps(), 1LL), 1, policy::gamma_warp_max_tasks));
  const int chunks = (M + want - 1) / want;
  return (M + chunks - 1) / chunks;
}

const launch_shape& cuda_plan::app_shape_for(long long blocks) const {
  for (const auto& w : app_wide)
    if (blocks <= w.wave(sm_count)) return w;
  return app;
}

std::vector<std::string> cuda_plan::describe(std::size_t allocated_bytes) const {
  auto line = [&](const std::string& name, const launch_shape& s, const std::string& grid) {
    std::ostringstream os;
    os << name << ": block " << s.threads << " (" << s.Bx << " D lanes x " << s.By
       << " states), grid " << grid << ", shared " << s.shared << " B, " << s.blocks_per_sm
       << " blocks/SM on " << sm_count << " SMs";
    return os.str();
  };
  const int tiles = gamma.By ? (M + gamma.By - 1) / gamma.By : 0;
  std::vector<std::string> lines = {
      gamma_width ? line(cat("gamma (register row of ", gamma_width, ")"), gamma,
                         cat("a warp per up to ", policy::gamma_warp_max_tasks,
                             " states m' of one (frame, i), fewer for small batches: ", N * M,
                             " states x frames", gamma_nosub ? ", no substitutions" : ""))
                  : line("gamma", gamma, cat(N * tiles, " x frames")),
      line(fb_width ? cat("alpha/beta (thread per state, gsum blocks prefetched, K = ", fb_width,
                          ", ", 1 << fb_log_ring, " in flight)")
                    : std::string("alpha/beta"),
           fb, "frames x 2 (persistent over i)"),
      line(cat("L (", stores_gamma() ? "stored" : "recomputed", " gamma",
               app_symbols_per_lane > 1 ? ", 4 symbols per lane" : "", ")"),
           app, cat(N, " x frames")),
      app_wide.empty() ? std::string("L, small batches: the same shape")
                       : line("L, small batches (widest)", app_wide.front(), cat(N, " x frames"))};
  const bool frames = folds_by_frames();
  if (!(frames ? fold_frames.threads : fold_items.threads)) {
    lines.push_back("gamma+beta folded: not for this geometry, storage or device");
  } else if (!fold_min_frames()) {
    lines.push_back(cat("gamma+beta folded: not by default at M_n = ", Mn,
                        " (decoder_options::fold_min_frames)"));
  } else {
    lines.push_back(
        frames
            ? line(cat("gamma+beta folded, chunks of ", fold_min_frames(),
                       "+ frames: a block per frame, ", frame_states_per_warp, " states per warp"),
                   fold_frames, "frames of a part, i descending in each block")
            : line(cat("gamma+beta folded, chunks of ", fold_min_frames(), "+ frames"), fold_items,
                   "a warp per item of states of one (frame, i), i descending"));
    lines.push_back(line("L from V (folded chunks)", app_from_v, cat(N, " x frames")));
  }
  if (ring())
    lines.push_back(line("alpha/beta step (local storage)", step,
                         cat("frames, a launch per index and direction, index i on stream i % ",
                             stored_rows(), " of ", stored_rows(), " rotating streams")));
  lines.push_back(cat("storage ", to_string(storage), ", chunk ", chunk, " frames of max batch ",
                      max_batch, ", ", allocated_bytes >> 20, " MiB on the device"));
  return lines;
}

}  // namespace gpufec::sync::detail
