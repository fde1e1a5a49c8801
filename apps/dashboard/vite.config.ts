import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { bundleBudget } from "./build/bundle-budget.js";

// Built into dist/, which the server serves at /ui/ (apps/server/src/http/dashboard.ts); the
// page loads nothing from anywhere else. `npm run dev` proxies the API to a local server. The
// build fails when its JavaScript is past 300 KB gzipped (build/bundle-budget.ts).
export default defineConfig({
  base: "/ui/",
  plugins: [react(), bundleBudget()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: {
    proxy: { "/v1": process.env.SKILLRUN_URL ?? "http://127.0.0.1:8080" },
  },
});
