// A minimal page: one card per change with its images. The full review page replaces it.
const data = window.REFERENCE_REVIEW;
const counts = Object.entries(data.counts).map(([k, v]) => `${v} ${k}`).join(', ');
document.getElementById('summary').textContent = counts;
const main = document.getElementById('cards');
for (const card of data.cards) {
  const section = document.createElement('section');
  section.className = `card ${card.outcome}`;
  section.dataset.path = card.path;
  const title = document.createElement('h2');
  title.textContent = `${card.outcome} ${card.path}`;
  section.appendChild(title);
  const images = [card.before, card.after, card.difference, ...card.rivals.map((r) => r.image)];
  for (const image of images.filter(Boolean)) {
    const img = document.createElement('img');
    img.loading = 'lazy';
    img.src = image.src;
    img.width = image.width;
    img.height = image.height;
    section.appendChild(img);
  }
  main.appendChild(section);
}
