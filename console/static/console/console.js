// Click a column heading of any console table to sort by it (again to reverse).
// Cells sort by their data-sort value (raw amounts) or their text, numbers as numbers.
// Paged lists the server sorts (class "server-sorted") keep their heading links instead.
document.addEventListener("DOMContentLoaded", () => {
  const key = (row, index) => {
    const cell = row.children[index];
    if (!cell) return "";
    const marked = cell.querySelector("[data-sort]");
    const text = marked ? marked.dataset.sort : cell.textContent.trim();
    const number = Number(text.replace(/[ ,%]/g, ""));
    return text !== "" && !Number.isNaN(number) ? number : text.toLowerCase();
  };
  document.querySelectorAll("table.grid:not(.server-sorted)").forEach((table) => {
    const body = table.tBodies[0];
    if (!body || body.rows.length < 2) return;
    table.querySelectorAll("thead th").forEach((th, index) => {
      th.classList.add("sortable");
      th.title = "Sort by this column";
      th.addEventListener("click", () => {
        const down = th.dataset.order !== "asc";
        table.querySelectorAll("thead th").forEach((h) => delete h.dataset.order);
        th.dataset.order = down ? "asc" : "desc";
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = key(a, index), y = key(b, index);
          const order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0)
                                               : String(x).localeCompare(String(y));
          return down ? order : -order;
        });
        rows.forEach((row) => body.appendChild(row));
      });
    });
  });
});
