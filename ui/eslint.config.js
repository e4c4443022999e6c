// ESLint for the UI (`npm run lint`, `tools/ui.sh lint`, `make lint`): JavaScript's and
// typescript-eslint's recommended rules and React's rules of hooks. Formatting is Prettier's
// (`npm run format:check`), so eslint-config-prettier turns off the rules that overlap it.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  // Build output, and the API types generated from docs/openapi.yaml and docs/command-types.json
  // (npm run gen:api).
  globalIgnores(["dist/", "test-results/", "src/api/schema.d.ts", "src/api/commandTypes.ts"]),
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat["recommended-latest"],
  {
    files: ["src/**/*.{ts,tsx}", "test/**/*.ts"],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["src/**/*.{ts,tsx}", "test/**/*.ts"],
    rules: {
      // `const { dropped, ...rest } = x` is how a field is left out of a copy.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    // The end-to-end runner and the generators are Node; what the runner hands page.evaluate
    // runs in the browser.
    files: ["e2e/**/*.mjs", "scripts/**/*.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ["*.config.{js,ts}"],
    languageOptions: { globals: globals.node },
  },
  prettier,
);
