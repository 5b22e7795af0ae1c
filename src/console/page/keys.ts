/**
 * @module console/page/keys
 * Keyboard-only answers on the pending view (the page lists the same keys under "Keyboard"): j / ↓ next
 * ask, k / ↑ previous, a approve, d deny (to the reason field; Enter there denies, Escape returns), A
 * approve always (opens the rule; Enter on its button adds it). Keys typed into a field stay the field's;
 * the arrows scroll the page unless an ask holds focus.
 */

const asks = () => [...document.querySelectorAll<HTMLLIElement>("#asks li.ask:not([data-state])")];

/** The ask the keys act on: the one holding focus, else none. */
function current(): HTMLLIElement | undefined {
  return (document.activeElement?.closest("li.ask") as HTMLLIElement | null) ?? undefined;
}

function move(step: 1 | -1): void {
  const list = asks();
  if (list.length === 0) return;
  const at = list.indexOf(current() as HTMLLIElement);
  const next = at === -1 ? (step === 1 ? 0 : list.length - 1) : (at + step + list.length) % list.length;
  list[next]?.focus();
}

const press = (item: HTMLLIElement | undefined, name: string) =>
  [...(item?.querySelectorAll<HTMLButtonElement>(".actions button") ?? [])]
    .find((b) => b.textContent === name && !b.disabled)
    ?.click();

/** Listens for the keys on the whole document. */
export function listenForKeys(): void {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest("input, textarea, select")) return;
    const item = current();
    // Arrows scroll the page unless an ask holds focus.
    if (event.key.startsWith("Arrow") && !item) return;
    switch (event.key) {
      case "j":
      case "ArrowDown":
        move(1);
        break;
      case "k":
      case "ArrowUp":
        move(-1);
        break;
      case "a":
        press(item, "Approve");
        break;
      case "A":
        press(item, "Approve always");
        break;
      case "d":
        item?.querySelector<HTMLInputElement>("input")?.focus();
        break;
      default:
        return;
    }
    event.preventDefault();
  });
}
