-- A key has a name of its holder's choosing and scopes (docs/decisions/0046-scoped-keys.md).
-- Keys made before scopes existed keep what they could do: every scope.
ALTER TABLE "api_keys" ADD COLUMN "name" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "scopes" TEXT NOT NULL DEFAULT '["admin"]';
