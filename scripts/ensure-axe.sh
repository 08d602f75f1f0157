#!/usr/bin/env bash
# The accessibility checks of the browser tests (tests/ui/test_a11y.py) run axe-core in the
# page. It comes from the npm registry with npm (which checks the tarball's integrity), pinned,
# into build/axe-core/ (not in git); never from a CDN. Without npm (and no root + apt to get it)
# those checks are skipped, with the reason.
set -u
VERSION="${DPLAB_AXE_VERSION:-4.14.1}"
DEST="build/axe-core"
cd "$(dirname "$0")/.."
if [ -f "$DEST/axe.min.js" ] && [ "$(cat "$DEST/VERSION" 2>/dev/null)" = "$VERSION" ]; then
  echo "axe-core: $DEST/axe.min.js ($VERSION)"; exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "npm not found: installing Debian's npm with apt-get (for axe-core)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null) \
      || true
  fi
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "WARNING: no npm: the axe-core checks of tests/ui will be SKIPPED."
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if (cd "$tmp" && npm pack --silent "axe-core@$VERSION" >/dev/null 2>&1) \
   && tar -xzf "$tmp"/axe-core-*.tgz -C "$tmp" package/axe.min.js package/LICENSE; then
  mkdir -p "$DEST"
  cp "$tmp/package/axe.min.js" "$tmp/package/LICENSE" "$DEST/"
  echo "$VERSION" > "$DEST/VERSION"
  echo "axe-core: $DEST/axe.min.js ($VERSION, from the npm registry)"
else
  echo "WARNING: npm could not fetch axe-core@$VERSION: the axe-core checks will be SKIPPED."
fi
exit 0
