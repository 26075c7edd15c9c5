// polar_code: validation of N, K and the construction, the frozen set from each construction (a
// frozen-set file's parsing: io/frozen_set_file.cpp), writing the frozen set, and the check that
// systematic encoding is possible.
#include "gpufec/polar/polar_code.hpp"

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "gpufec/common/error.hpp"
#include "gpufec/polar/construction.hpp"
#include "gpufec/polar/encoder.hpp"

namespace gpufec::polar {

namespace {

std::uint32_t log2_exact(std::uint32_t N) {
  require(N >= 2 && N <= (1u << 20) && (N & (N - 1)) == 0,
          "N must be a power of two in [2, 2^20] (N = ", N, ")");
  std::uint32_t m = 0;
  while ((1u << m) < N) ++m;
  return m;
}

std::vector<std::uint8_t> mask_from_frozen(std::uint32_t N, std::span<const std::uint32_t> frozen) {
  std::vector<std::uint8_t> mask(N, 0);
  for (std::uint32_t j : frozen) mask[j] = 1;
  return mask;
}

// Indices (a frozen or an info set) -> frozen mask, every defect named. `where(i)` says where the
// i-th index came from ("index 3 of FILE").
template <class Where, class Error>
std::vector<std::uint8_t> mask_from_indices(std::uint32_t N, std::span<const std::uint32_t> indices,
                                            index_set which, std::uint32_t expected, Where where,
                                            Error fail) {
  std::vector<std::uint8_t> seen(N, 0);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const std::uint32_t j = indices[i];
    if (j >= N) fail(cat(where(i), " is ", j, ", outside [0, N) = [0, ", N, ")"));
    if (seen[j]) fail(cat(where(i), " repeats index ", j));
    seen[j] = 1;
  }
  if (indices.size() != expected)
    fail(cat("expected ", expected, " ", name_of(which), " indices (",
             which == index_set::frozen ? "N - K" : "K", "), found ", indices.size()));
  if (which == index_set::frozen) return seen;
  for (auto& s : seen) s = !s;
  return seen;
}

}  // namespace

construction_spec construction_spec::parse(std::string_view text) {
  construction_spec spec;
  auto design = [&](std::string_view prefix, construction method) {
    if (text.substr(0, prefix.size()) != prefix) return false;
    const std::string number(text.substr(prefix.size()));
    char* end = nullptr;
    spec.design_snr_db = std::strtod(number.c_str(), &end);
    require(!number.empty() && end == number.c_str() + number.size(), "the design SNR in '", text,
            "' is not a number (expected e.g. ", prefix, "2.5)");
    spec.method = method;
    return true;
  };
  if (text == "5g") return spec;
  if (design("ga:", construction::gaussian_approximation)) return spec;
  if (design("bhatt:", construction::bhattacharyya)) return spec;
  require(!text.empty(), "the construction is empty (expected 5g, ga:SNR, bhatt:SNR or a file)");
  spec.method = construction::file;
  spec.path = std::string(text);
  return spec;
}

std::string construction_spec::to_string() const {
  switch (method) {
    case construction::nr5g:
      return "5g";
    case construction::file:
      return path;
    default:
      return cat(name_of(method), ":", design_snr_db);
  }
}

// The frozen mask a parsed frozen-set file gives a code of length N with K information bits.
std::vector<std::uint8_t> mask_from_file(const frozen_set_file& file, std::uint32_t N,
                                         std::uint32_t K, std::string_view source) {
  // A file that names its length and information bits is for that code only.
  require(!file.N || file.N == N, "the frozen-set file ", source, " is for N = ", file.N,
          " (its N line), not N = ", N);
  require(!file.K || file.K == K, "the frozen-set file ", source, " is for K = ", file.K,
          " (its K line), not K = ", K);
  const std::uint32_t expected = file.which == index_set::frozen ? N - K : K;
  return mask_from_indices(
      N, file.indices, file.which, expected,
      [&](std::size_t i) { return cat(source, " line ", file.lines[i], ": index ", i); },
      [&](const std::string& why) {
        throw format_error(cat("frozen-set file ", source, ": ", why, " for N = ", N, ", K = ", K));
      });
}

std::vector<std::uint8_t> parse_index_file(std::string_view text, std::uint32_t N, std::uint32_t K,
                                           std::string_view source) {
  return mask_from_file(parse_frozen_set_file(text, source), N, K, source);
}

polar_code::polar_code(std::uint32_t N, std::uint32_t K, const construction_spec& spec,
                       encoding enc)
    : N_(N), K_(K), m_(log2_exact(N)), spec_(spec), encoding_(enc) {
  require(K >= 1 && K <= N, "K must lie in [1, N] = [1, ", N, "] (K = ", K, ")");
  std::vector<std::uint32_t> frozen;
  switch (spec.method) {
    case construction::nr5g: {
      const auto q = nr5g_sequence_for(N);  // ascending reliability: the first N - K are frozen
      frozen.assign(q.begin(), q.begin() + (N - K));
      break;
    }
    case construction::bhattacharyya: {
      auto log_z = bhattacharyya_log_z(N, design_esn0(spec.design_snr_db, N, K));
      for (double& z : log_z) z = -z;  // reliability: larger is better
      frozen = least_reliable(log_z, N - K);
      break;
    }
    case construction::gaussian_approximation:
      frozen = least_reliable(
          gaussian_approximation_means(N, design_esn0(spec.design_snr_db, N, K)), N - K);
      break;
    case construction::file:
      set_frozen(mask_from_file(read_frozen_set_file(spec.path), N, K, spec.path));
      return;
  }
  set_frozen(mask_from_frozen(N, frozen));
}

polar_code polar_code::from_indices(std::uint32_t N, std::span<const std::uint32_t> indices,
                                    index_set which, encoding enc) {
  polar_code code;
  code.N_ = N;
  code.m_ = log2_exact(N);
  code.encoding_ = enc;
  const auto count = static_cast<std::uint32_t>(indices.size());
  code.K_ = which == index_set::info ? count : N - std::min(count, N);
  require(code.K_ >= 1, "a code needs at least one information bit (", count, " ", name_of(which),
          " indices for N = ", N, ")");
  code.spec_.method = construction::file;
  code.spec_.path = cat("(", count, " ", name_of(which), " indices)");
  code.set_frozen(mask_from_indices(
      N, indices, which, count, [](std::size_t i) { return cat("index ", i); },
      [](const std::string& why) { throw invalid_argument(why); }));
  return code;
}

void polar_code::set_frozen(std::vector<std::uint8_t> frozen_mask) {
  frozen_ = std::move(frozen_mask);
  frozen_positions_.clear();
  info_positions_.clear();
  for (std::uint32_t j = 0; j < N_; ++j)
    (frozen_[j] ? frozen_positions_ : info_positions_).push_back(j);
  K_ = static_cast<std::uint32_t>(info_positions_.size());
  if (systematic()) {
    // Systematic encoding by x = ((v G) with x_F cleared) G is right iff (G_AA)^2 = I. Check it
    // on 64 pseudo-random information words at once (one bit lane each): a wrong G_AA^2 - I != 0
    // passes a random word with probability <= 1/2, so all 64 with <= 2^-64.
    std::vector<std::uint64_t> word(N_, 0), start(K_);
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    for (auto& s : start) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
      s = state;
    }
    for (std::uint32_t k = 0; k < K_; ++k) word[info_positions_[k]] = start[k];
    polar_transform_words(word);
    for (std::uint32_t j : frozen_positions_) word[j] = 0;
    polar_transform_words(word);  // x = u G with u = y', u_F = 0: x_A must be the information
    bool ok = true;
    for (std::uint32_t k = 0; k < K_; ++k) ok = ok && word[info_positions_[k]] == start[k];
    require(
        ok,
        "systematic encoding needs an information set whose G_AA is its own inverse (sets "
        "closed under the polar partial order are, as the usual constructions' are): this one (",
        spec_.to_string(), ", N = ", N_, ", K = ", K_, ") is not");
  }
}

std::string polar_code::describe() const {
  return cat("polar N=", N_, " K=", K_, " (rate ", rate(), ") construction ", spec_.to_string(),
             ", ", name_of(encoding_));
}

void polar_code::write_frozen_set(std::ostream& os) const {
  os << "# gpufec polar frozen set: " << describe() << "\nN " << N_ << "\nK " << K_ << "\n# "
     << frozen_positions_.size()
     << " frozen indices of u (x = u F^(x)m, natural order), ascending\nfrozen\n";
  for (std::size_t i = 0; i < frozen_positions_.size(); ++i)
    os << frozen_positions_[i]
       << ((i % 16 == 15 || i + 1 == frozen_positions_.size()) ? "\n" : " ");
}

}  // namespace gpufec::polar
