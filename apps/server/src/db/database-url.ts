import { dirname, isAbsolute, resolve } from "node:path";

export type Flavour = "sqlite" | "postgres";

/** Which database flavour a DATABASE_URL names. */
export function flavourOf(url: string): Flavour {
  if (url.startsWith("file:")) return "sqlite";
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return "postgres";
  throw new Error(
    `DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL), got "${url}"`,
  );
}

/** The absolute file path of a `file:` URL (relative paths are relative to the working directory). */
export function sqlitePath(url: string): string {
  const path = url.slice("file:".length).replace(/\?.*$/, "");
  if (path === "") throw new Error("DATABASE_URL file: needs a path, e.g. file:./data/skillrun.db");
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}

/**
 * The folder for the small files the server keeps beside its data (the demo key, the video
 * signing secret): the SQLite file's folder, or ./data for PostgreSQL.
 */
export function localDataDir(url: string): string {
  return flavourOf(url) === "sqlite" ? dirname(sqlitePath(url)) : resolve("data");
}
