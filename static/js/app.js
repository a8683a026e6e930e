// BrikForge's only script of its own: tell the user when a request fails outright.
function showError(text) {
  const area = document.getElementById("flash");
  if (!area) return;
  const p = document.createElement("p");
  p.className = "flash error";
  p.setAttribute("role", "alert");
  p.textContent = text;
  area.replaceChildren(p);
}
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
      if (el.type === "checkbox") el.checked = value;
      else el.value = value;
    }
  }
  typedFields = null;
});
