# Shared by the perfx-vs-perf bench scripts (sourced, not run).

# perf and perfx run alternately, 5 times each, and each tool's median wall time is kept:
# load from elsewhere on a shared machine then hits both tools alike.
RUNS=${RUNS:-5}
median_pair() {  # command-a-args... -- command-b-args... -> "median_a median_b"
  local a=() b=() ta=() tb=() s e
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N); "${a[@]}" >/dev/null 2>&1; e=$(date +%s.%N)
    ta+=("$(echo "$e - $s" | bc -l)")
    s=$(date +%s.%N); "${b[@]}" >/dev/null 2>&1; e=$(date +%s.%N)
    tb+=("$(echo "$e - $s" | bc -l)")
  done
  local mid=$(((RUNS + 1) / 2))
  echo "$(printf '%s\n' "${ta[@]}" | sort -g | sed -n "${mid}p") $(printf '%s\n' "${tb[@]}" | sort -g | sed -n "${mid}p")"
}
peak_rss() {  # command... -> KiB
  /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
