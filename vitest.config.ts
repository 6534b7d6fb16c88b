import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/** LangGraph's checkpointer conformance suite, written against vitest's globals. */
const CONFORMANCE = "test/integration/checkpoint-conformance.test.ts";

/** The unit tests: no servers, child processes or browsers. */
const UNIT = "test/unit/**/*.test.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One worker more than the cores (vitest's default is one fewer): most files spend their time waiting on child
    // processes, servers and browsers. On 2 cores the suite took 875 s with one worker and 502 s with three.
    maxWorkers: availableParallelism() + 1,
    // Child processes run bundles of their entry points, made once here (test/fixtures/ts-children.ts).
    globalSetup: ["test/global-setup.ts"],
    // The OpenID provider's development notices (in-memory adapter, quick-start keys, Node 22) say what the
    // SSO tests set up on purpose; every other line a test prints stays in the output.
    onConsoleLog: (log) => !/^oidc-provider (WARNING|NOTICE): /.test(log),
    // Three projects with the same timeouts and pool: the integration tests, the unit tests, and the
    // conformance suite with `globals: true`, which it needs. Each file belongs to exactly one project.
    projects: [
      {
        extends: true,
        test: {
          name: "opspilot",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, CONFORMANCE, UNIT],
        },
      },
      {
        extends: true,
        test: {
          // Unit files share their worker's module cache: importing the app once per worker, not once per
          // file, took the unit tests from 261 s to 170 s on 2 cores. They keep no state in modules.
          name: "unit",
          include: [UNIT],
          isolate: false,
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
