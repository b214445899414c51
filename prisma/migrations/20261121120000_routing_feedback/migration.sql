-- CreateTable
CREATE TABLE "routing_feedback" (
    "app_id" UUID NOT NULL,
    "model_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "ratings" INTEGER NOT NULL DEFAULT 0,
    "good" INTEGER NOT NULL DEFAULT 0,
    "expected" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "routing_feedback_pkey" PRIMARY KEY ("app_id","model_id","kind")
);

-- AddForeignKey
ALTER TABLE "routing_feedback" ADD CONSTRAINT "routing_feedback_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "routing_feedback" ADD CONSTRAINT "routing_feedback_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "models"("id") ON DELETE CASCADE ON UPDATE CASCADE;
