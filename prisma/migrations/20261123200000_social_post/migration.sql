-- CreateTable
CREATE TABLE "space_secrets" (
    "app_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "space_secrets_pkey" PRIMARY KEY ("app_id","name")
);

-- CreateTable
CREATE TABLE "social_posts" (
    "request_id" TEXT NOT NULL,
    "app_id" UUID NOT NULL,
    "network" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "rkey" TEXT,
    "post_id" TEXT,
    "url" TEXT,
    "error" TEXT,
    "added_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "social_posts_pkey" PRIMARY KEY ("request_id")
);

-- CreateIndex
CREATE INDEX "social_posts_app_id_added_on_idx" ON "social_posts"("app_id", "added_on");

-- AddForeignKey
ALTER TABLE "space_secrets" ADD CONSTRAINT "space_secrets_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "social_posts" ADD CONSTRAINT "social_posts_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
