-- AlterTable
ALTER TABLE "runs" ADD COLUMN "secret_inputs" TEXT;

-- CreateTable
CREATE TABLE "secrets" (
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,

    PRIMARY KEY ("owner", "name")
);
