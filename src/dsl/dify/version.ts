/**
 * Dify DSL versions. Dify compares versions with PEP 440 (`packaging.version`); DSL versions are plain
 * `major.minor.micro` in practice, but the parser accepts the PEP 440 release forms so that an odd but valid
 * version (`0.2`, `v0.3.1`, `0.4.0rc1`) is compared rather than rejected.
 */

/** The newest DSL version this importer knows (Dify main's `api/constants/dsl_version.py`). */
export const CURRENT_DSL_VERSION = "0.6.0";
/**
 * Written for workflows Weft made (generated, edited, built): the current version, so re-importing our own
 * output never warns `dsl.version_older`. `weft export --dsl-version 0.4.0` targets the Dify 1.8–1.9 fleet,
 * which asks for confirmation on anything newer.
 */
export const DEFAULT_EXPORT_VERSION = CURRENT_DSL_VERSION;
/** Dify reads a document without `version` as this. */
export const ABSENT_DSL_VERSION = "0.1.0";

export interface DslVersion {
  release: number[];
  /** Pre-release rank: a/b/rc sort before the final release. */
  pre?: [number, number];
  post?: number;
  dev?: number;
}

const PEP440 =
  /^\s*v?(?:\d+!)?(?<release>\d+(?:\.\d+)*)(?:[-_.]?(?<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?<preN>\d+)?)?(?:-(?<postN1>\d+)|[-_.]?(?<post>post|rev|r)[-_.]?(?<postN2>\d+)?)?(?:[-_.]?(?<dev>dev)[-_.]?(?<devN>\d+)?)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$/i;

const PRE_RANK: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

/** What every real DSL version looks like (`0.3.0`): read without the PEP 440 pattern and its named groups. */
const PLAIN_RELEASE = /^\d+(?:\.\d+)*$/;

export function parseDslVersion(text: string): DslVersion | undefined {
  if (PLAIN_RELEASE.test(text)) return { release: text.split(".").map((p) => Number(p)) };
  const g = PEP440.exec(text)?.groups;
  if (!g?.release) return undefined;
  const v: DslVersion = { release: g.release.split(".").map((p) => Number(p)) };
  if (g.pre) v.pre = [PRE_RANK[g.pre.toLowerCase()] ?? 2, Number(g.preN ?? 0)];
  if (g.postN1 !== undefined || g.post) v.post = Number(g.postN1 ?? g.postN2 ?? 0);
  if (g.dev) v.dev = Number(g.devN ?? 0);
  return v;
}

export const major = (v: DslVersion): number => v.release[0] ?? 0;
export const minor = (v: DslVersion): number => v.release[1] ?? 0;

/** Negative when a < b, as PEP 440 orders them (release, then dev < pre < final < post). */
export function compareDslVersions(a: DslVersion, b: DslVersion): number {
  const n = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < n; i++) {
    const d = (a.release[i] ?? 0) - (b.release[i] ?? 0);
    if (d !== 0) return d;
  }
  const phase = (v: DslVersion): number[] => {
    // dev-only releases sort before pre-releases, which sort before the final release.
    if (v.pre) return [1, v.pre[0], v.pre[1], v.post ?? -1, v.dev ?? Number.POSITIVE_INFINITY];
    if (v.post !== undefined) return [3, 0, 0, v.post, v.dev ?? Number.POSITIVE_INFINITY];
    if (v.dev !== undefined) return [0, 0, 0, -1, v.dev];
    return [2, 0, 0, -1, Number.POSITIVE_INFINITY];
  };
  const pa = phase(a);
  const pb = phase(b);
  for (let i = 0; i < pa.length; i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export type VersionVerdict = "same" | "older-minor" | "older-major" | "newer" | "newer-major";

/** Dify's `check_version_compatibility`, with "newer" split so a newer major can be refused outright. */
export function judgeVersion(imported: DslVersion, current: DslVersion): VersionVerdict {
  if (compareDslVersions(imported, current) > 0) return major(imported) > major(current) ? "newer-major" : "newer";
  if (major(imported) < major(current)) return "older-major";
  if (minor(imported) < minor(current)) return "older-minor";
  return "same";
}
