-- OpenAI Responses API (issue 12): responses that joined a conversation (stored, or a continuation).

-- CreateTable
CREATE TABLE "responses" (
    "id" TEXT NOT NULL,
    "org_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "previous_response_id" TEXT,
    "body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "responses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "responses_previous_response_id_idx" ON "responses"("previous_response_id");

-- CreateIndex
CREATE INDEX "responses_conversation_id_idx" ON "responses"("conversation_id");

-- AddForeignKey
ALTER TABLE "responses" ADD CONSTRAINT "responses_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
