// cudalab CPU backend: cooperative_groups::reduce over a tile, with CUDA's operators.
//
// The result must be the GPU's to the last bit, floats included, so the order of the
// operations is CUDA's: int and unsigned with plus, less, greater and the bitwise operators
// take one warp reduction (sm_80's redux instruction, exact in any order); everything else
// takes a butterfly of shfl_xor steps, halving the distance from Size / 2 down to 1, each
// thread combining op(its value, its partner's).
#pragma once
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {

// The emulator's warp reduction for Op over values of type V, or -1 where there is none.
template <class Op, class V>
constexpr int redux_op() {
  if constexpr (!std::is_same_v<V, int> && !std::is_same_v<V, unsigned>)
    return -1;
  else if constexpr (std::is_same_v<Op, plus<V>>)
    return cudalab_cpu::kReduceAdd;
  else if constexpr (std::is_same_v<Op, less<V>>)
    return cudalab_cpu::kReduceMin;
  else if constexpr (std::is_same_v<Op, greater<V>>)
    return cudalab_cpu::kReduceMax;
  else if constexpr (std::is_same_v<Op, bit_and<V>>)
    return cudalab_cpu::kReduceAnd;
  else if constexpr (std::is_same_v<Op, bit_or<V>>)
    return cudalab_cpu::kReduceOr;
  else if constexpr (std::is_same_v<Op, bit_xor<V>>)
    return cudalab_cpu::kReduceXor;
  else
    return -1;
}

}  // namespace details

// The op-combination of every value of the tile, returned to each of its threads.
template <unsigned Size, class Parent, class T, class Op>
inline auto reduce(const thread_block_tile<Size, Parent>& tile, const T& value, Op&& op,
                   const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  using V = cudalab_cpu::lockstep_value_t<T>;
  using R = std::remove_cvref_t<decltype(op(std::declval<V>(), std::declval<V>()))>;  // CUDA's result type
  R out = R(V(value));
  constexpr int redux = std::is_same_v<R, V> ? details::redux_op<std::remove_cvref_t<Op>, V>() : -1;
  if constexpr (redux >= 0) {
    // The emulator's reductions read bit 40 as "signed" (cuda_runtime.h's __reduce_*_sync).
    uint64_t bits = uint64_t(uint32_t(out)) | (std::is_signed_v<V> ? 1ull << 40 : 0);
    unsigned mask = details::tile_mask(Size);
    return R(uint32_t(cudalab_cpu::warp_collective(redux, mask, bits, 0, 32, file, line)));
  } else {
    for (unsigned distance = Size / 2; distance > 0; distance /= 2)
      out = op(out, tile.shfl_xor(out, distance, file, line));
    return out;
  }
}

namespace details {
template <class Group>
inline constexpr bool is_tile = false;
template <unsigned Size, class Parent>
inline constexpr bool is_tile<thread_block_tile<Size, Parent>> = true;

// CUDA reduces tiles (and coalesced groups) only: a whole block needs shared memory. Refused
// while the call's return type is worked out, so this is the first error at the call.
template <class Group>
struct reduce_refused {
  static_assert(refused<Group>,
                "cooperative_groups::reduce takes a tile (tiled_partition<32>(block), say), not a whole block: "
                "reduce each tile, then combine the results of the tiles through shared memory");
  using type = int;
};
}  // namespace details

template <class Group, class T, class Op>
requires(!details::is_tile<Group>) inline typename details::reduce_refused<Group>::type
    reduce(const Group&, const T&, Op&&) {
  return 0;
}

}  // namespace cooperative_groups
