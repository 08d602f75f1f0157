# dplab course container: the app's workers behind HAProxy, started by scripts/serve-prod.
#   docker build -t dplab .          (podman: podman build --format docker, or no HEALTHCHECK)
#   docker run --rm -p 8080:5006 -e DPLAB_PUBLIC_URL=http://localhost:8080/ dplab
# Configuration: the DPLAB_* variables (see scripts/serve-prod and the README). Nothing is
# fetched at run time; the root file system may be read-only (--read-only --tmpfs /tmp).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# ---- build: the package installed (not editable) into a virtual environment -----------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY app/ app/
COPY dpcore/ dpcore/
COPY lessons/ lessons/
# assets/ is package data (pyproject.toml): pip puts it beside app/ in whichever site-packages
# the base image's Python has, where the code looks for it.
COPY assets/ assets/
# The measured versions, checked against their hashes (requirements/app.lock: `make lock`),
# then the package itself without dependencies. Every dependency comes as a binary wheel: no
# compiler is needed, in this stage or the next.
COPY requirements/app.lock requirements/app.lock
RUN python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --require-hashes --only-binary=:all: -r requirements/app.lock \
 && /opt/venv/bin/pip install --no-deps --no-binary=dplab . \
 && /opt/venv/bin/pip uninstall --yes pip setuptools wheel

# ---- run ---------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends haproxy redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 dplab \
 && useradd --uid 10001 --gid 10001 --home-dir /nonexistent --no-create-home \
      --shell /usr/sbin/nologin dplab
COPY --from=build /opt/venv /opt/venv
COPY scripts/serve-prod /opt/dplab/scripts/serve-prod
COPY deploy/ /opt/dplab/deploy/
# Check at build time that the installed app finds its pages, data and lessons.
RUN /opt/venv/bin/python -c "from app.serve.server import ASSETS_DIR; \
from dpcore.cdf.datasets import DATA_DIR; import lessons; \
assert (ASSETS_DIR / 'dplab.css').is_file() and DATA_DIR.is_dir(), 'assets missing'; \
assert any(lessons.LESSON_DIR.glob('*.toml')), 'lessons missing'; \
print('assets, data and lessons found')"
# DPLAB_MAX_SESSIONS left empty: serve-prod takes what one worker measurably holds (250),
# lowered to what the container's memory limit fits; the start log says which.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DPLAB_PYTHON=/opt/venv/bin/python \
    DPLAB_ADDRESS=0.0.0.0 \
    DPLAB_PORT=5006 \
    DPLAB_WORKERS="" \
    DPLAB_ALLOW_WEBSOCKET_ORIGIN="" \
    DPLAB_PUBLIC_URL="" \
    DPLAB_CONTAINER=1 \
    DPLAB_PREFIX="" \
    DPLAB_FRAME_ANCESTORS="" \
    DPLAB_MAX_SESSIONS="" \
    DPLAB_REDIS_URL="" \
    DPLAB_ROOM_TTL=14400
# DPLAB_TEACHER_TOKEN (the live class) is given at run time (-e), never baked into the image;
# unset, serve-prod makes one and logs it once.
USER 10001:10001
WORKDIR /opt/dplab
EXPOSE 5006
HEALTHCHECK --interval=30s --timeout=6s --start-period=90s --retries=3 \
  CMD ["/opt/venv/bin/python", "/opt/dplab/deploy/healthcheck.py"]
ENTRYPOINT ["/opt/dplab/scripts/serve-prod"]
