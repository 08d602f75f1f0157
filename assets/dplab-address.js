
const query = JSON.parse(cb_obj.text || "{}");
const u = new URL(window.location.href);
for (const [k, v] of Object.entries(query)) {
  if (v === "" || v === null) { u.searchParams.delete(k); }
  else { u.searchParams.set(k, String(v)); }
}
if (u.href !== window.location.href) {
  window.history.replaceState(window.history.state, "", u.href);
}
