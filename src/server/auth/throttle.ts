/**
 * Login throttling, in the server process. Failures are counted per address, and per account and address:
 * - an address with `perAddress` failures in the window is refused outright (a loop guessing many accounts);
 * - an account is guessed from one address at most `perAccount` times per window; once the account has had
 *   `perAccount` failures from anywhere, each further address gets only one failure on it.
 * The right password from a client that has not failed keeps working, so an attacker cannot lock the owner
 * out by failing on purpose — the difference from an account lock-out.
 */
export interface ThrottleOptions {
  windowMs?: number;
  perAddress?: number;
  perAccount?: number;
  now?: () => number;
}

export interface ThrottleVerdict {
  allowed: boolean;
  /** Milliseconds until the oldest counted failure leaves the window. */
  retryAfterMs: number;
}

export class LoginThrottle {
  private readonly windowMs: number;
  private readonly perAddress: number;
  private readonly perAccount: number;
  private readonly now: () => number;
  private readonly byAddress = new Map<string, number[]>();
  private readonly byAccount = new Map<string, number[]>();
  private readonly byPair = new Map<string, number[]>();

  constructor(o: ThrottleOptions = {}) {
    this.windowMs = o.windowMs ?? 15 * 60_000;
    this.perAddress = o.perAddress ?? 50;
    this.perAccount = o.perAccount ?? 10;
    this.now = o.now ?? Date.now;
  }

  check(account: string, address: string): ThrottleVerdict {
    const addr = this.recent(this.byAddress, address);
    const acct = this.recent(this.byAccount, account);
    const pair = this.recent(this.byPair, `${account}\u0000${address}`);
    const pairLimit = acct.length >= this.perAccount ? 1 : this.perAccount;
    const over: number[][] = [];
    if (addr.length >= this.perAddress) over.push(addr);
    if (pair.length >= pairLimit) over.push(pair);
    if (over.length === 0) return { allowed: true, retryAfterMs: 0 };
    const oldest = Math.max(...over.map((l) => l[0]!));
    return { allowed: false, retryAfterMs: Math.max(1, oldest + this.windowMs - this.now()) };
  }

  fail(account: string, address: string): void {
    const t = this.now();
    for (const [m, k] of [
      [this.byAddress, address],
      [this.byAccount, account],
      [this.byPair, `${account}\u0000${address}`],
    ] as const)
      m.set(k, [...this.recent(m, k), t]);
  }

  /** A successful login forgets this address's failures on the account (not the address's other failures). */
  succeed(account: string, address: string): void {
    this.byPair.delete(`${account}\u0000${address}`);
  }

  private recent(m: Map<string, number[]>, k: string): number[] {
    const since = this.now() - this.windowMs;
    const l = (m.get(k) ?? []).filter((t) => t > since);
    if (l.length === 0) m.delete(k);
    else m.set(k, l);
    return l;
  }
}
