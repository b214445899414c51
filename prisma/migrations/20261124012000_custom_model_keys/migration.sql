-- Custom models (issue 12): an organization's own OpenAI-compatible endpoint. The base URL lives in the
-- existing `api_target`; its API key, sealed with the service's secret key, lives here.

-- AlterTable
ALTER TABLE "models" ADD COLUMN "api_key_sealed" TEXT;
