-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "revoked_at" DATETIME
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
    "created_at" DATETIME NOT NULL,
    "last_modified_at" DATETIME NOT NULL,

    PRIMARY KEY ("owner", "id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "skill_id" TEXT NOT NULL,
    "name" TEXT,
    "state" TEXT,
    "environment" TEXT,
    "inputs" TEXT NOT NULL,
    "data" TEXT,
    "created_at" DATETIME NOT NULL,
    "start_time" DATETIME NOT NULL,
    "end_time" DATETIME,
    CONSTRAINT "runs_owner_skill_id_fkey" FOREIGN KEY ("owner", "skill_id") REFERENCES "skills" ("owner", "id") ON DELETE RESTRICT ON UPDATE CASCADE
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
