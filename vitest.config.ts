import { configDefaults, defineConfig } from "vitest/config";

/** LangGraph's checkpointer conformance suite, written against vitest's globals. */
const CONFORMANCE = "test/integration/checkpoint-conformance.test.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Child processes run bundles of their entry points, made once here (test/fixtures/ts-children.ts).
    globalSetup: ["test/global-setup.ts"],
    // Two projects with the same timeouts and pool: every test but the conformance suite, and
    // the suite with `globals: true`, which it needs. Each file belongs to exactly one project.
    projects: [
      {
        extends: true,
        test: {
          name: "opspilot",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, CONFORMANCE],
        },
      },
      {
        extends: true,
        test: {
          name: "conformance",
          include: [CONFORMANCE],
          globals: true,
        },
      },
    ],
  },
});
