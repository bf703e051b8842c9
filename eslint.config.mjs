// ESLint for BPE Lab's browser code (make lint). Plain ES modules run by Streamlit's components v2
// in the page, node's test runner over tests/web/, and the node benchmark under bench/.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/**", ".venv/**", "data/**", "artifacts/**", "static/**"] },
  js.configs.recommended,
  {
    files: ["ui/**/*.js", "ui/**/*.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.browser } },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }], eqeqeq: ["error", "smart"], "prefer-const": "error" },
  },
  {
    files: ["tests/web/**/*.mjs", "tests/web/**/*.js", "bench/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: { ...globals.node } },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }], eqeqeq: ["error", "smart"], "prefer-const": "error" },
  },
];
