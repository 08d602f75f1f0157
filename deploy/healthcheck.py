"""Container HEALTHCHECK: GET /healthz on this container's port (through the balancer when it
runs one). Exit 0 when it answers 200 within 4 s, else 1. Standard library only."""

import os
import sys
import urllib.request

port = os.environ.get("DPLAB_PORT", "5006").strip() or "5006"
prefix = os.environ.get("DPLAB_PREFIX", "").strip().strip("/")
url = f"http://127.0.0.1:{port}{'/' + prefix if prefix else ''}/healthz"
try:
    with urllib.request.urlopen(url, timeout=4) as r:
        sys.exit(0 if r.status == 200 else 1)
except OSError as exc:
    print(f"healthcheck {url}: {exc}", file=sys.stderr)
    sys.exit(1)
