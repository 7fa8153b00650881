import type { AnchorHTMLAttributes } from "react";
import { go } from "../route";

/**
 * A link to a studio path that the studio follows itself (no page load), while the address stays a real one:
 * it opens in a new tab and can be copied.
 */
export function StudioLink({ path, ...rest }: { path: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      {...rest}
      href={path}
      onClick={(e) => {
        e.preventDefault();
        go(path);
      }}
    />
  );
}
