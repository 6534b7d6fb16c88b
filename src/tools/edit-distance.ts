/** Edit distance (insertions, deletions, substitutions), for typo suggestions ("paymnet-service", "restart_servce"). */
export function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    for (let column = 1; column <= right.length; column++) {
      const substitution = previous[column - 1] + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column] + 1, current[column - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length];
}

/**
 * The candidates within one typo per four characters of `name` ("gatway" is close to "gateway",
 * "服务" is not close to "用户"), closest first; `distance` measures a candidate (by default its
 * edit distance to `name`).
 */
export function closeMatches<T>(
  name: string,
  candidates: readonly T[],
  distance: (candidate: T) => number = (candidate) => editDistance(name, String(candidate)),
): T[] {
  const tolerance = Math.max(1, Math.floor([...name].length / 4));
  return candidates
    .map((candidate) => ({ candidate, distance: distance(candidate) }))
    .filter((entry) => entry.distance <= tolerance)
    .sort((left, right) => left.distance - right.distance)
    .map((entry) => entry.candidate);
}
