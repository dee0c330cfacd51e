// A long table renders its first rows only and grows as the reader scrolls near its end: a Runs
// view of a thousand runs drew every row on each filter or sort (1.4 s to sort 1,000 runs). The
// rows past the window are one click or one scroll away, and search and sort still see them all.
import { computed, nextTick, onBeforeUnmount, ref, watch, type Ref } from 'vue';

export const ROW_WINDOW_STEP = 200;

export function useRowWindow<T>(rows: Ref<readonly T[]>, step = ROW_WINDOW_STEP) {
  const limit = ref(step);
  const visible = computed(() => rows.value.slice(0, limit.value));
  const hidden = computed(() => Math.max(0, rows.value.length - limit.value));
  /** The element after the last row: seen, the window grows. */
  const sentinel = ref<HTMLElement | null>(null);
  let observer: IntersectionObserver | null = null;

  function showMore(): void {
    limit.value += step;
  }

  watch(sentinel, (element, previous) => {
    if (previous) observer?.unobserve(previous);
    if (!element) return;
    observer ??= new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting) || hidden.value === 0) return;
      showMore();
      // Observing again reports at once whether the end is still in view (a tall window).
      void nextTick(() => {
        if (sentinel.value && observer) {
          observer.unobserve(sentinel.value);
          observer.observe(sentinel.value);
        }
      });
    }, { rootMargin: '400px' });
    observer.observe(element);
  });

  onBeforeUnmount(() => observer?.disconnect());

  return { visible, hidden, sentinel, showMore };
}
