#!/usr/bin/env bash
# scripts/serve-prod puts HAProxy (Debian's package) in front of the workers; its tests need it.
# Install it when we can (root + apt); otherwise say why those tests will be skipped.
set -u
for c in "${DPLAB_HAPROXY:-}" "$(command -v haproxy 2>/dev/null)" /usr/sbin/haproxy; do
  if [ -n "$c" ] && [ -x "$c" ]; then echo "haproxy: $c"; exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "haproxy not found: installing Debian's haproxy with apt-get"
  # No init system runs in CI containers; policy-rc.d keeps apt from starting the service anyway.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null) \
    && { echo "haproxy: /usr/sbin/haproxy"; exit 0; }
  echo "WARNING: apt-get could not install haproxy; serve-prod tests will be SKIPPED."
  exit 0
fi
echo "WARNING: no haproxy found and this user cannot apt-get install it;"
echo "         serve-prod tests (tests/test_serve_prod.py) will be SKIPPED."
exit 0
