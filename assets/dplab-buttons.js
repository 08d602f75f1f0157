// dplab: a column of plain buttons in one component (app/shell/widgets.py ButtonColumn).
// Each button sits in a <div> with its item's class (e.g. "dp-preset-sum_pass"), so a
// locator such as ".dp-preset-sum_pass button" finds it; a click sends the item's key.
export function render({ model, el }) {
  const list = document.createElement("div");
  list.className = "dp-button-column";
  if (model.label) {
    list.setAttribute("role", "group");
    list.setAttribute("aria-label", model.label);
  }
  function build() {
    list.replaceChildren();
    for (const item of model.items) {
      const wrap = document.createElement("div");
      wrap.className = item.cls || "";
      const b = document.createElement("button");
      b.type = "button";
      b.className = "dp-column-btn";
      b.textContent = item.label;
      b.addEventListener("click", () => model.send_msg({ key: item.key }));
      wrap.appendChild(b);
      list.appendChild(wrap);
    }
  }
  build();
  model.on("items", build);
  el.appendChild(list);
}
