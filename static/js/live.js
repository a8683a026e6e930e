// A live battle page (#live, htmx's SSE extension): shows whether the stream is open, keeps
// the newest log number the page shows, and skips an event it already has (its own roll came
// back in the roll's answer first). When the extension opens a new stream after an error it
// does not send Last-Event-ID (a new EventSource): the address then says ?after=<that number>,
// so the server sends what the page missed, in order, once.
(function () {
  "use strict";
  var last = 0;

  function live() { return document.getElementById("live"); }
  function say(text, state) {
    var el = live();
    if (el) { el.textContent = text; el.dataset.state = state; }
  }
  function seen(n) {
    if (n > last) {
      last = n;
      var el = live();
      if (el) { el.dataset.lastSeq = String(n); }
    }
  }

  if (window.htmx && htmx.createEventSource) {
    var make = htmx.createEventSource;
    htmx.createEventSource = function (url) {
      return make(last ? url.replace(/([?&])after=\d+/, "$1after=" + last) : url);
    };
  }

  document.addEventListener("DOMContentLoaded", function () {
    var el = live();
    if (el) { seen(parseInt(el.dataset.lastSeq, 10) || 0); say("Connecting…", "connecting"); }
  });
  document.addEventListener("htmx:sseOpen", function () { say("Live", "open"); });
  document.addEventListener("htmx:sseError", function () { say("Reconnecting…", "reconnecting"); });
  document.addEventListener("htmx:sseClose", function () {
    say("Not live: reload the page for new entries", "closed");
  });
  function logShows() {
    var log = document.getElementById("log");
    return log ? parseInt(log.dataset.lastSeq, 10) || 0 : 0;
  }
  // "reload": the log lost an entry (Undo) or changed otherwise. A page whose own request is
  // under way waits for its answer (an Undo of its own brings the log as it now is); a page
  // whose log already ends at that number has nothing to reload.
  function reloadUnless(n) {
    if (document.querySelector(".htmx-request")) {
      document.addEventListener("htmx:afterSettle", function again() {
        document.removeEventListener("htmx:afterSettle", again);
        reloadUnless(n);
      });
      return;
    }
    if (logShows() !== n) { window.location.reload(); } else { last = n; }
  }
  document.addEventListener("htmx:sseBeforeMessage", function (evt) {
    var message = evt.detail;
    if (message.type === "presence") { return; }  // who is connected: no entry, no number
    var n = parseInt(message.lastEventId, 10) || 0;
    if (message.type === "reload") { evt.preventDefault(); reloadUnless(n); return; }
    if (n <= last) { evt.preventDefault(); return; }  // the page shows it already
    seen(n);
    var log = document.getElementById("log");
    if (log) { log.dataset.lastSeq = String(n); }
  });
  // A live event brings the units each picker may offer now (#pickers-now): the pickers
  // follow, keeping the player's choice while it is still offered. When the chosen attacker
  // or target changed (or is gone), the form is asked for again: its weapons and odds are
  // then those of the units as they now stand.
  function parse(el, name) {
    try { return JSON.parse(el.getAttribute(name) || "[]"); } catch (e) { return []; }
  }
  function follow(select, options) {
    if (!select) { return ""; }
    var chosen = select.value, kept = chosen === "";
    while (select.options.length > 1) { select.remove(1); }  // (the first: "choose…")
    options.forEach(function (o) {
      var opt = new Option(o[1], o[0]);
      if (o[0] === chosen) { opt.selected = true; kept = true; }
      select.add(opt);
    });
    if (!kept) { select.selectedIndex = 0; }
    return kept ? chosen : "";
  }
  // Only an entry's event brings them: the page's own copy is as the page was loaded (its own
  // rolls' answers bring the form, not this), and a "presence" event changes no unit.
  document.addEventListener("htmx:sseMessage", function (evt) {
    if (!evt.detail || evt.detail.type !== "entry") { return; }
    var now = document.getElementById("pickers-now");
    var attacker = document.getElementById("f-attacker");
    if (!now || !attacker || now.dataset.applied) { return; }
    now.dataset.applied = "1";
    var target = document.getElementById("f-target");
    var before = [attacker.value, target ? target.value : ""];
    var after = [follow(attacker, parse(now, "data-attackers")),
                 follow(target, parse(now, "data-targets"))];
    var changed = parse(now, "data-changed");
    var moved = before.some(function (id, i) {
      return id !== "" && (after[i] !== id || changed.indexOf(id) >= 0);
    });
    if (moved && !document.querySelector("#attack-form.htmx-request")) {
      attacker.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  // An answer of the page's own (a roll, an action) brings the log as it now is.
  document.addEventListener("htmx:afterSettle", function () {
    var log = document.getElementById("log");
    if (log) { seen(parseInt(log.dataset.lastSeq, 10) || 0); }
  });
})();
