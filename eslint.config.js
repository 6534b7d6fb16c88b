import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** The rooms of src/, from the ground floor up; rooms on one floor never import each other. */
const FLOORS = [
  ["contracts"],
  ["storage", "config"],
  ["tools", "models"],
  ["execution", "demo"],
  ["context"],
  ["graph"],
  ["nodes"],
  ["agent"],
  ["service"],
  ["app"],
  ["server", "cli", "eval", "mcp-server"],
];

/**
 * The rooms that may import `src/demo/` although it is below them: the app wires the demo model and
 * dataset, and the evaluation plants its scenarios' log lines and faults in copies of that dataset.
 * Every other room (the CLI, the server, the MCP server included) reaches the demo through the app.
 */
const DEMO_IMPORTERS = ["app", "eval"];

/** How deep a room's sub-rooms go: `src/service/incidents/worker.ts` is at depth 2. */
const MAX_DEPTH = 4;

/**
 * One rule per room and depth: a file `depth` folders inside its room climbs out of it with exactly
 * `depth` "../", so the rule names the room it lands in, whatever the sub-room names are.
 */
function floorRules() {
  return FLOORS.flatMap((rooms, floor) =>
    rooms.flatMap((room) => {
      const below = FLOORS.slice(0, floor).flat();
      const fenced = room !== "demo" && !DEMO_IMPORTERS.includes(room);
      const allowed = fenced ? below.filter((other) => other !== "demo") : below;
      const forbidden = FLOORS.flat().filter((other) => other !== room && !allowed.includes(other));
      const message =
        floor === 0
          ? "src/contracts is the bottom floor: it imports nothing of ours."
          : `src/${room} imports only the rooms below it: ${allowed.join(", ")}` +
            (fenced && below.includes("demo") ? ` (src/demo only through src/app).` : ".");
      return Array.from({ length: MAX_DEPTH }, (_, index) => {
        const depth = index + 1;
        const up = `(\\.\\./){${depth}}`;
        // Relative imports only: a package's own folders (an SDK's server/) are no rooms of ours.
        const regex = floor === 0 ? `^${up}` : `^${up}(${forbidden.join("|")})/`;
        return {
          files: [`src/${room}/${"*/".repeat(index)}*.ts`],
          rules: { "no-restricted-imports": ["error", { patterns: [{ regex, message }] }] },
        };
      });
    }),
  );
}

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
  // Floors: a room imports only the rooms on the floors below it (docs/design.md, "Where things are").
  ...floorRules(),
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
