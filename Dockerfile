FROM python:3.11-slim
WORKDIR /srv/brikforge
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
COPY . .
# Editable install: templates, static files and migrations are read from this folder.
RUN pip install --no-cache-dir -e . \
 && useradd --system brikforge && mkdir -p var && chown brikforge var
USER brikforge
EXPOSE 8000
# Client addresses (login throttling) come from X-Forwarded-For only through the app's
# TRUSTED_PROXIES setting: uvicorn's own proxy handling would believe 127.0.0.1.
CMD ["sh", "-c", "alembic upgrade head && exec uvicorn app.main:create_app --factory --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY:-4} --no-proxy-headers"]
