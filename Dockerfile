# syntax=docker/dockerfile:1
# Tapline: one Node process serving the Remix portal, /graphql and /healthz.
# Build:  docker build -t tapline .
# Run:    see docker-compose.yml and docs/deploy.md

ARG NODE_IMAGE=node:20-bookworm-slim
# The backup stage's base: the PostgreSQL server's own image, so pg_dump and pg_restore are of its
# major version (pg_dump refuses a newer server). Match docker-compose.yml's db service.
ARG POSTGRES_IMAGE=postgres:16

# --- production dependencies only (tsx is a runtime dependency, so it stays) ---
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# patches/: npm's postinstall applies them (patch-package) to the libraries the server runs.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- full install + Remix build (needs dev dependencies) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- backup: `npm run backup`/`restore` with the PostgreSQL client of the server's version ---
# docker compose run --rm backup (docs/deploy.md, "Backups"). Node from the node image (both are
# Debian 12), the app's code and production dependencies; no portal build.
FROM ${NODE_IMAGE} AS node
FROM ${POSTGRES_IMAGE} AS backup
COPY --from=node /usr/local/bin/node /usr/local/bin/node
ENV NODE_ENV=production \
    TAPLINE_DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
ENTRYPOINT []
CMD ["node_modules/.bin/tsx", "api/db/backup-cli.ts", "/backups"]

# --- runtime (the last stage: what `docker build .` makes) ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    TAPLINE_DATA_DIR=/app/data
WORKDIR /app

# Code and dependencies stay owned by root (read-only for the app user);
# only the data folder (uploads) is writable by the non-root user.
COPY --from=deps /app/node_modules ./node_modules
COPY . .
COPY --from=build /app/build ./build
RUN mkdir -p /app/data/uploads \
 && chown -R node:node /app/data

USER node
VOLUME ["/app/data"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Runs database migrations, then serves on PORT. (Skips `npm start`'s prestart
# build check: the build is already in the image.)
CMD ["node_modules/.bin/tsx", "api/main.ts"]
