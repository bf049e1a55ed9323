# Sourced by tests/cli/export_*.sh: installs the npm packages of tests/browser (pinned by
# package-lock.json) into $BUILD_DIR/browser-tests with `npm ci` (the npm cache makes
# repeated installs offline) and copies the test scripts there. Sets BROWSER_TESTS.
browser_setup() {
  local src="$SOURCE_DIR/tests/browser"
  BROWSER_TESTS="$BUILD_DIR/browser-tests"
  command -v node >/dev/null || { echo "node is missing: run scripts/setup" >&2; return 1; }
  command -v npm >/dev/null || { echo "npm is missing: run scripts/setup" >&2; return 1; }
  mkdir -p "$BROWSER_TESTS"
  cp "$src"/package.json "$src"/package-lock.json "$src"/*.mjs "$BROWSER_TESTS"/
  local stamp="$BROWSER_TESTS/node_modules/.perfx-lock-stamp"
  if ! cmp -s "$src/package-lock.json" "$stamp" 2>/dev/null; then
    (cd "$BROWSER_TESTS" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error) >&2 \
      || return 1
    cp "$src/package-lock.json" "$stamp"
  fi
}

# chromium_setup: browser_setup for a script that drives headless Chromium; exits 77
# (skipped) when there is no Chromium at ${CHROMIUM:-/usr/bin/chromium}.
chromium_setup() {
  if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
    echo "chromium not installed (${CHROMIUM:-/usr/bin/chromium}): skipping"
    exit 77
  fi
  browser_setup
}
