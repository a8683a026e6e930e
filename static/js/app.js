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
