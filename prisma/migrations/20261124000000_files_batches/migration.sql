-- OpenAI Files and Batches (issue 11): files per organization (bytes in the file store), batches run in
-- a Space, and each batch's lines with their bodies and results.

-- CreateEnum
CREATE TYPE "batch_status" AS ENUM ('validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled');

-- CreateEnum
CREATE TYPE "batch_line_state" AS ENUM ('pending', 'queued', 'running', 'succeeded', 'failed', 'expired', 'cancelled');

-- CreateTable
CREATE TABLE "openai_files" (
    "id" TEXT NOT NULL,
    "org_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "line_count" INTEGER NOT NULL,
    "storage_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "openai_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" TEXT NOT NULL,
    "org_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "idp_id" TEXT NOT NULL,
    "queue_prefix" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "input_file_id" TEXT NOT NULL,
    "completion_window" TEXT NOT NULL,
    "status" "batch_status" NOT NULL DEFAULT 'validating',
    "metadata" JSONB,
    "errors" JSONB,
    "output_file_id" TEXT,
    "error_file_id" TEXT,
    "total_count" INTEGER NOT NULL DEFAULT 0,
    "completed_count" INTEGER NOT NULL DEFAULT 0,
    "failed_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "in_progress_at" TIMESTAMPTZ(3),
    "finalizing_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "expired_at" TIMESTAMPTZ(3),
    "cancelling_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_lines" (
    "batch_id" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "app_id" UUID NOT NULL,
    "custom_id" TEXT NOT NULL,
    "body" JSONB,
    "state" "batch_line_state" NOT NULL DEFAULT 'pending',
    "request_id" UUID,
    "outcome" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batch_lines_pkey" PRIMARY KEY ("batch_id","line")
);

-- CreateIndex
CREATE INDEX "openai_files_org_id_created_at_idx" ON "openai_files"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "batches_org_id_created_at_idx" ON "batches"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "batches_queue_prefix_status_idx" ON "batches"("queue_prefix", "status");

-- CreateIndex
CREATE UNIQUE INDEX "batch_lines_batch_id_custom_id_key" ON "batch_lines"("batch_id", "custom_id");

-- CreateIndex
CREATE INDEX "batch_lines_batch_id_state_line_idx" ON "batch_lines"("batch_id", "state", "line");

-- CreateIndex
CREATE INDEX "batch_lines_app_id_state_idx" ON "batch_lines"("app_id", "state");

-- AddForeignKey
ALTER TABLE "openai_files" ADD CONSTRAINT "openai_files_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batches" ADD CONSTRAINT "batches_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_lines" ADD CONSTRAINT "batch_lines_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
