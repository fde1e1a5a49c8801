import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONTRACT_RESOURCES, specOperations } from "../support/contract.js";
import { table } from "../support/contract-table.js";

describe("the provocation table covers openapi.yaml exactly", () => {
  it("has a way to provoke every status of every operation the spec declares", () => {
    const missing = specOperations.flatMap((op) =>
      op.statuses
        .filter((status) => table[op.operationId]?.[status] === undefined)
        .map((status) => `${op.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it("provokes no operation or status the spec does not declare", () => {
    const declared = new Set(
      specOperations.flatMap((op) => op.statuses.map((s) => `${op.operationId} ${s}`)),
    );
    const extra = Object.entries(table).flatMap(([operationId, statuses]) =>
      Object.keys(statuses)
        .map((status) => `${operationId} ${status}`)
        .filter((entry) => !declared.has(entry)),
    );
    expect(extra).toEqual([]);
  });

  it("gives every way to provoke a status at least one request, or a reason it cannot yet", () => {
    const empty = Object.entries(table).flatMap(([operationId, statuses]) =>
      Object.entries(statuses)
        .filter(([, entry]) =>
          Array.isArray(entry) ? entry.length === 0 : entry.unreachable.trim() === "",
        )
        .map(([status]) => `${operationId} ${status}`),
    );
    expect(empty).toEqual([]);
  });

  it("runs every operation in exactly one resource's file, and every resource has its file", () => {
    const listed = Object.values(CONTRACT_RESOURCES).flat();
    expect(listed.sort()).toEqual(specOperations.map((op) => op.operationId).sort());
    const missingFiles = Object.keys(CONTRACT_RESOURCES).filter(
      (resource) =>
        !existsSync(new URL(`./${resource}.test.ts`, import.meta.url)) &&
        !existsSync(new URL(`./${resource}.db.test.ts`, import.meta.url)),
    );
    expect(missingFiles).toEqual([]);
  });
});
