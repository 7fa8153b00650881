import { WeftError } from "../ir/errors.js";

/** Why the server could not listen, in one line a user can act on. */
export function listenError(e: NodeJS.ErrnoException, host: string, port: number, flag = "--port"): WeftError {
  const where = `${host}:${port}`;
  if (e.code === "EADDRINUSE")
    return new WeftError(
      "server.port_in_use",
      `${where} is already in use; choose another port with ${flag} (0 picks a free one)`,
      { host, port },
    );
  if (e.code === "EACCES")
    return new WeftError(
      "server.port_denied",
      `listening on ${where} is not permitted; ports below 1024 need privileges, use ${flag} 3000`,
      { host, port },
    );
  if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND")
    return new WeftError("server.bad_host", `${host} is not an address of this machine (--host)`, { host, port });
  return new WeftError("server.listen_failed", `cannot listen on ${where}: ${e.message}`, { host, port });
}
