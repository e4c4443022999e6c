import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";

// The hub serves the built files at / (api/ copies dist/ into its jar); `npm run dev`
// serves them with hot reload and forwards the API to a hub on localhost:8080.
export default defineConfig({
  plugins: [react(), tailwindcss()],
  build: { outDir: "dist", sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8080",
    },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    // make test-fast runs Vitest beside Maven on 2 cores: at load ~13 eleven tests passed only
    // after Vitest's default 5 s. A test that hangs still fails, four times later.
    testTimeout: 20_000,
  },
});
