/**
 * The flags TurnLab passes to Dawn (`webgpu.create(flags)`): the user's TURNLAB_DAWN_FLAGS, with
 * Dawn's `timestamp_quantization` toggle off unless they turn it on. Dawn rounds every timestamp
 * query down to 65,536 ns by default (a browser's defence against timing attacks, pointless in a
 * trainer), which leaves tf.profile's per-kernel GPU times in steps of 0.0655 ms: too coarse for
 * a decoding step's 0.1-1 ms dispatches. Timestamps feed profiling only, so nothing else changes.
 */

const ENABLE = 'enable-dawn-features';
const DISABLE = 'disable-dawn-features';
const QUANTIZATION = 'timestamp_quantization';

/**
 * `key=value` flags from TURNLAB_DAWN_FLAGS's text (whitespace-separated). Dawn keeps the last
 * value of a key, so every `enable-dawn-features=` (and `disable-dawn-features=`) list is merged
 * into one, in order, without repeats; `timestamp_quantization` joins the disabled ones unless
 * a list enables it.
 */
export function dawnFlags(text: string | undefined): string[] {
  const lists = new Map<string, string[]>([
    [ENABLE, []],
    [DISABLE, []],
  ]);
  const others: string[] = [];
  for (const flag of (text ?? '').split(/\s+/).filter(Boolean)) {
    const eq = flag.indexOf('=');
    const list = eq > 0 ? lists.get(flag.slice(0, eq)) : undefined;
    if (!list) {
      others.push(flag);
      continue;
    }
    for (const toggle of flag.slice(eq + 1).split(',').map((t) => t.trim()).filter(Boolean)) if (!list.includes(toggle)) list.push(toggle);
  }
  const enabled = lists.get(ENABLE)!;
  const disabled = lists.get(DISABLE)!;
  if (!enabled.includes(QUANTIZATION) && !disabled.includes(QUANTIZATION)) disabled.push(QUANTIZATION);
  return [...others, ...(enabled.length > 0 ? [`${ENABLE}=${enabled.join(',')}`] : []), ...(disabled.length > 0 ? [`${DISABLE}=${disabled.join(',')}`] : [])];
}
