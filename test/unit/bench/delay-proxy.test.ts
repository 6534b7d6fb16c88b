import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startDelayProxy } from "../../../bench/delay-proxy.js";

/** An echo server on loopback. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Sends `text` and resolves with the echo and the ms it took. */
function roundTrip(socket: Socket, text: string): Promise<{ echoed: string; ms: number }> {
  return new Promise((resolve) => {
    let echoed = "";
    const started = performance.now();
    const onData = (chunk: Buffer) => {
      echoed += chunk.toString();
      if (echoed.length < text.length) return;
      socket.off("data", onData);
      resolve({ echoed, ms: performance.now() - started });
    };
    socket.on("data", onData);
    socket.write(text);
  });
}

describe("the bench's delay proxy", () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it("passes the bytes on unchanged and in order, each direction at least the delay late", async () => {
    const { server, port } = await echoServer();
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const proxy = await startDelayProxy(port, 5);
    closers.push(() => proxy.close());
    const socket = connect(proxy.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    closers.push(async () => socket.destroy());

    const text = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join("");
    const delayed = await roundTrip(socket, text);
    expect(delayed.echoed).toBe(text);
    expect(delayed.ms).toBeGreaterThanOrEqual(10);
  });
});
