-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "secret_inputs" TEXT;

-- CreateTable
CREATE TABLE "secrets" (
    "owner" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "secrets_pkey" PRIMARY KEY ("owner","name")
);
