-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skills" (
    "owner" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "inputs" TEXT NOT NULL,
    "definition" TEXT NOT NULL,
    "definition_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "last_modified_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "skills_pkey" PRIMARY KEY ("owner","id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "skill_id" TEXT NOT NULL,
    "name" TEXT,
    "state" TEXT,
    "environment" TEXT,
    "inputs" TEXT NOT NULL,
    "data" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,
    "start_time" TIMESTAMP(3) NOT NULL,
    "end_time" TIMESTAMP(3),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_owner_idx" ON "api_keys"("owner");

-- CreateIndex
CREATE INDEX "skills_owner_name_idx" ON "skills"("owner", "name");

-- CreateIndex
CREATE INDEX "runs_owner_created_at_id_idx" ON "runs"("owner", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_owner_skill_id_created_at_id_idx" ON "runs"("owner", "skill_id", "created_at" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_owner_skill_id_fkey" FOREIGN KEY ("owner", "skill_id") REFERENCES "skills"("owner", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
