/** Quotes one word for a POSIX shell: a command TurnLab prints or sends over ssh runs as written. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
