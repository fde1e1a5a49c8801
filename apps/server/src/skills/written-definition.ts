/**
 * A stored definition as it can be written again (`skills import`, `PUT /v1/skill/{id}`): without
 * what the engine adds when it reads one (`timeoutMs`, the time limit in milliseconds), which the
 * definition format does not accept.
 */
export function writtenDefinition(stored: Record<string, unknown>): Record<string, unknown> {
  const { timeoutMs: _added, ...written } = stored;
  return written;
}
