// BrikForge's only script of its own: tell the user when a request fails outright, and which
// button is at work.
function showError(text) {
  const area = document.getElementById("flash");
  if (!area) return;
  const p = document.createElement("p");
  p.className = "flash error";
  p.setAttribute("role", "alert");
  p.textContent = text;
  area.replaceChildren(p);
}
// A unit picker that fetches the whole calculator again (a select of class "unit-pick") also
// bubbles its change to the live form around it, whose own request (only the results) would
// be sent again after the picker's (hx-sync queues the last): the form leaves a picker's
// changes to the picker. (hx-sync queues rather than replaces: htmx logs every request it
// aborts as an error, htmx:sendAbort, and a player's quick typing is no error.)
// (htmx's trigger filters would need eval, which our CSP and htmx-config forbid.) The weapon
// boxes are left as they were: a box ticked while the player types on must not swap the form.
document.addEventListener("htmx:confirm", (event) => {
  const { elt, triggeringEvent } = event.detail;
  const source = triggeringEvent && triggeringEvent.target;
  if (elt instanceof HTMLFormElement && source instanceof HTMLSelectElement
      && source.classList.contains("unit-pick")) {
    event.preventDefault();
  }
});
document.addEventListener("htmx:responseError", (event) => {
  showError(`Something went wrong (${event.detail.xhr.status}). Your input is kept; try again.`);
});
document.addEventListener("htmx:sendError", () => {
  showError("The server could not be reached. Your input is kept; try again.");
});
// The print sheet's Print button (no inline handlers: the Content-Security-Policy forbids them).
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
});
// Copy buttons beside shown-once links and tokens: the Clipboard API, and if that is refused
// the text is selected so Ctrl+C (or the phone's Copy) takes it.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  const status = document.querySelector(`[data-copy-status="${button.dataset.copy}"]`);
  if (!source) return;
  let message = "Copied";
  try {
    await navigator.clipboard.writeText(source.textContent.trim());
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    message = "Selected: press Ctrl+C to copy";
  }
  if (status) status.textContent = message;
});
// A builder form's fields fetched again for the kind or type chosen (.form-fields): what was
// typed while they were on their way is kept (the server had the values sent with the request).
let typedFields = null;
document.addEventListener("htmx:beforeSwap", (event) => {
  const old = event.detail.target;
  if (!old.classList || !old.classList.contains("form-fields") || !event.detail.shouldSwap) return;
  const typed = new Map();
  for (const el of old.querySelectorAll("input[id], select[id], textarea[id]")) {
    if (el.type !== "hidden") typed.set(el.id, el.type === "checkbox" ? el.checked : el.value);
  }
  typedFields = { id: old.id, typed };
});
document.addEventListener("htmx:afterSwap", () => {
  if (!typedFields) return;
  const fresh = document.getElementById(typedFields.id);
  if (fresh) {
    for (const [id, value] of typedFields.typed) {
      const el = fresh.querySelector(`#${CSS.escape(id)}`);
      if (!el || el.tagName === "SELECT") continue;  // a picker's options may have changed
      const before = el.type === "checkbox" ? el.checked : el.value;
      if (el.type === "checkbox") el.checked = value;
      else el.value = value;
      // a value put back (typed while the fields were on their way) is news to the form's
      // live preview, which listens for input: it asks again with it
      if (before !== value) el.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }
  typedFields = null;
});
// htmx puts the caret back into the focused field after a swap, but not a selection that
// starts at 0 (it tests the start for truth): the whole text selected, the key typed next
// went in front of it ("0" selected, "1" typed: "10"). The selection comes back here.
let selected = null;
document.addEventListener("htmx:beforeSwap", () => {
  const el = document.activeElement;
  selected = el && el.id && typeof el.selectionStart === "number" && el.selectionStart === 0
    && el.selectionEnd > 0 ? { id: el.id, end: el.selectionEnd, value: el.value } : null;
});
document.addEventListener("htmx:afterSwap", () => {
  const el = selected && document.activeElement;
  if (el && el.id === selected.id && el.value === selected.value) {
    try { el.setSelectionRange(0, selected.end); } catch (e) { /* not a text field */ }
  }
  selected = null;
});
// A button whose request is in flight is disabled and says so ("Saving…"), restored after the
// answer, good or bad: a click is seen to be taken, and cannot be sent twice.
const BUSY_WORDS = {
  add: "Adding", save: "Saving", remove: "Removing", delete: "Deleting", duplicate: "Duplicating",
  roll: "Rolling", update: "Updating", create: "Creating", make: "Making", fork: "Forking",
  join: "Joining", undo: "Undoing", apply: "Applying", import: "Importing", invite: "Inviting",
  leave: "Leaving", revoke: "Revoking", start: "Starting", end: "Ending", send: "Sending",
  "↑": "Moving", "↓": "Moving",
};
const busy = new WeakMap(); // xhr -> {button, nodes, focused}
function busyButton(detail) {
  const elt = detail.elt;
  if (elt instanceof HTMLButtonElement) return elt;
  const event = detail.requestConfig && detail.requestConfig.triggeringEvent;
  if (!event || event.type !== "submit") return null; // typing into a live form: no button pressed
  if (event.submitter instanceof HTMLButtonElement) return event.submitter;
  return elt.querySelector ? elt.querySelector("button[type=submit], button:not([type])") : null;
}
function busyText(button) {
  if (button.dataset.busy) return button.dataset.busy;
  const word = button.textContent.trim().split(/\s+/)[0].toLowerCase();
  return `${BUSY_WORDS[word] || "Working"}…`;
}
document.addEventListener("htmx:beforeSend", (event) => {
  const button = busyButton(event.detail);
  if (!button || button.disabled) return;
  const text = busyText(button);
  busy.set(event.detail.xhr, {
    button, nodes: Array.from(button.childNodes), focused: document.activeElement === button,
  });
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = text;
});
document.addEventListener("htmx:afterRequest", (event) => {
  const state = busy.get(event.detail.xhr);
  if (!state) return;
  busy.delete(event.detail.xhr);
  const { button, nodes, focused } = state;
  button.replaceChildren(...nodes);
  button.removeAttribute("aria-busy");
  button.disabled = false;
  if (!focused) return;
  if (button.isConnected) {
    if (document.activeElement === document.body) button.focus();
    return;
  }
  // The answer swapped in a new copy of the button (same id): the keyboard goes on to it once
  // htmx has settled its attributes (until then it wears the old, disabled ones). Our settle
  // delay is 0, so that is done by now unless a swap is still settling.
  if (!button.id) return;
  const focusFresh = () => {
    const fresh = document.getElementById(button.id);
    if (fresh && !fresh.disabled && document.activeElement === document.body) fresh.focus();
  };
  if (document.querySelector(".htmx-settling")) {
    document.addEventListener("htmx:afterSettle", focusFresh, { once: true });
  } else {
    focusFresh();
  }
});
