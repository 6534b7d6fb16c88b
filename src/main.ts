import { runServerProcess } from "./server/start.js";

await runServerProcess();
