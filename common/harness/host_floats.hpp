// Host arrays of floats that large batches can afford: a batch of 2^20
// matrices of n = k = 64 holds 16 GiB in each of A, B and X.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace harness {

// std::allocator, except that a float made by resize() or by the size
// constructor is left unwritten rather than zeroed. A zeroing vector would
// touch every page of 16 GiB on one thread before anyone fills it.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <typename U>
    UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* const p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* const p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

using HostFloats = std::vector<float, UninitializedAllocator<float>>;

// `count` copies of `value`, written by all cores, so that the first touch of
// the pages (and the kernel's zeroing of them) is spread over the cores too.
HostFloats filled_floats(int64_t count, float value);

}  // namespace harness
