import { connect, createServer, type Socket } from "node:net";

/** A TCP proxy on 127.0.0.1 that holds every chunk `delayMs` before passing it on, each way. */
export interface DelayProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * Stands for a network between opspilot and its database: each chunk waits `delayMs` (a timer,
 * so at least that, on this machine about 0.1 ms more) before it is written on, in order, in both
 * directions. Only loopback addresses are used.
 */
export async function startDelayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const delayed = (from: Socket, to: Socket) => {
    from.on("data", (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
    from.on("end", () => setTimeout(() => to.end(), delayMs));
    from.on("error", () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("close", () => sockets.delete(socket));
    }
    delayed(client, upstream);
    delayed(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
