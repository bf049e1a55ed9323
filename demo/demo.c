/* The bundled demo workload for `make demo`: a small program with a known
 * shape. About 60% of its time is in hot_loop() (via compute()), 30% in
 * checksum() and 10% in slow_path(), each called from main(), so a profile of it has an
 * obvious answer. It is built at -O0 with frame pointers in every function (leaves too),
 * so that every sample's stack is complete; tests/cli/demo_shares.sh checks the shares.
 * The split is by this thread's CPU time, not by a count of iterations, so it holds
 * whatever compiler built the program (gcc and clang -O0 code differ in speed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  /* scale: 1.0 is about 35 ms of CPU time (30 is about one second) */
  double scale = argc > 1 ? atof(argv[1]) : 1.0;
  if (scale <= 0) scale = 1.0;
  size_t len = 1 << 14;
  unsigned char* buf = malloc(len);
  if (!buf) return 1;
  for (size_t i = 0; i < len; ++i) buf[i] = (unsigned char)(i * 31);
  const double slice = 0.035 * scale / 10;
  for (int iter = 0; iter < 10; ++iter) {
    /* Each call is tens of microseconds: the clock reads between them cost ~1%. */
    double t0 = cpu_seconds();
    while (cpu_seconds() - t0 < 0.6 * slice) sink += compute(20000);
    t0 = cpu_seconds();
    while (cpu_seconds() - t0 < 0.3 * slice) sink += checksum(buf, len, 1);
    t0 = cpu_seconds();
    while (cpu_seconds() - t0 < 0.1 * slice) sink += slow_path(2000);
  }
  free(buf);
  printf("demo done (%llu)\n", (unsigned long long)(sink & 0xff));
  return 0;
}
