/* The bundled demo workload for `make demo`: a small program with a known
 * shape. About 60% of its time is in hot_loop() (via compute()), 30% in
 * checksum() and 10% in slow_path(), each called from main(), so a profile of it has an
 * obvious answer. It is built at -O0 with frame pointers in every function (leaves too),
 * so that every sample's stack is complete; tests/cli/demo_shares.sh checks the shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t hot_loop(uint64_t n) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ull + i;
  return x;
}

__attribute__((noinline)) static uint64_t compute(uint64_t n) { return hot_loop(n); }

__attribute__((noinline)) static uint64_t checksum(const unsigned char* buf, size_t len,
                                                   int rounds) {
  uint64_t s = 0;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < len; ++i) s = (s << 5) + s + buf[i];
  return s;
}

__attribute__((noinline)) static uint64_t slow_path(uint64_t n) {
  uint64_t acc = 1;
  for (uint64_t i = 1; i < n; ++i) acc += (acc % i) ^ i;
  return acc;
}

int main(int argc, char** argv) {
  /* scale: 1.0 is about 35 ms of work on the development VM (30 is about one second) */
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (scale <= 0) scale = 1.0;
  size_t len = 1 << 16;
  unsigned char* buf = malloc(len);
  if (!buf) return 1;
  for (size_t i = 0; i < len; ++i) buf[i] = (unsigned char)(i * 31);
  for (int iter = 0; iter < 10; ++iter) {
    sink += compute((uint64_t)(15e6 * scale / 10));
    sink += checksum(buf, len, (int)(84 * scale / 10) + 1);
    sink += slow_path((uint64_t)(0.8e6 * scale / 10));
  }
  free(buf);
  printf("demo done (%llu)\n", (unsigned long long)(sink & 0xff));
  return 0;
}
