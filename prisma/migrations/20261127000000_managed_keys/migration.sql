-- Keys managed from the API and the console (docs/keys.md): a custom permission set, an expiry and an
-- allow-list of models per key. (Adding an enum value is allowed in a transaction since PostgreSQL 12;
-- nothing here uses it yet.)

-- AlterEnum
ALTER TYPE "role" ADD VALUE 'custom';

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN "permissions" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "expires_on" TIMESTAMPTZ(3),
ADD COLUMN "allowed_models" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
