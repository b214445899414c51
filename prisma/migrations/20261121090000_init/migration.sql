-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "role" AS ENUM ('owner', 'admin', 'member', 'viewer');

-- CreateEnum
CREATE TYPE "visibility" AS ENUM ('public', 'organization', 'private');

-- CreateEnum
CREATE TYPE "sandbox_status" AS ENUM ('none', 'syncing', 'up_to_date', 'outdated', 'failed');

-- CreateEnum
CREATE TYPE "request_type" AS ENUM ('completions', 'chat_completions');

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "idp_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "email" TEXT,
    "is_service_owner" BOOLEAN NOT NULL DEFAULT false,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "app_id" UUID,
    "name" TEXT NOT NULL DEFAULT '',
    "role" "role" NOT NULL DEFAULT 'member',
    "hashed_key" TEXT NOT NULL,
    "key_end" TEXT NOT NULL,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_on" TIMESTAMPTZ(3),
    "revoked_on" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "apps" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "idp_id" TEXT NOT NULL DEFAULT '',
    "modified_by" TEXT NOT NULL DEFAULT '',
    "prompt_id" UUID,
    "hashed_key" TEXT NOT NULL DEFAULT '',
    "key_end" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "app_logo" TEXT NOT NULL DEFAULT '',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "rate_limit" INTEGER NOT NULL DEFAULT 0,
    "has_failover_chain" BOOLEAN NOT NULL DEFAULT false,
    "weights" JSONB NOT NULL DEFAULT '{"cost": 0.33, "latency": 0.33, "quality": 0.34}',
    "policies" JSONB NOT NULL DEFAULT '{"privacy_level": 1, "max_cost": null, "max_switch_model_retries": 2, "max_same_model_retries": 2, "optimize_internal_requests": 0, "prompt_id": null}',
    "settings" JSONB NOT NULL DEFAULT '{"assistant_id": null, "assistant_version_id": null, "instructions": null, "max_tokens": null, "temperature": null}',
    "sandbox_of" UUID,
    "use_parent_custom_data" BOOLEAN NOT NULL DEFAULT false,
    "benchmark_model_id" UUID,
    "sandbox_status" "sandbox_status" NOT NULL DEFAULT 'none',
    "sandbox_synced_on" TIMESTAMPTZ(3),
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "models" (
    "id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "owner" TEXT NOT NULL DEFAULT '',
    "namespace" TEXT NOT NULL,
    "at" TEXT NOT NULL DEFAULT '',
    "context_window" INTEGER NOT NULL DEFAULT 0,
    "until" TIMESTAMPTZ(3),
    "deprecated_on" TIMESTAMPTZ(3),
    "description" TEXT NOT NULL DEFAULT '',
    "url" TEXT NOT NULL DEFAULT '',
    "api_target" TEXT NOT NULL DEFAULT '',
    "parent_id" UUID,
    "prompt_id" UUID,
    "app_id" UUID,
    "org_id" UUID,
    "added_by" TEXT NOT NULL DEFAULT '',
    "supports_functions" BOOLEAN NOT NULL DEFAULT false,
    "supports_json" BOOLEAN NOT NULL DEFAULT false,
    "supports_n" BOOLEAN NOT NULL DEFAULT false,
    "supports_penalties" BOOLEAN NOT NULL DEFAULT false,
    "supports_stream" BOOLEAN NOT NULL DEFAULT true,
    "supports_vision" BOOLEAN NOT NULL DEFAULT false,
    "prompt_token_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "completion_token_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "base_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "price_unit" TEXT NOT NULL DEFAULT 'tokens',
    "is_rag" BOOLEAN NOT NULL DEFAULT false,
    "is_ft" BOOLEAN NOT NULL DEFAULT false,
    "is_open_source" BOOLEAN NOT NULL DEFAULT false,
    "is_gdpr" BOOLEAN NOT NULL DEFAULT false,
    "is_chat" BOOLEAN NOT NULL DEFAULT true,
    "is_public" BOOLEAN NOT NULL DEFAULT true,
    "is_test_model" BOOLEAN NOT NULL DEFAULT false,
    "is_service_owner" BOOLEAN NOT NULL DEFAULT false,
    "default_active" BOOLEAN NOT NULL DEFAULT false,
    "globally_disabled" BOOLEAN NOT NULL DEFAULT false,
    "quality_profile" JSONB NOT NULL DEFAULT '{}',
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_models" (
    "app_id" UUID NOT NULL,
    "model_id" UUID NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_models_pkey" PRIMARY KEY ("app_id","model_id")
);

-- CreateTable
CREATE TABLE "failover_entries" (
    "app_id" UUID NOT NULL,
    "model_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "failover_entries_pkey" PRIMARY KEY ("app_id","model_id")
);

-- CreateTable
CREATE TABLE "prompts" (
    "id" UUID NOT NULL,
    "org_id" UUID,
    "prompt" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "is_public" BOOLEAN NOT NULL DEFAULT false,
    "added_by" TEXT NOT NULL DEFAULT '',
    "published_on" TIMESTAMPTZ(3),
    "reviewed_on" TIMESTAMPTZ(3),
    "approved_on" TIMESTAMPTZ(3),
    "decline_reason" TEXT,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "prompts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assistants" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "avatar" TEXT,
    "description" TEXT,
    "visibility" "visibility" NOT NULL DEFAULT 'private',
    "definition_visibility" "visibility" NOT NULL DEFAULT 'private',
    "added_by" TEXT NOT NULL DEFAULT '',
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assistants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assistant_versions" (
    "id" UUID NOT NULL,
    "assistant_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "assistant_config" JSONB,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assistant_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversations" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL DEFAULT '{"assistant_id": null, "assistant_version_id": null}',
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_on" TIMESTAMPTZ(3),

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_files" (
    "id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "content_type" TEXT NOT NULL DEFAULT 'text/plain',
    "size" INTEGER NOT NULL DEFAULT 0,
    "content" TEXT NOT NULL,
    "added_by" TEXT NOT NULL DEFAULT '',
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "logs" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "conversation_id" UUID,
    "parent_request_id" UUID,
    "parent_id" UUID,
    "app_id" UUID,
    "idp_id" TEXT,
    "model_id" UUID,
    "response" JSONB NOT NULL DEFAULT '{}',
    "timestamp" BIGINT NOT NULL,
    "good_answer" BOOLEAN,
    "feedback" TEXT DEFAULT '',
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "completion_tokens" INTEGER NOT NULL DEFAULT 0,
    "total_tokens" INTEGER NOT NULL DEFAULT 0,
    "prompt_tokens_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "completion_tokens_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "total_tokens_cost" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "prompt_tokens_cost_savings" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "completion_tokens_cost_savings" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "total_tokens_cost_savings" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "costs_incurred" BOOLEAN NOT NULL DEFAULT true,
    "namespace" TEXT,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "privacy_level" INTEGER NOT NULL DEFAULT 1,
    "prompt" TEXT,
    "request_type" "request_type" DEFAULT 'chat_completions',
    "response_text" TEXT NOT NULL DEFAULT '',
    "status_code" INTEGER NOT NULL DEFAULT -1,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "added_on" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "latency" DOUBLE PRECISION NOT NULL DEFAULT -1,
    "is_saved_for_later" BOOLEAN NOT NULL DEFAULT false,
    "comment_count" INTEGER NOT NULL DEFAULT 0,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "collections" JSONB,

    CONSTRAINT "logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_org_id_idp_id_key" ON "users"("org_id", "idp_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hashed_key_key" ON "api_keys"("hashed_key");

-- CreateIndex
CREATE INDEX "api_keys_org_id_idx" ON "api_keys"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "apps_sandbox_of_key" ON "apps"("sandbox_of");

-- CreateIndex
CREATE INDEX "apps_org_id_added_on_idx" ON "apps"("org_id", "added_on");

-- CreateIndex
CREATE INDEX "models_model_idx" ON "models"("model");

-- CreateIndex
CREATE UNIQUE INDEX "models_provider_namespace_app_id_org_id_key" ON "models"("provider", "namespace", "app_id", "org_id");

-- CreateIndex
CREATE UNIQUE INDEX "failover_entries_app_id_position_key" ON "failover_entries"("app_id", "position");

-- CreateIndex
CREATE INDEX "prompts_org_id_added_on_idx" ON "prompts"("org_id", "added_on");

-- CreateIndex
CREATE INDEX "prompts_published_on_idx" ON "prompts"("published_on");

-- CreateIndex
CREATE INDEX "assistants_app_id_added_on_idx" ON "assistants"("app_id", "added_on");

-- CreateIndex
CREATE UNIQUE INDEX "assistants_app_id_slug_key" ON "assistants"("app_id", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "assistant_versions_assistant_id_version_key" ON "assistant_versions"("assistant_id", "version");

-- CreateIndex
CREATE INDEX "conversations_app_id_added_on_idx" ON "conversations"("app_id", "added_on");

-- CreateIndex
CREATE INDEX "app_files_app_id_added_on_idx" ON "app_files"("app_id", "added_on");

-- CreateIndex
CREATE INDEX "logs_org_id_added_on_idx" ON "logs"("org_id", "added_on");

-- CreateIndex
CREATE INDEX "logs_app_id_added_on_idx" ON "logs"("app_id", "added_on");

-- CreateIndex
CREATE INDEX "logs_conversation_id_added_on_idx" ON "logs"("conversation_id", "added_on");

-- CreateIndex
CREATE INDEX "logs_parent_id_idx" ON "logs"("parent_id");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_prompt_id_fkey" FOREIGN KEY ("prompt_id") REFERENCES "prompts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_sandbox_of_fkey" FOREIGN KEY ("sandbox_of") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "apps" ADD CONSTRAINT "apps_benchmark_model_id_fkey" FOREIGN KEY ("benchmark_model_id") REFERENCES "models"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "models"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_prompt_id_fkey" FOREIGN KEY ("prompt_id") REFERENCES "prompts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "models" ADD CONSTRAINT "models_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_models" ADD CONSTRAINT "app_models_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_models" ADD CONSTRAINT "app_models_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "failover_entries" ADD CONSTRAINT "failover_entries_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "failover_entries" ADD CONSTRAINT "failover_entries_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "prompts" ADD CONSTRAINT "prompts_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_files" ADD CONSTRAINT "app_files_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "logs" ADD CONSTRAINT "logs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "logs" ADD CONSTRAINT "logs_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "logs" ADD CONSTRAINT "logs_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "logs" ADD CONSTRAINT "logs_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "logs" ADD CONSTRAINT "logs_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "logs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

