-- CreateIndex
CREATE INDEX "runs_owner_state_created_at_id_idx" ON "runs"("owner", "state", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_owner_skill_id_state_created_at_id_idx" ON "runs"("owner", "skill_id", "state", "created_at" DESC, "id" DESC);
