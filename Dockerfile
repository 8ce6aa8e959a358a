# suggestbot: the Slack app, served over HTTP (Slack's requests at /slack/events).
FROM python:3.11-slim

# MALLOC_ARENA_MAX=2: glibc gives each busy thread an arena of its own, and a replica's many
# worker threads kept its memory growing for half an hour of traffic (+0.5-0.6 MB a minute
# still at 30 min); with two arenas it levelled off after about 17 minutes (bench/README.md,
# the soak).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    MALLOC_ARENA_MAX=2 \
    PIP_NO_CACHE_DIR=1 \
    SUGGESTBOT_DATA_DIR=/data \
    PORT=3000

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /app suggestbot \
    && mkdir -p /data \
    && chown suggestbot /data

USER suggestbot
# Smoke test at build, as the user the image runs as: the installed package (no source tree, no
# test extras) starts, and every command loads its code and answers --help.
RUN suggestbot --help \
    && for command in serve sandbox demo backup db rotate-keys; do \
        suggestbot "$command" --help > /dev/null || exit 1; \
    done
# Relative paths (the demo's transcript, a backup's target) land in the data volume.
WORKDIR /data
VOLUME ["/data"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '3000'), timeout=4)" || exit 1

ENTRYPOINT ["suggestbot"]
CMD ["serve"]
