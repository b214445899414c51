-- Async jobs' records move from Redis to PostgreSQL (docs/async-jobs.md): a finished job stays readable
-- after Redis loses its data. Records still in Redis when this deploys are not copied: jobs queued at
-- that moment answer 404 once they end (their TTL was at most ASYNC_RESULT_TTL_SECONDS anyway).

-- CreateTable
CREATE TABLE "async_jobs" (
    "id" TEXT NOT NULL,
    "org_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "model" TEXT,
    "webhook_url" TEXT,
    "outcome" JSONB,
    "webhook" JSONB,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "async_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "async_jobs_app_id_idx" ON "async_jobs"("app_id");

-- CreateIndex
CREATE INDEX "async_jobs_expires_at_idx" ON "async_jobs"("expires_at");
