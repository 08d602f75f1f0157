#!/usr/bin/env bash
# Browser tests need a Chromium. Install Debian's when we can (root + apt); otherwise say why
# the browser tests will be skipped. Never downloads a browser build of its own.
set -u
for c in "${DPLAB_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser \
         "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
         "/Applications/Chromium.app/Contents/MacOS/Chromium"; do
  if [ -n "$c" ] && [ -x "$c" ]; then echo "chromium: $c"; exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium not found: installing Debian's chromium with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-nanum >/dev/null) \
    && { echo "chromium: /usr/bin/chromium"; exit 0; }
  echo "WARNING: apt-get could not install chromium; browser tests (tests/ui) will be SKIPPED."
  exit 0
fi
echo "WARNING: no Chromium found and this user cannot apt-get install one;"
echo "         browser tests (tests/ui) will be SKIPPED. Set DPLAB_CHROMIUM=/path/to/chromium."
exit 0
