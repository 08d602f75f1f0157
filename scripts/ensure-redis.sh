#!/usr/bin/env bash
# The live-class tests (tests/app/room) run against a real redis-server they start themselves
# (Debian's package). Install it when we can (root + apt); otherwise say why they are skipped.
set -u
for c in "${DPLAB_REDIS_SERVER:-}" "$(command -v redis-server 2>/dev/null)" /usr/bin/redis-server; do
  if [ -n "$c" ] && [ -x "$c" ]; then echo "redis-server: $c"; exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis-server not found: installing Debian's redis-server with apt-get"
  # No init system runs in CI containers; policy-rc.d keeps apt from starting the service anyway.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) \
    && { echo "redis-server: /usr/bin/redis-server"; exit 0; }
  echo "WARNING: apt-get could not install redis-server; the Redis tests will be SKIPPED."
  exit 0
fi
echo "WARNING: no redis-server found and this user cannot apt-get install it;"
echo "         the Redis tests (tests/app/room) will be SKIPPED (the in-process store is still tested)."
exit 0
