import { loadDotEnv } from "./config/env.js";
import { runServerProcess } from "./server/start.js";

loadDotEnv();
await runServerProcess();
