# syntax=docker/dockerfile:1

# One image for every process: the API (SWITCHYARD_ROLE=api), the queue workers (SWITCHYARD_ROLE=workers),
# API and worker processes per core under one supervisor (the default, SWITCHYARD_ROLE=all), and the one-shots
# `node dist/scripts/db-migrate.js` / `node dist/prisma/seed.js` and the CLI `node dist/src/cli/main.js`: all compiled
# JavaScript, no TypeScript sources in the image.

# --- build: every dependency, the generated Prisma client, TypeScript compiled to dist/ (src, workers, and the
# migration runner and catalog seed of scripts/ and prisma/: tsconfig.build.json) ---
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
# The project needs no install scripts (see `allowScripts` in package.json); skipping them keeps
# engine downloads and install-time telemetry out of the build.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src ./src
COPY workers ./workers
# The web console's source: `npm run build` bundles it into dist/console (served at /console).
COPY console ./console
# `prebuild` runs `prisma generate`. The generated client imports its own files with a `.ts` extension,
# which plain node cannot resolve in dist/; the flag makes tsc write `.js` instead.
RUN npm run build

# --- deps: production dependencies only ---
FROM node:22-bookworm-slim AS deps
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# --- runtime ---
FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY --from=build /app/dist ./dist
# Read at run time: the migrations' SQL, and the model catalog and router weights beside it.
COPY --from=build /app/prisma/migrations ./prisma/migrations
COPY --from=build /app/prisma/catalog/models.json /app/prisma/catalog/router-weights.json ./prisma/catalog/
# `npm run cli` / `db:migrate` / `db:seed` work here too: with no sources beside dist/, it runs the compiled entry.
COPY --from=build /app/scripts/run-entry.js ./scripts/

# Files stay owned by root: the service can read its code but not change it. The one writable place is
# the OpenAI Files directory (FILE_STORAGE=local), owned by node so a volume mounted on it is too.
RUN mkdir -p /var/lib/switchyard/files && chown node:node /var/lib/switchyard/files
ENV FILE_STORAGE_DIR=/var/lib/switchyard/files
USER node
EXPOSE 8080

# A workers-only process serves no HTTP, so there is nothing to probe.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "if (process.env.SWITCHYARD_ROLE === 'workers') process.exit(0); fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1))"]

CMD ["node", "dist/src/main.js"]
