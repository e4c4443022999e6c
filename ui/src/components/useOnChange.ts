import { useState } from "react";

const NOTHING_YET = Symbol("nothing yet");

/**
 * Calls `onChange(value)` while rendering, the first time and whenever `value` is another object
 * than at the last render: an editor's text reset when the data it edits arrives or changes.
 * React's pattern for adjusting state when a prop changes
 * (https://react.dev/learn/you-might-not-need-an-effect#adjusting-some-state-when-a-prop-changes),
 * instead of an effect that renders once more with the old state.
 */
export function useOnChange<T>(value: T, onChange: (value: T) => void): void {
  const [seen, setSeen] = useState<T | typeof NOTHING_YET>(NOTHING_YET);
  if (seen !== value) {
    setSeen(value);
    onChange(value);
  }
}
