#include "gpufec/sync/tvb_code.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "gpufec/common/error.hpp"
#include "gpufec/common/philox.hpp"

namespace gpufec::sync {
namespace {

constexpr std::uint64_t kHuge = ~std::uint64_t{0};

// alphabet^n, saturated at kHuge when it does not fit in 64 bits.
std::uint64_t word_count(int alphabet, int n) {
  std::uint64_t w = 1;
  for (int i = 0; i < n; ++i) {
    if (w > kHuge / static_cast<std::uint64_t>(alphabet)) return kHuge;
    w *= static_cast<std::uint64_t>(alphabet);
  }
  return w;
}

std::string word_string(const std::uint8_t* w, int n) {
  std::string s;
  for (int b = 0; b < n; ++b) s += std::to_string(int{w[b]});
  return s;
}

// Writes the n base-`alphabet` digits of `value`, most significant first.
void write_digits(std::uint64_t value, int alphabet, int n, std::uint8_t* out) {
  for (int b = n - 1; b >= 0; --b) {
    out[b] = static_cast<std::uint8_t>(value % static_cast<std::uint64_t>(alphabet));
    value /= static_cast<std::uint64_t>(alphabet);
  }
}

// Uniform integer in [0, n), n >= 1, from 64-bit draws (rejection on the top range).
std::uint64_t below64(philox_stream& rng, std::uint64_t n) {
  if (n <= 0xFFFFFFFFull) return rng.next_below(static_cast<std::uint32_t>(n));
  const std::uint64_t limit = (0 - n) % n;  // 2^64 mod n
  for (;;) {
    const std::uint64_t hi = rng.next_u32();
    const std::uint64_t v = (hi << 32) | rng.next_u32();
    if (v >= limit) return v % n;
  }
}

// A uniformly random ordered q-subset of the alphabet^n words, written as q codewords.
void random_codebook(philox_stream& rng, int q, int n, int alphabet, std::uint8_t* out) {
  const std::uint64_t W = word_count(alphabet, n);
  const auto uq = static_cast<std::uint64_t>(q);
  if (W <= 4 * uq) {
    // Dense: partial Fisher-Yates over all the words.
    std::vector<std::uint64_t> words(W);
    for (std::uint64_t w = 0; w < W; ++w) words[w] = w;
    for (std::uint64_t k = 0; k < uq; ++k) {
      const std::uint64_t r = k + below64(rng, W - k);
      std::swap(words[k], words[r]);
      write_digits(words[k], alphabet, n, out + k * static_cast<std::uint64_t>(n));
    }
    return;
  }
  // Sparse (at least 3/4 of the draws are accepted): uniform words, rejecting repeats.
  if (W != kHuge) {
    std::unordered_set<std::uint64_t> seen;
    seen.reserve(2 * uq);
    for (std::uint64_t k = 0; k < uq;) {
      const std::uint64_t w = below64(rng, W);
      if (!seen.insert(w).second) continue;
      write_digits(w, alphabet, n, out + k * static_cast<std::uint64_t>(n));
      ++k;
    }
    return;
  }
  // alphabet^n beyond 64 bits: draw the digits one by one and key on the digit string.
  std::unordered_set<std::string> seen;
  seen.reserve(2 * uq);
  std::string w(static_cast<std::size_t>(n), '\0');
  for (std::uint64_t k = 0; k < uq;) {
    for (auto& c : w) c = static_cast<char>(rng.next_below(static_cast<std::uint32_t>(alphabet)));
    if (!seen.insert(w).second) continue;
    std::copy(w.begin(), w.end(), out + k * static_cast<std::uint64_t>(n));
    ++k;
  }
}

}  // namespace

// Checks the sizes every code shares.
static void validate_shape(int q, int n, int N, int alphabet) {
  require(alphabet >= 2 && alphabet <= 256, "TVB code: alphabet = ", alphabet,
          " must be in [2, 256]");
  require(q >= 2, "TVB code: q = ", q, " must be >= 2");
  require(n >= 1 && n <= 32, "TVB code: n = ", n, " must be in [1, 32]");
  require(N >= 1, "TVB code: N = ", N, " must be >= 1");
  const std::uint64_t W = word_count(alphabet, n);
  require(static_cast<std::uint64_t>(q) <= W, "TVB code: q = ", q, " exceeds alphabet^n = ", W,
          " (n = ", n, ")");
}

tvb_code::tvb_code(int q, int n, int N, std::vector<codebook> codebooks,
                   std::vector<std::uint8_t> marker, int alphabet)
    : q_(q),
      n_(n),
      N_(N),
      alphabet_(alphabet),
      codebooks_(std::move(codebooks)),
      marker_(std::move(marker)) {
  validate_shape(q, n, N, alphabet);
  require(!codebooks_.empty(), "TVB code: no codebook given");
  require(codebooks_.size() <= static_cast<std::size_t>(N), "TVB code: ", codebooks_.size(),
          " codebooks for only N = ", N, " positions");
  const auto qn = static_cast<std::size_t>(q) * static_cast<std::size_t>(n);
  for (std::size_t c = 0; c < codebooks_.size(); ++c) {
    const codebook& cb = codebooks_[c];
    require(cb.q == q && cb.n == n, "TVB code: codebook ", c, " has q = ", cb.q, ", n = ", cb.n,
            " but the code has q = ", q, ", n = ", n);
    require(cb.symbols.size() == qn, "TVB code: codebook ", c, " holds ", cb.symbols.size(),
            " symbols, expected q*n = ", qn);
    for (std::size_t k = 0; k < qn; ++k)
      require(cb.symbols[k] < alphabet, "TVB code: codebook ", c, ", codeword ", k / n, ", symbol ",
              k % n, " = ", int{cb.symbols[k]}, " is outside the alphabet of ", alphabet,
              " symbols");
    std::unordered_map<std::string, int> first;
    first.reserve(2 * static_cast<std::size_t>(q));
    for (int D = 0; D < q; ++D) {
      const std::uint8_t* w = cb.symbols.data() + static_cast<std::size_t>(D) * n;
      const auto [it, fresh] = first.emplace(std::string(w, w + n), D);
      require(fresh, "TVB code: codebook ", c, ": codewords ", it->second, " and ", D,
              " are equal (", word_string(w, n), ")");
    }
  }
  const auto tau = static_cast<std::size_t>(this->tau());
  require(marker_.empty() || marker_.size() == tau, "TVB code: marker has ", marker_.size(),
          " symbols, expected 0 or tau = n*N = ", tau);
  for (std::size_t t = 0; t < marker_.size(); ++t)
    require(marker_[t] < alphabet, "TVB code: marker symbol ", t, " = ", int{marker_[t]},
            " is outside the alphabet of ", alphabet, " symbols");

  table_.resize(static_cast<std::size_t>(N) * qn);
  for (int i = 0; i < N; ++i) {
    const codebook& cb = codebooks_[static_cast<std::size_t>(i) % codebooks_.size()];
    std::uint8_t* row = table_.data() + static_cast<std::size_t>(i) * qn;
    std::copy(cb.symbols.begin(), cb.symbols.end(), row);
    if (marker_.empty()) continue;
    const std::uint8_t* m = marker_.data() + static_cast<std::size_t>(i) * n;
    for (int D = 0; D < q; ++D)
      for (int b = 0; b < n; ++b) {
        std::uint8_t& s = row[static_cast<std::size_t>(D) * n + b];
        s = alphabet == 2 ? static_cast<std::uint8_t>(s ^ m[b])
                          : static_cast<std::uint8_t>((s + m[b]) % alphabet);
      }
  }
}

tvb_code tvb_code::random(int q, int n, int N, std::uint64_t seed, bool random_marker,
                          int alphabet) {
  validate_shape(q, n, N, alphabet);
  std::vector<codebook> books(static_cast<std::size_t>(N));
  for (int i = 0; i < N; ++i) {
    codebook& cb = books[static_cast<std::size_t>(i)];
    cb.q = q;
    cb.n = n;
    cb.symbols.resize(static_cast<std::size_t>(q) * n);
    philox_stream rng(seed, rng_codebook, static_cast<std::uint64_t>(i));
    random_codebook(rng, q, n, alphabet, cb.symbols.data());
  }
  std::vector<std::uint8_t> marker;
  if (random_marker) {
    // The marker's stream: frame N of the codebook stream (positions use frames 0..N-1).
    philox_stream rng(seed, rng_codebook, static_cast<std::uint64_t>(N));
    marker.resize(static_cast<std::size_t>(n) * N);
    for (auto& s : marker)
      s = static_cast<std::uint8_t>(
          alphabet == 2 ? rng.next_bit() : rng.next_below(static_cast<std::uint32_t>(alphabet)));
  }
  return tvb_code(q, n, N, std::move(books), std::move(marker), alphabet);
}

codebook tvb_code::natural(int q, int n) {
  require(q >= 2, "natural codebook: q = ", q, " must be >= 2");
  require(n >= 1 && n <= 32, "natural codebook: n = ", n, " must be in [1, 32]");
  require(static_cast<std::uint64_t>(q) <= word_count(2, n), "natural codebook: q = ", q,
          " exceeds 2^n = ", word_count(2, n), " (n = ", n, ")");
  codebook cb;
  cb.q = q;
  cb.n = n;
  cb.symbols.resize(static_cast<std::size_t>(q) * n);
  for (int D = 0; D < q; ++D)
    write_digits(static_cast<std::uint64_t>(D), 2, n,
                 cb.symbols.data() + static_cast<std::size_t>(D) * n);
  return cb;
}

void tvb_code::encode(std::span<const std::uint32_t> message, std::span<std::uint8_t> frame) const {
  require(message.size() == static_cast<std::size_t>(N_), "encode: message has ", message.size(),
          " symbols, expected N = ", N_);
  require(frame.size() == static_cast<std::size_t>(tau()), "encode: frame has room for ",
          frame.size(), " symbols, expected tau = ", tau());
  for (int i = 0; i < N_; ++i) {
    const std::uint32_t D = message[static_cast<std::size_t>(i)];
    require(D < static_cast<std::uint32_t>(q_), "encode: message symbol ", i, " = ", D,
            " is not below q = ", q_);
    const std::uint8_t* w = codeword(i, static_cast<int>(D));
    std::copy(w, w + n_, frame.begin() + static_cast<std::ptrdiff_t>(i) * n_);
  }
}

}  // namespace gpufec::sync
