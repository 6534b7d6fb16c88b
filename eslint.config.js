import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules", "dist", ".build-test-*", ".langgraph_api", "public/vendor", "test/artifacts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // Floors: a lower room never imports a higher one (docs/design.md, "Where things are").
  {
    files: ["src/contracts/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["../**"], message: "src/contracts is the bottom floor: it imports nothing of ours." }] },
      ],
    },
  },
  {
    files: ["src/storage/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [{ regex: "^\\.\\./(?!contracts/)", message: "src/storage depends on src/contracts only." }],
        },
      ],
    },
  },
  {
    files: ["src/graph/**/*.ts", "src/nodes/**/*.ts", "src/execution/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/service/**", "**/server/**", "**/cli/**", "**/app/**"],
              message: "The loop (graph, nodes, execution) never imports the service, server, CLI or app rooms.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/eval/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/server/**", "**/cli/**", "**/mcp-server/**"],
              message:
                "src/eval stands on src/app: it imports app/ and the rooms below, never the server, CLI or MCP server.",
            },
          ],
        },
      ],
    },
  },
  {
    // A separate rule name, so the floors above keep their own no-restricted-imports.
    files: ["src/**/*.ts"],
    ignores: ["src/eval/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [{ group: ["**/eval/**"], message: "Nothing imports src/eval: its only way in is npm run eval." }],
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        fetch: "readonly",
        document: "readonly",
        window: "readonly",
        location: "readonly",
        history: "readonly",
        TextDecoder: "readonly",
        AbortController: "readonly",
        EventSource: "readonly",
        navigator: "readonly",
        URLSearchParams: "readonly",
        getComputedStyle: "readonly",
      },
    },
  },
);
