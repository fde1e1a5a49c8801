// The demo shop works without a server behind it: prices come from the page, and the order is
// "placed" after a short pause, as a real shop's would, so a skill has something to wait for.
const form = document.getElementById("order");
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const name = document.getElementById("name").value.trim();
  const plan = document.getElementById("plan").value;
  const seats = Number(document.getElementById("seats").value);
  const product = document.querySelector(`.product[data-sku="${plan}"]`);
  const price = Number(product.querySelector(".price").textContent);
  const total = (price * seats).toFixed(2);
  const number = `SR-${String(Date.now()).slice(-6)}`;
  form.querySelector("button").disabled = true;
  setTimeout(() => {
    document.getElementById("message").textContent =
      `Thank you, ${name}! ${seats} × ${product.querySelector(".name").textContent} ordered.`;
    document.getElementById("order-number").textContent = number;
    document.getElementById("total").textContent = total;
    document.getElementById("receipt").hidden = false;
    form.querySelector("button").disabled = false;
  }, 500);
});
