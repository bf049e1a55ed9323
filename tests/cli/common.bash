# Sourced by the CLI test scripts: $PERFX, a check helper that counts failures in $fail,
# and a scratch directory $tmp removed on exit.
PERFX=${PERFX:-build/bin/perfx}
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
