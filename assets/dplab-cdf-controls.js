// dplab: /cdf's controls, a group of parts in one component (app/cdf/component.py
// PartsPanel: the sidebar, app/cdf/sidebar.py SidebarPanel; the main area's degree box and
// stream controls; their parts: app/cdf/parts.py; style: dplab-lab-controls.css, then
// dplab-cdf-controls.css, and dplab-cdf-main-controls.css in the main area).
// The server sends the markup once (labels, names, values) with `base` (what each part showed
// then) and then two small JSON texts when they change, each with the parts that differ from
// `base`: `values` (part -> what it shows; `ack`, the number of the last message taken)
// and `texts` (an HTML part -> [its HTML, shown]; a control -> its label; a select -> [its
// label, its options]). Each commit of the student is one message:
//   {k: "text", c, v}     Enter in a field, or leaving a field whose text changed
//   {k: "select", c, v}   a choice (the option's text, as the select or radio holds it)
//   {k: "settle", c, v}   the ε slider or a select settled: the pointer let go, an option
//                         picked, Enter (the server releases a pending value at once)
//   {k: "slide", c, v}    a step of a slider: the ε slider's key press or drag let go; a
//                         live slider's (data-live, the degree) every step, drags included
//   {k: "check", c, v}    a checkbox;   {k: "click", c}   a button
// (each with n, its number). The CSV file goes in chunks, as app/cdf/widgets.py UploadBox's.
// A field being edited is never overwritten by the server's values (it would lose what is
// typed); a rejected text stays with its message until it is fixed. The values carry the
// page's address too (`addr`, replaced in place).
// No imports: it loads nothing from anywhere (offline).

function b64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function numText(v) {
  return String(Math.round(Number(v) * 1e4) / 1e4);
}

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "dp-controls";
  root.innerHTML = model.markup;
  let sent = 0;
  const send = (msg) => model.send_msg({ ...msg, n: ++sent });
  const parts = {};
  for (const box of root.querySelectorAll("[data-p]")) parts[box.dataset.p] = box;
  const dirty = new Set();     // fields edited since their last commit
  const lastSent = {};
  const dragging = {};         // slider -> held by a pointer

  // ---- text fields ------------------------------------------------------------------------
  const fields = {};
  for (const [c, box] of Object.entries(parts)) {
    const input = box.classList.contains("dp-field") ? box.querySelector("input") : null;
    if (input) fields[c] = input;
  }
  function commit(c, input) {
    dirty.delete(c);
    if (lastSent[c] === input.value && !input.hasAttribute("aria-invalid")) return;
    lastSent[c] = input.value;
    send({ k: "text", c, v: input.value });
  }
  // An input method (IME) ends its composition on Enter: the commit waits for its end
  // (as /lab's fields, assets/dplab-lab-controls.js).
  const enterAfterComposing = new Set();
  for (const [c, input] of Object.entries(fields)) {
    lastSent[c] = input.value;
    input.addEventListener("input", () => {
      if (input.value !== lastSent[c]) dirty.add(c);
    });
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      if (e.isComposing || e.keyCode === 229) { enterAfterComposing.add(c); return; }
      lastSent[c] = undefined;
      commit(c, input);
    });
    input.addEventListener("compositionend", () => {
      if (enterAfterComposing.delete(c)) { lastSent[c] = undefined; commit(c, input); }
    });
    input.addEventListener("change", () => commit(c, input));
  }

  // ---- selects: a choice is sent at once; it settles when picked or on Enter --------------
  const selects = {};
  for (const [c, box] of Object.entries(parts)) {
    const sel = box.querySelector("select");
    if (sel) selects[c] = sel;
  }
  for (const [c, sel] of Object.entries(selects)) {
    // A key pressed on a select changes its value in the key's default action: such a change
    // waits for the pause (the server's); a choice made otherwise (the list, a click) settles.
    let keyed = false;
    sel.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        send({ k: "settle", c, v: sel.value });
        return;
      }
      keyed = true;
      setTimeout(() => { keyed = false; }, 0);
    });
    sel.addEventListener("change", () => {
      send({ k: "select", c, v: sel.value });
      if (!keyed) send({ k: "settle", c, v: sel.value });
    });
  }

  // ---- radio groups (a row of buttons): a choice is sent at once (arrow keys move it) -------
  const radios = {};
  for (const [c, box] of Object.entries(parts)) {
    if (!box.classList.contains("dp-radios")) continue;
    radios[c] = [...box.querySelectorAll("input[type=radio]")];
    for (const r of radios[c]) {
      r.addEventListener("change", () => { if (r.checked) send({ k: "select", c, v: r.value }); });
    }
  }

  // ---- checkboxes and buttons ---------------------------------------------------------------
  const checks = {};
  const buttons = {};
  for (const [c, box] of Object.entries(parts)) {
    if (box.classList.contains("dp-check")) {
      const input = box.querySelector("input");
      checks[c] = input;
      input.addEventListener("change", () => send({ k: "check", c, v: input.checked }));
    } else if (box.classList.contains("dp-action")) {
      const b = box.querySelector("button");
      buttons[c] = b;
      b.addEventListener("click", () => send({ k: "click", c }));
    }
  }

  // ---- sliders: the ε slider sends each step (a key, a drag let go) and settles when the
  // pointer is let go or on Enter; a live slider (data-live: the degree) sends every step ---
  const sliders = {};
  const shows = {};            // slider -> its value is shown after the label
  for (const [c, box] of Object.entries(parts)) {
    const r = box.querySelector("input[type=range]");
    if (r) { sliders[c] = r; shows[c] = true; }
  }
  const readout = (c) => {
    const r = sliders[c];
    const fmt = parts[c].dataset.fmt;
    const text = fmt ? fmt.replace("{}", numText(r.value)) : numText(r.value);
    if (fmt) r.setAttribute("aria-valuetext", text);
    const out = parts[c].querySelector(".dp-slider-value");
    const shown = shows[c] ? text : "";
    if (out && out.textContent !== shown) out.textContent = shown;
  };
  for (const [c, r] of Object.entries(sliders)) {
    const live = parts[c].dataset.live === "1";
    const step = () => send({ k: "slide", c, v: Number(r.value) });
    r.addEventListener("input", () => { readout(c); if (live) step(); });
    r.addEventListener("change", () => { readout(c); if (!live) step(); });
    r.addEventListener("pointerdown", () => { dragging[c] = true; });
    const up = () => {
      if (!dragging[c]) return;
      dragging[c] = false;
      // after the range's own change (the released value)
      if (!live) setTimeout(() => send({ k: "settle", c, v: Number(r.value) }), 0);
    };
    r.addEventListener("pointerup", up);
    r.addEventListener("pointercancel", up);
    r.addEventListener("blur", () => { dragging[c] = false; });
    if (!live) {
      r.addEventListener("keydown", (e) => {
        if (e.key === "Enter") send({ k: "settle", c, v: Number(r.value) });
      });
    }
  }

  // ---- the CSV file: checked for size, then sent in 1 MiB chunks ---------------------------
  const file = root.querySelector("input[type=file]");
  if (file) {
    const status = file.parentElement.querySelector(".dp-upload-progress");
    file.addEventListener("change", async () => {
      const f = file.files && file.files[0];
      if (!f) return;
      const id = Date.now().toString(36) + Math.random().toString(36).slice(2);
      if (f.size > model.max_bytes) {
        model.send_msg({ kind: "too_big", id, name: f.name, size: f.size });
        file.value = "";
        return;
      }
      if (status) status.textContent = model.busy_text;
      const bytes = new Uint8Array(await f.arrayBuffer());
      const step = 1 << 20;
      const chunks = Math.max(1, Math.ceil(bytes.length / step));
      model.send_msg({ kind: "start", id, name: f.name, size: bytes.length, chunks });
      for (let i = 0; i < chunks; i++) {
        model.send_msg({ kind: "chunk", id, i, data: b64(bytes.subarray(i * step, (i + 1) * step)) });
      }
      model.send_msg({ kind: "end", id });
      if (status) status.textContent = "";
      file.value = "";
    });
  }

  // ---- the server's values ------------------------------------------------------------------
  const show = (box, on) => { if (box.hidden === on) box.hidden = !on; };
  const setLabel = (box, text) => {
    const label = box.querySelector("label");
    if (label && label.textContent !== text) label.textContent = text;
  };
  // The page's address follows its state (app/cdf/sidebar.py AddressPart): keys set to ""
  // leave it; one history entry per page (replaced, so Back leaves the page).
  function showAddress(query) {
    const u = new URL(window.location.href);
    for (const [k, val] of Object.entries(query || {})) {
      if (val === "" || val === null) u.searchParams.delete(k);
      else u.searchParams.set(k, String(val));
    }
    if (u.href !== window.location.href) {
      window.history.replaceState(window.history.state, "", u.href);
    }
  }
  // What every part showed when the page was made; values and texts hold the differences.
  const base = JSON.parse(model.base || "{}");
  function showValues() {
    const v = { ...(base.values || {}), ...JSON.parse(model.values || "{}") };
    const inFlight = (v.ack || 0) < sent;
    showAddress(v.addr);
    for (const [c, state] of Object.entries(v)) {
      const box = parts[c];
      if (!box || state === null || c === "ack") continue;
      if (fields[c]) {
        const [text, disabled, visible, error] = state;
        const input = fields[c];
        if (!dirty.has(c)) {
          if (input.value !== text) input.value = text;
          lastSent[c] = text;
        }
        input.disabled = disabled;
        show(box, visible);
        const desc = box.querySelector(".dp-field-desc");
        if (error) {
          if (desc.textContent !== error) desc.textContent = error;
          input.setAttribute("aria-invalid", "true");
          input.setAttribute("aria-describedby", desc.id);
        } else if (input.hasAttribute("aria-invalid")) {
          desc.textContent = "";
          input.removeAttribute("aria-invalid");
          input.removeAttribute("aria-describedby");
        }
      } else if (selects[c]) {
        const [shown, disabled, visible] = state;
        const sel = selects[c];
        if (sel.value !== shown) sel.value = shown;
        sel.disabled = disabled;
        show(box, visible);
      } else if (checks[c]) {
        const [on, disabled, visible] = state;
        checks[c].checked = on;
        checks[c].disabled = disabled;
        show(box, visible);
      } else if (buttons[c]) {
        const [disabled, visible] = state;
        buttons[c].disabled = disabled;
        show(box, visible);
      } else if (radios[c]) {
        const [shown, disabled, visible] = state;
        for (const r of radios[c]) {
          if (r.checked !== (r.value === shown)) r.checked = r.value === shown;
          r.disabled = disabled;
        }
        show(box, visible);
      } else if (sliders[c]) {
        // the ε slider: its position; another: [position, disabled, shown, min, max, value shown]
        const r = sliders[c];
        let value = state;
        if (Array.isArray(state)) {
          const [at, disabled, visible, lo, hi, showValue] = state;
          value = at;
          if (r.min !== String(lo)) r.min = String(lo);
          if (r.max !== String(hi)) r.max = String(hi);
          r.disabled = disabled;
          show(box, visible);
          shows[c] = showValue;
        }
        // a step in flight or a held handle: the handle stays where the student has it
        if (!dragging[c] && !inFlight && Number(r.value) !== value) r.value = String(value);
        readout(c);
      } else if (typeof state === "string") {  // a pending note
        const p = box.querySelector("p");
        if (p.textContent !== state) p.textContent = state;
        p.classList.toggle("dp-cdf-pending-on", state !== "");
      }
    }
  }
  const shownTexts = {};  // part -> the HTML it was given (the browser's innerHTML differs)
  function showTexts() {
    const v = { ...(base.texts || {}), ...JSON.parse(model.texts || "{}") };
    let options = false;
    for (const [c, state] of Object.entries(v)) {
      const box = parts[c];
      if (!box) continue;
      if (selects[c]) {  // a select's label and options (its choice comes with the values)
        const [label, opts] = state;
        setLabel(box, label);
        const sel = selects[c];
        if ([...sel.options].map((o) => o.value).join("\n") !== opts.join("\n")) {
          sel.replaceChildren(...opts.map((o) => new Option(o, o)));
          options = true;
        }
      } else if (buttons[c]) {
        if (buttons[c].textContent !== state) buttons[c].textContent = state;
      } else if (radios[c]) {  // the group's name and its options' texts
        const [label, opts] = state;
        if (box.getAttribute("aria-label") !== label) box.setAttribute("aria-label", label);
        radios[c].forEach((r, i) => {
          if (i >= opts.length || r.value === opts[i]) return;
          r.value = opts[i];
          r.nextElementSibling.textContent = opts[i];
          options = true;
        });
      } else if (fields[c] || checks[c] || sliders[c]) {
        setLabel(box, state);
      } else {  // an HTML part
        const [text, visible] = state;
        if (shownTexts[c] === undefined) shownTexts[c] = box.innerHTML;
        if (shownTexts[c] !== text) {
          box.innerHTML = text;
          shownTexts[c] = text;
        }
        show(box, visible);
      }
    }
    if (options) showValues();  // each select's choice among its new options
  }

  // A control that takes the focus is brought wholly into view (as /lab's, issue 39, 6b).
  root.addEventListener("focusin", (e) => {
    const target = e.target;
    if (target && typeof target.scrollIntoView === "function") {
      target.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  });

  showValues();
  showTexts();
  model.on("values", showValues);
  model.on("texts", showTexts);
  el.appendChild(root);
}
