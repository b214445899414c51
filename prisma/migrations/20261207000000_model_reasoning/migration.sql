-- Reasoning (issue 35): whether a model takes a reasoning setting (OpenAI's `reasoning_effort`, Anthropic's
-- thinking budget, Gemini's `thinkingBudget`). Off for every row; `npm run db:seed` sets it for the
-- catalog's reasoning models, and a custom model's `capabilities.reasoning` for its own.

-- AlterTable
ALTER TABLE "models" ADD COLUMN "supports_reasoning" BOOLEAN NOT NULL DEFAULT false;
