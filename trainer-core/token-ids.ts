/** Whether `ids` ends with `suffix` (an encoded stop string); an empty suffix never matches. */
export function endsWithIds(ids: readonly number[], suffix: readonly number[]): boolean {
  if (suffix.length === 0 || suffix.length > ids.length) return false;
  const offset = ids.length - suffix.length;
  return suffix.every((id, i) => ids[offset + i] === id);
}
