// The CPU's cores for the harness's own heavy work: drawing inputs, the
// double-precision reference and the judge run over a batch's matrices in
// parallel, with a progress line once the work takes more than a moment.
#pragma once

#include <cstdint>
#include <functional>

namespace harness {

// Calls body(begin, end) on disjoint ranges that cover [0, count), from as
// many threads as the machine has cores, and returns when all are done; an
// exception thrown by a body is rethrown here, after the others have
// stopped. When `what` is not null and the work runs longer than two seconds,
// a line on stderr says how far it got ("checking: 41 % of 1048576 matrices").
void parallel_for(int64_t count, const std::function<void(int64_t begin, int64_t end)>& body,
                  const char* what = nullptr);

}  // namespace harness
