import { createHash } from "node:crypto";

/**
 * A short key for a token sequence (SHA-1 of its 32-bit ids): rows grouped by prompt or response
 * are compared by key. Why not the ids joined as text: a long prompt's text is six or more bytes a
 * token, held for every row of a group at once; the digest is 27.
 */
export function tokenKey(...sequences: readonly (readonly number[])[]): string {
  const hash = createHash("sha1");
  for (const ids of sequences) {
    hash.update(new Uint8Array(Int32Array.from([ids.length]).buffer));
    hash.update(new Uint8Array(Int32Array.from(ids).buffer));
  }
  return hash.digest("base64");
}
