import { loadDotEnv } from "./env.js";
import { runServerProcess } from "./server/start.js";

loadDotEnv();
await runServerProcess();
