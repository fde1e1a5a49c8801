import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// This file sits at apps/server/src/ (and apps/server/dist/ once built): the repository root is
// three folders up either way.
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Files of the repository the server reads at run time. */
export const paths = {
  root,
  openapi: join(root, "openapi.yaml"),
  skills: join(root, "skills"),
  /** The demo shop's static files (served at /demo/). */
  demo: join(root, "apps", "server", "src", "demo", "shop"),
  /** The dashboard's static files as Vite builds them (served at /ui/). */
  dashboard: join(root, "apps", "dashboard", "dist"),
  migrations: (flavour: string) => join(root, "prisma", flavour, "migrations"),
};
