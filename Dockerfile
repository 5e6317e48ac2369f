# catalogctl serve in a container: `docker build -t catalogctl .`, then
# `docker run -p 8000:8000 -v "$PWD/content:/srv/content:ro" catalogctl`.
FROM python:3.12-slim AS build
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
# The dependencies at the releases the test suite last passed on (requirements.lock).
COPY requirements.lock /wheels/
RUN pip install --no-cache-dir -c /wheels/requirements.lock /wheels/*.whl \
    && rm -rf /wheels \
    && groupadd --system --gid 10001 catalogctl \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin catalogctl
USER 10001:10001
# The content tree (or a build directory) is mounted here; with none, the bundled sample.
WORKDIR /srv
EXPOSE 8000
# Python's urllib: the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v1', timeout=4)"]
ENTRYPOINT ["catalogctl", "serve", "--host", "0.0.0.0", "--port", "8000"]
CMD []
