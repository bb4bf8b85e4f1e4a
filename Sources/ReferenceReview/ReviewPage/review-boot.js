// @ts-check
// Starts the page, once every other file has declared its part.
'use strict';

if (dataProblem) {
  $('summary').textContent = dataProblem;
} else {
  buildHeader();
  installList();
  installPanes();
  document.addEventListener('keydown', onKeyDown);
  setMix(50);
  visible = computeVisible();
  showListSize();
  renderWindow();
  updateHeader();
  updateCounts();
  refreshExport();
  runFlicker();
  list.focus();
  performance.mark('review-first-screen');
  document.documentElement.dataset.ready = 'true';
}
