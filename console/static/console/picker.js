// The drain page's host list, narrowed as you type in its Find box (without
// JavaScript, "Filter the list" asks the server for the same). Picked hosts
// always stay in view.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("input[data-filters]").forEach((input) => {
    const select = document.getElementById(input.dataset.filters);
    const count = document.getElementById(input.dataset.count);
    if (!select) return;
    const options = Array.from(select.options);
    const total = count ? count.textContent.replace(/^\d+ of /, "") : "";
    const apply = () => {
      const needle = input.value.trim().toLowerCase();
      let shown = 0;
      options.forEach((option) => {
        const hit = !needle || option.selected || option.text.toLowerCase().includes(needle)
          || option.value.includes(needle);
        option.hidden = !hit;
        if (hit) shown += 1;
      });
      if (count) count.textContent = `${shown} of ${total}`;
    };
    input.addEventListener("input", apply);
    // Enter in the box narrows the list (already done), not a new page.
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") event.preventDefault();
    });
  });
});
