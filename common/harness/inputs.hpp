// The input families every step is checked on, drawn from a seed.
#pragma once

#include "host_floats.hpp"
#include "problem.hpp"

#include <cstdint>
#include <vector>

namespace harness {

enum class Family {
    // Diagonal in [1, 2], off-diagonal entries in [-1/n, 1/n]: diagonally
    // dominant, so κ(A) stays small and the float result is close to exact.
    well_conditioned,
    // test-backend-ops' own init: every entry on or below the diagonal in
    // [0.1, 1], zero above, B in [-1, 1]. Badly conditioned (solutions near
    // 1e7 at n = 64); judged by test-backend-ops' rule, NMSE <= 1e-7.
    backend_ops,
    // The gated delta rule's system (Qwen3-Next): A = I + L with L strictly
    // lower, L[i][j] = beta_i (k_i . k_j) exp(g_i - g_j) for unit keys k, beta
    // in (0, 1) and a decreasing cumulative log-decay g, so |L| <= 1; B = -L
    // (its first k columns; columns past n are zero). X = (I + L)^-1 - I when k = n.
    delta_rule,
    // An integer solution X (no zeros) with integer off-diagonal entries and a
    // diagonal of powers of two, B = A·X: every float operation of the solve
    // is exact, so every step must reproduce X bit for bit.
    exact,
    // The four above in turn, matrix by matrix: matrix m is drawn, and
    // judged, as all_families[m % 4] would draw and judge it. One batch, one
    // launch and one pass of the judge check a large shape on every family.
    mixed,
};

constexpr Family all_families[] = {Family::well_conditioned, Family::backend_ops, Family::delta_rule, Family::exact};

const char* family_name(Family family);

// The family matrix m of a batch is drawn from: `family` itself, or for
// Family::mixed one of the four in turn.
Family family_of_matrix(Family family, int64_t m);

// What a NaN looks like in the buffers: the gaps between batch matrices, the
// never-read upper triangle of A (except in backend_ops, which zeroes it) and,
// on the device, the output before every launch. 0xFFFFFFFF is what a
// cudaMemset with 0xFF writes.
constexpr uint32_t poison_bits = 0xFFFFFFFFu;
float              poison_value();

struct Inputs {
    HostFloats A;        // problem.a_elements() elements, strided as the problem says
    HostFloats B;        // problem.b_elements() elements
    HostFloats X_exact;  // families exact and mixed only: the solution, problem.x_elements() elements
};

// Draws a family's inputs for a problem; the same seed gives the same inputs.
Inputs make_inputs(Family family, const Problem& problem, uint64_t seed);

// A seed for one check, derived from the run's seed and what identifies the check.
uint64_t derive_seed(uint64_t run_seed, uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0);

}  // namespace harness
