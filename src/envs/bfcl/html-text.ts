/**
 * The text of an HTML page, for `fetch_url_content`'s "truncate" and "markdown" modes. Upstream
 * uses BeautifulSoup (`get_text("\n", strip=True)` after dropping scripts and styles) and
 * html2text; this is a small reader of our own (no HTML library in the project): tags, comments
 * and scripts go, entities are decoded, each text run is stripped and runs are joined by a
 * newline. Markdown mode adds what html2text adds most: `#` headings, `*` list items,
 * `[text](href)` links and blank lines between blocks; it is not html2text's byte-for-byte output.
 */
/** The entities pages use most: markup characters, Latin-1 and common typography (Python decodes all of HTML5's). */
// prettier-ignore
const NAMED_CODEPOINTS: Record<string, number> = {
  amp: 0x26, lt: 0x3c, gt: 0x3e, quot: 0x22, apos: 0x27, nbsp: 0xa0, iexcl: 0xa1, cent: 0xa2, pound: 0xa3,
  curren: 0xa4, yen: 0xa5, brvbar: 0xa6, sect: 0xa7, uml: 0xa8, copy: 0xa9, ordf: 0xaa, laquo: 0xab,
  not: 0xac, shy: 0xad, reg: 0xae, macr: 0xaf, deg: 0xb0, plusmn: 0xb1, sup2: 0xb2, sup3: 0xb3,
  acute: 0xb4, micro: 0xb5, para: 0xb6, middot: 0xb7, cedil: 0xb8, sup1: 0xb9, ordm: 0xba, raquo: 0xbb,
  frac14: 0xbc, frac12: 0xbd, frac34: 0xbe, iquest: 0xbf, Agrave: 0xc0, Aacute: 0xc1, Acirc: 0xc2,
  Atilde: 0xc3, Auml: 0xc4, Aring: 0xc5, AElig: 0xc6, Ccedil: 0xc7, Egrave: 0xc8, Eacute: 0xc9,
  Ecirc: 0xca, Euml: 0xcb, Igrave: 0xcc, Iacute: 0xcd, Icirc: 0xce, Iuml: 0xcf, ETH: 0xd0, Ntilde: 0xd1,
  Ograve: 0xd2, Oacute: 0xd3, Ocirc: 0xd4, Otilde: 0xd5, Ouml: 0xd6, times: 0xd7, Oslash: 0xd8,
  Ugrave: 0xd9, Uacute: 0xda, Ucirc: 0xdb, Uuml: 0xdc, Yacute: 0xdd, THORN: 0xde, szlig: 0xdf,
  agrave: 0xe0, aacute: 0xe1, acirc: 0xe2, atilde: 0xe3, auml: 0xe4, aring: 0xe5, aelig: 0xe6,
  ccedil: 0xe7, egrave: 0xe8, eacute: 0xe9, ecirc: 0xea, euml: 0xeb, igrave: 0xec, iacute: 0xed,
  icirc: 0xee, iuml: 0xef, eth: 0xf0, ntilde: 0xf1, ograve: 0xf2, oacute: 0xf3, ocirc: 0xf4, otilde: 0xf5,
  ouml: 0xf6, divide: 0xf7, oslash: 0xf8, ugrave: 0xf9, uacute: 0xfa, ucirc: 0xfb, uuml: 0xfc,
  yacute: 0xfd, thorn: 0xfe, yuml: 0xff, ndash: 0x2013, mdash: 0x2014, lsquo: 0x2018, rsquo: 0x2019,
  ldquo: 0x201c, rdquo: 0x201d, bull: 0x2022, hellip: 0x2026, euro: 0x20ac, trade: 0x2122,
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code =
        body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    // Entity names are case-sensitive (&Eacute; is not &eacute;).
    const code = Object.prototype.hasOwnProperty.call(NAMED_CODEPOINTS, body)
      ? NAMED_CODEPOINTS[body]
      : undefined;
    return code === undefined ? whole : String.fromCodePoint(code);
  });
}

/** Drops comments, doctype and the contents of script and style elements. */
function withoutHidden(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(-->|$)/g, "")
    .replace(/<!doctype[^>]*>/gi, "")
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, "");
}

/** BeautifulSoup's `get_text(separator="\n", strip=True)`, scripts and styles removed. */
export function htmlToText(html: string): string {
  return withoutHidden(html)
    .split(/<[^>]*>/)
    .map((run) => decodeEntities(run).trim())
    .filter((run) => run !== "")
    .join("\n");
}

/** A readable Markdown rendering (see the file comment for how it differs from html2text). */
export function htmlToMarkdown(html: string): string {
  const marked = withoutHidden(html.replace(/\u0000/g, ""))
    .replace(/<h([1-6])\b[^>]*>/gi, (_m, n: string) => `\n\n${"#".repeat(Number(n))} `)
    .replace(/<li\b[^>]*>/gi, "\n\u0000* ")
    .replace(
      /<a\b[^>]*href\s*=\s*("([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_m, _q, d, s, t: string) => {
        const label = t.replace(/<[^>]*>/g, "").trim();
        return `[${label}](${decodeEntities(String(d ?? s))})`;
      },
    )
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(
      /<\/?(p|div|section|article|header|footer|h[1-6]|ul|ol|table|tr|blockquote|pre)\b[^>]*>/gi,
      "\n\n",
    )
    .replace(/<[^>]*>/g, "");
  return (
    decodeEntities(marked)
      .split("\n")
      .map((l) =>
        l
          .replace(/[ \t]+/g, " ")
          .trim()
          .replace("\u0000", "  "),
      )
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim() + "\n\n"
  );
}
