-- Embeddings API (issue 12): a request log of `POST /v1/embeddings` says so in its request type.
-- (Adding an enum value is allowed in a transaction since PostgreSQL 12; nothing here uses it yet.)

-- AlterEnum
ALTER TYPE "request_type" ADD VALUE 'embeddings';
