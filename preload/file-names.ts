// A run's or a metric's name as part of a file or folder name, shared by the exports' download
// names, the TensorBoard run folders and the workbench's own downloads. Letters and digits of any
// script stay (`réglage`, `実験` are what their authors typed, and every desktop file system takes
// them); what a file system or a shell reads specially becomes `_`. The cap is in UTF-8 bytes, as
// file systems count (255 a name): 100 CJK characters are 300 bytes.

const utf8 = new TextEncoder();

/** `name` with every run of characters other than letters, marks, digits, `_`, `.` and `-` as one `_`, cut to `maxBytes` of UTF-8 at a character's end. */
export function fileNamePart(name: string, maxBytes: number): string {
  const kept = name.normalize('NFC').replace(/[^\p{L}\p{M}\p{N}_.-]+/gu, '_');
  let bytes = 0;
  let out = '';
  for (const char of kept) {
    bytes += utf8.encode(char).length;
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}

/**
 * A Content-Disposition for a download named `name` (RFC 6266): an ASCII `filename` for old
 * clients and the name itself, percent-encoded, as `filename*` (RFC 8187), which browsers prefer.
 */
export function attachmentHeader(name: string): string {
  const ascii = name.replace(/[^\w.-]/g, '_');
  if (ascii === name) return `attachment; filename="${name}"`;
  const encoded = encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
