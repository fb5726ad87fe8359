// cudalab CPU backend: CUDA's vector types, with CUDA's sizes and alignments.
// They stay trivial (no constructors) so that they can live in __shared__ storage.
#pragma once

#define CUDALAB_CPU_VEC2(T, name, al) \
  struct alignas(al) name {           \
    T x, y;                           \
  };                                  \
  inline name make_##name(T x, T y) { return name{x, y}; }
#define CUDALAB_CPU_VEC3(T, name) \
  struct name {                   \
    T x, y, z;                    \
  };                              \
  inline name make_##name(T x, T y, T z) { return name{x, y, z}; }
#define CUDALAB_CPU_VEC4(T, name, al) \
  struct alignas(al) name {           \
    T x, y, z, w;                     \
  };                                  \
  inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
#define CUDALAB_CPU_VEC1(T, name, al) \
  struct alignas(al) name {           \
    T x;                              \
  };                                  \
  inline name make_##name(T x) { return name{x}; }

CUDALAB_CPU_VEC1(float, float1, 4)
CUDALAB_CPU_VEC2(float, float2, 8)
CUDALAB_CPU_VEC3(float, float3)
CUDALAB_CPU_VEC4(float, float4, 16)
CUDALAB_CPU_VEC1(double, double1, 8)
CUDALAB_CPU_VEC2(double, double2, 16)
CUDALAB_CPU_VEC3(double, double3)
CUDALAB_CPU_VEC4(double, double4, 16)
CUDALAB_CPU_VEC1(int, int1, 4)
CUDALAB_CPU_VEC2(int, int2, 8)
CUDALAB_CPU_VEC3(int, int3)
CUDALAB_CPU_VEC4(int, int4, 16)
CUDALAB_CPU_VEC1(unsigned int, uint1, 4)
CUDALAB_CPU_VEC2(unsigned int, uint2, 8)
CUDALAB_CPU_VEC3(unsigned int, uint3)
CUDALAB_CPU_VEC4(unsigned int, uint4, 16)
CUDALAB_CPU_VEC2(short, short2, 4)
CUDALAB_CPU_VEC4(short, short4, 8)
CUDALAB_CPU_VEC2(unsigned short, ushort2, 4)
CUDALAB_CPU_VEC4(unsigned short, ushort4, 8)
CUDALAB_CPU_VEC2(signed char, char2, 2)
CUDALAB_CPU_VEC4(signed char, char4, 4)
CUDALAB_CPU_VEC2(unsigned char, uchar2, 2)
CUDALAB_CPU_VEC4(unsigned char, uchar4, 4)
CUDALAB_CPU_VEC2(long long, longlong2, 16)
CUDALAB_CPU_VEC2(unsigned long long, ulonglong2, 16)
#undef CUDALAB_CPU_VEC1
#undef CUDALAB_CPU_VEC2
#undef CUDALAB_CPU_VEC3
#undef CUDALAB_CPU_VEC4

// dim3 keeps CUDA's converting constructor, so `k<<<n / 256, 256>>>` and dim3(16, 16) work.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
