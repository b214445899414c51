-- One claim per completion run (docs/reliability.md, "Runs at most once"): taken before the first upstream
-- call, so a job handed out twice after a Redis failover calls upstream once. Ids and times only.
-- fillfactor 90 leaves room on each page for the `finished_at` update to stay HOT (no index touches it).

-- CreateTable
CREATE TABLE "completion_claims" (
    "request_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "run" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "completion_claims_pkey" PRIMARY KEY ("request_id")
) WITH (fillfactor = 90);

-- CreateIndex
CREATE INDEX "completion_claims_claimed_at_idx" ON "completion_claims" USING BRIN ("claimed_at");
