import { existsSync } from "node:fs";

export interface FontFace {
  path: string;
  /** Face name inside a .ttc collection. */
  family?: string;
}

export interface PdfFonts {
  regular: FontFace | "Helvetica";
  bold: FontFace | "Helvetica-Bold";
  italic: FontFace | "Helvetica-Oblique";
  mono: FontFace | "Courier";
  /** A face with CJK glyphs, when the machine has one. */
  cjk?: FontFace;
}

const DEJAVU = "/usr/share/fonts/truetype/dejavu";

/** CJK faces shipped by common Debian packages (fonts-noto-cjk, fonts-wqy-zenhei, fonts-droid-fallback). */
const CJK_CANDIDATES: FontFace[] = [
  { path: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", family: "NotoSansCJKsc-Regular" },
  { path: "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", family: "NotoSerifCJKsc-Regular" },
  { path: "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", family: "WenQuanYiZenHei" },
  { path: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", family: "WenQuanYiMicroHei" },
  { path: "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf" },
];

function face(path: string): FontFace | undefined {
  return existsSync(path) ? { path } : undefined;
}

/**
 * Fonts for PDF output. DejaVu (present on Debian) covers Latin, Greek and Cyrillic; the built-in
 * Helvetica only covers WinAnsi. `WEFT_CJK_FONT=/path/font.ttf[#Family]` points at a CJK face; `none` disables the search.
 */
export function pdfFonts(env: NodeJS.ProcessEnv = process.env): PdfFonts {
  let cjk: FontFace | undefined;
  const custom = env.WEFT_CJK_FONT;
  if (custom === "none") {
    // Explicitly no CJK face (tests, or a deployment that wants the error rather than a fallback).
  } else if (custom) {
    const [path, family] = custom.split("#");
    if (path && existsSync(path)) cjk = { path, family: family || undefined };
  }
  if (custom !== "none") cjk ??= CJK_CANDIDATES.find((f) => existsSync(f.path));
  return {
    regular: face(`${DEJAVU}/DejaVuSans.ttf`) ?? "Helvetica",
    bold: face(`${DEJAVU}/DejaVuSans-Bold.ttf`) ?? "Helvetica-Bold",
    italic: face(`${DEJAVU}/DejaVuSans-Oblique.ttf`) ?? "Helvetica-Oblique",
    mono: face(`${DEJAVU}/DejaVuSansMono.ttf`) ?? "Courier",
    cjk,
  };
}

/** Han, kana, hangul, CJK punctuation and full-width forms. */
export const CJK_RE = /[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;
