// The `weft` command as users run it: bin/weft on the built JavaScript (dist/, built by the test setup).
import { join } from "node:path";

export const WEFT_BIN = join(import.meta.dirname, "../../bin/weft");
