-- Space files replace the unused "app_files" table (its text column held whole files inline, and no
-- code ever wrote it): a file row, its bytes apart, and its text as searchable chunks.

-- DropTable
DROP TABLE "app_files";

-- CreateEnum
CREATE TYPE "space_file_status" AS ENUM ('queued', 'processing', 'ready', 'failed');

-- CreateTable
CREATE TABLE "space_files" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "status" "space_file_status" NOT NULL DEFAULT 'queued',
    "error" TEXT,
    "chunk_count" INTEGER NOT NULL DEFAULT 0,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "space_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "space_file_contents" (
    "file_id" UUID NOT NULL,
    "bytes" BYTEA NOT NULL,

    CONSTRAINT "space_file_contents_pkey" PRIMARY KEY ("file_id")
);

-- CreateTable
-- "tsv" is generated, so every writer of "text" gets the same index terms; Prisma's schema names it
-- Unsupported("tsvector") and never writes it. The 'english' configuration: see docs/plugins/space-search.md.
CREATE TABLE "space_file_chunks" (
    "file_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "text")) STORED,
    "embedding" REAL[],

    CONSTRAINT "space_file_chunks_pkey" PRIMARY KEY ("file_id","position")
);

-- CreateIndex
CREATE INDEX "space_files_app_id_added_on_idx" ON "space_files"("app_id", "added_on");

-- CreateIndex
CREATE INDEX "space_file_chunks_app_id_idx" ON "space_file_chunks"("app_id");

-- CreateIndex
CREATE INDEX "space_file_chunks_tsv_idx" ON "space_file_chunks" USING GIN ("tsv");

-- AddForeignKey
ALTER TABLE "space_files" ADD CONSTRAINT "space_files_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "space_files" ADD CONSTRAINT "space_files_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "space_file_contents" ADD CONSTRAINT "space_file_contents_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "space_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "space_file_chunks" ADD CONSTRAINT "space_file_chunks_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "space_files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "space_file_chunks" ADD CONSTRAINT "space_file_chunks_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
