#include "sync/code_options.hpp"

namespace gpufec::cli {

sync::tvb_code sync_code_options::code(sync::code_source* source) const {
  const bool random_marker = parse_name<sync_marker>(marker, "--marker") == sync_marker::random;
  sync::code_source src;
  src.codebook = codebook;
  src.seed = codebook_seed;
  src.marker = random_marker ? "random" : "none";
  if (codebook == "random") {
    if (n < 31 && q > (1 << n))
      throw usage_error(cat("--q ", q, " exceeds 2^n = ", 1 << n, " (--n ", n,
                            "): the codewords of n bits cannot tell q symbols apart"));
    if (source) *source = src;
    return sync::tvb_code::random(q, n, N, codebook_seed, random_marker);
  }
  sync::code_file file = sync::read_code_file(codebook);
  const int fq = file.codebooks.front().q, fn = file.codebooks.front().n;
  if (q_option->count() && q != fq)
    throw usage_error(cat("--q ", q, " contradicts the codebook file '", codebook, "' (q = ", fq,
                          "); leave --q out"));
  if (n_option->count() && n != fn)
    throw usage_error(cat("--n ", n, " contradicts the codebook file '", codebook, "' (n = ", fn,
                          "); leave --n out"));
  // N: what the file fixes (its N header, its marker, or one codebook per position), else the
  // flag's (a single codebook serves any N).
  const int fixed = file.positions();
  if (N_option->count() && fixed && N != fixed)
    throw usage_error(cat("--N ", N, " contradicts the codebook file '", codebook, "' (N = ", fixed,
                          ", from ", file.positions_source(), "); leave --N out"));
  const int positions = fixed ? fixed : N;
  if (static_cast<std::size_t>(positions) < file.codebooks.size())
    throw usage_error(cat("--N ", positions, " is fewer positions than the ", file.codebooks.size(),
                          " codebooks of '", codebook, "'"));
  // The marker: the file's, unless the flag says otherwise, which contradicts a file holding one.
  if (!file.marker.empty() && marker_option->count())
    throw usage_error(cat("--marker ", marker, " contradicts the codebook file '", codebook,
                          "', which holds a marker of its own; leave --marker out"));
  std::vector<std::uint8_t> mark = std::move(file.marker);
  src.fingerprint = file.fingerprint;
  if (!mark.empty()) src.marker = "file";
  if (random_marker) mark = sync::tvb_code::random(fq, fn, positions, codebook_seed, true).marker();
  if (source) *source = src;
  return sync::tvb_code(fq, fn, positions, std::move(file.codebooks), std::move(mark));
}

sync::decoder_options sync_code_options::decoder() const {
  sync::decoder_options o;
  o.Pr = Pr;
  o.storage = parse_name<sync::storage_mode>(storage, "--storage");
  o.lattice = parse_name<sync::lattice_mode>(lattice, "--lattice");
  o.lattice_real = parse_name<sync::real_kind>(lattice_real, "--lattice-real");
  o.end_known = parse_name<sync_frame_end>(end, "--end") == sync_frame_end::known;
  o.memory_budget = static_cast<std::size_t>(memory_budget_mib * 1024 * 1024);
  return o;
}

void add_code_options(CLI::App& cmd, sync_code_options& o) {
  o.q_option = cmd.add_option("--q", o.q, "message alphabet size (q >= 2, q <= 2^n)")
                   ->check(in_range(2, 1 << 20))
                   ->capture_default_str();
  o.n_option = cmd.add_option("--n", o.n, "codeword length in bits (1..32)")
                   ->check(in_range(1, 32))
                   ->capture_default_str();
  o.N_option = cmd.add_option("--N", o.N, "message length in q-ary symbols")
                   ->check(in_range(1, 1 << 24))
                   ->capture_default_str();
  cmd.add_option("--codebook", o.codebook,
                 "'random' (a fresh injective codebook per position) or a codebook file "
                 "(docs/formats.md), which then gives q, n and, when it fixes them, N")
      ->capture_default_str();
  cmd.add_option("--codebook-seed", o.codebook_seed, "seed of random codebooks and markers")
      ->check(unsigned_integer())
      ->capture_default_str();
  o.marker_option = cmd.add_option("--marker", o.marker,
                                   "none, or random: a pseudo-random watermark added onto the "
                                   "frame (a codebook file's own marker when it holds one)")
                        ->check(CLI::IsMember(names_of<sync_marker>()))
                        ->capture_default_str();
  cmd.add_option("--storage", o.storage,
                 "gamma storage: auto, global, compact (CUDA: sums over D kept) or local (a ring "
                 "of indices, the paper's)")
      ->check(CLI::IsMember(names_of<sync::storage_mode>()))
      ->capture_default_str();
  cmd.add_option("--lattice", o.lattice,
                 "receiver metric: corridor (within the drift limits) or full")
      ->check(CLI::IsMember(names_of<sync::lattice_mode>()))
      ->capture_default_str();
  cmd.add_option("--lattice-real", o.lattice_real, "lattice precision: float or double")
      ->check(CLI::IsMember(names_of<sync::real_kind>()))
      ->capture_default_str();
  cmd.add_option("--end", o.end, "frame end: known (drift rho - tau) or unknown (drift pmf prior)")
      ->check(CLI::IsMember(names_of<sync_frame_end>()))
      ->capture_default_str();
  cmd.add_option("--Pr", o.Pr, "probability of drift outside the limits")
      ->check(greater_than(0) & in_range(0, 0.5))
      ->capture_default_str();
  cmd.add_option(
         "--memory-budget", o.memory_budget_mib,
         "MiB the gamma storage may take before auto picks local (0: 1 GiB CPU, 80% free GPU)")
      ->check(at_least(0));
}

void add_channel_options(CLI::App& cmd, sync_channel_options& o, bool sweep) {
  const char* suffix = sweep ? " (default: the swept p)" : "";
  auto* pi = cmd.add_option("--pi", o.pi, std::string("insertion probability Pi") + suffix)
                 ->check(in_range(0, 1));
  auto* pd = cmd.add_option("--pd", o.pd, std::string("deletion probability Pd") + suffix)
                 ->check(in_range(0, 1));
  if (!sweep) {
    pi->required();
    pd->required();
  }
  cmd.add_option("--ps", o.ps, "substitution probability Ps")
      ->check(in_range(0, 1))
      ->capture_default_str();
}

void check_channel(const sync_channel_options& o) {
  if (o.pi && o.pd && *o.pi + *o.pd >= 1)
    throw usage_error(cat("--pi ", *o.pi, " and --pd ", *o.pd,
                          ": Pi + Pd must be below 1 (a symbol must get through)"));
}

}  // namespace gpufec::cli
