-- CreateTable
CREATE TABLE "idempotency_keys" (
    "owner" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("owner", "key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
