import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "./db/database.js";
import { FileStore } from "./files/file-store.js";
import { keptSigningSecret } from "./files/signing-secret.js";

let root: string;
// The usual umask (0o022) would leave files readable by all: the modes below are Skillrun's own.
let umask: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "skillrun-modes-"));
  umask = process.umask(0o022);
});

afterEach(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

describe("what Skillrun keeps on disk is private to its user", () => {
  it("creates the data folders 0700 and the SQLite database, its WAL and shared memory 0600", async () => {
    const file = join(root, "data", "nested", "skillrun.db");
    const db = await openDatabase(`file:${file}`);
    try {
      await db.prisma.apiKey.count();
      expect(modeOf(join(root, "data"))).toBe(0o700);
      expect(modeOf(join(root, "data", "nested"))).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
    } finally {
      await db.close();
    }
  });

  it("narrows a database an older version created readable by all", async () => {
    const file = join(root, "skillrun.db");
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    const db = await openDatabase(`file:${file}`);
    await db.close();
    expect(modeOf(file)).toBe(0o600);
  });

  it("creates the file store 0700 and the signing secret 0600 in a 0700 folder", async () => {
    const videos = new FileStore(join(root, "videos"));
    await videos.pathForWriting("run_x");
    expect(modeOf(join(root, "videos"))).toBe(0o700);
    keptSigningSecret(join(root, "keys", "video-signing-secret"));
    expect(modeOf(join(root, "keys"))).toBe(0o700);
    expect(modeOf(join(root, "keys", "video-signing-secret"))).toBe(0o600);
  });
});
