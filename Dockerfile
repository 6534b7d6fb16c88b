# syntax=docker/dockerfile:1
# opspilot's container image: `node dist/main.js` as uid 10001 under tini, on a read-only root filesystem
# with its SQLite file in the /data volume. docs/deploy.md#the-container-image says what it holds.
#
#   docker build -t opspilot .                      # from node:20-bookworm-slim
#   npm run image                                   # the same file with no image registry (scripts/build-image.sh)
#
# `npm ci` reads an npmrc handed over as a build secret when the registry needs settings
# (`--secret id=npmrc,src=$HOME/.npmrc`, plus `--secret id=npm_ca,src=<CA file>` named in it as
# `cafile=/run/secrets/npm_ca`); nothing of them stays in a layer.
ARG BASE_IMAGE=node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
# better-sqlite3 is compiled here against the base's Node headers (nodedir) rather than fetched as a
# prebuilt binary, so the build reaches nothing but the npm registry and the Debian mirror.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ tini \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local \
  npm_config_build_from_source=true \
  npm_config_update_notifier=false \
  npm_config_fund=false \
  npm_config_audit=false
WORKDIR /app
COPY package.json package-lock.json ./
# Only what running needs: TypeScript and the type packages the build uses are runtime dependencies,
# so `--omit=dev` installs everything `npm run build` needs. Scripts are skipped here (the package's own
# `prepare` builds src/, copied below) and run for the two dependencies that have any.
RUN --mount=type=secret,id=npmrc --mount=type=secret,id=npm_ca \
  NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --omit=dev --ignore-scripts \
  && npm rebuild better-sqlite3 esbuild \
  && rm -rf /root/.npm /root/.cache
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${BASE_IMAGE}
# The server binds every interface, which it refuses without OPSPILOT_API_TOKENS or OPSPILOT_OIDC_ISSUER.
# Writes go to /data (the SQLite file) and /tmp (npx's cache for MCP servers started with npx) only.
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8787 \
  OPSPILOT_DB=/data/opspilot.db \
  HOME=/tmp \
  npm_config_cache=/tmp/.npm \
  npm_config_update_notifier=false
RUN groupadd --system --gid 10001 opspilot \
  && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin opspilot \
  && install -d -m 0750 -o 10001 -g 10001 /data
# tini as PID 1: it forwards SIGTERM to node (PID 1 gets no default signal actions) and reaps the
# zombies that MCP servers' own children leave behind.
COPY --from=build /usr/bin/tini-static /usr/bin/tini
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY public ./public
VOLUME ["/data"]
USER 10001:10001
EXPOSE 8787
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
# Last, so a new revision rebuilds only this layer.
ARG VERSION=0.0.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="opspilot" \
  org.opencontainers.image.description="A production ReAct agent runtime for operations, on LangGraph.js" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.revision="${REVISION}" \
  org.opencontainers.image.documentation="docs/deploy.md"
