import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The markup, style and script of the review report.
enum ReportHTML {
  /// The name of the exported decision file, which the page's command line reads.
  static let decisionFileName = "reference-decisions.txt"

  static func header(plan: MergePlan, landCommand: [String]) -> String {
    let command =
      ([shellQuoted(landCommand[0]), "--include-from", decisionFileName]
      + landCommand.dropFirst().map(shellQuoted)).joined(separator: " ")
    let counts = plan.counts
    let filters = [MergePlan.Outcome.added, .updated, .conflict, .orphan].map { outcome in
      let count = counts[outcome] ?? 0
      return """
        <label class="filter \(outcome.rawValue)"><input type="checkbox" data-outcome="\(outcome.rawValue)" \
        checked> \(outcome.rawValue) <b>\(count)</b></label>
        """
    }.joined(separator: "\n")
    let sources = plan.inventories.map { inventory in
      let state = inventory.incompleteReason.map { " — incomplete: \(escape($0))" } ?? ""
      return "<li>\(escape(inventory.source.description)): \(inventory.imageCount) images, "
        + "\(escape(inventory.workerSummary))\(state)</li>"
    }.joined(separator: "\n")
    return """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Reference images: review</title>
      <style>\(style)</style></head>
      <body>
      <header>
      <h1>Reference images: review</h1>
      <p id="summary">\(counts[.added] ?? 0) added, \(counts[.updated] ?? 0) updated, \
      \(counts[.unchanged] ?? 0) unchanged, \(counts[.conflict] ?? 0) conflicts, \
      \(counts[.orphan] ?? 0) orphans — destination \(escape(plan.destination.path))</p>
      <nav>\(filters)</nav>
      <details><summary>\(plan.inventories.count) sources</summary><ul>\(sources)</ul></details>
      <div id="decision" data-file="\(decisionFileName)">
      <button type="button" id="accept-all">Accept all</button> \
      <button type="button" id="reject-all">Reject all</button> \
      <span id="accepted-count"></span> \
      <a id="download" download="\(decisionFileName)" href="#">Download accepted paths</a>
      <details><summary>then run, in the folder where \(decisionFileName) was saved</summary>
      <pre id="command">\(escape(command))</pre>
      <pre id="decision-file"></pre></details>
      </div>
      </header>
      <main id="cards">

      """
  }

  static func card(
    item: MergePlan.Item, meta: [String], figures: [(String, RGBAImage?)],
    overlay: (RGBAImage, RGBAImage)? = nil
  ) -> String {
    let figureHTML = figures.map { caption, image in
      "<figure><figcaption>\(escape(caption))</figcaption>\(img(image))</figure>"
    }.joined()
    var overlayHTML = ""
    if let (before, after) = overlay {
      overlayHTML = """
        <figure class="overlay"><figcaption>overlay: before left of the slider, after right</figcaption>\
        <div class="stack">\(img(before))<div class="top">\(img(after))</div></div>\
        <input type="range" min="0" max="100" value="50" aria-label="overlay position"></figure>
        """
    }
    return """
      <section class="card \(item.outcome.rawValue)" data-outcome="\(item.outcome.rawValue)" \
      data-path="\(escape(item.path))">
      <h2><label class="decide"><input type="checkbox" class="accept" checked> accept</label> \
      <span class="badge">\(item.outcome.rawValue)</span> \(escape(item.path))</h2>
      <ul class="meta">\(meta.map { "<li>\(escape($0))</li>" }.joined())</ul>
      <div class="figures">\(figureHTML)\(overlayHTML)</div>
      </section>

      """
  }

  static let footer = """
    </main>
    <script>\(script)</script>
    </body></html>

    """

  /// An image tag whose data is only attached when the card becomes visible.
  private static func img(_ image: RGBAImage?) -> String {
    guard let image, let png = try? PNGEncoder().encode(image) else {
      return "<p class=\"missing\">(not available)</p>"
    }
    let data = Data(png).base64EncodedString()
    return "<img alt=\"\" width=\"\(image.width)\" height=\"\(image.height)\" "
      + "data-src=\"data:image/png;base64,\(data)\">"
  }

  /// A shell word: as is when it is made of safe characters, else single-quoted.
  static func shellQuoted(_ word: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+@%,")
    if !word.isEmpty && word.allSatisfy(safe.contains) { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }

  private static let style = """
    body{font:14px system-ui,sans-serif;margin:0;background:#f4f4f2;color:#222}
    header{position:sticky;top:0;background:#fff;padding:12px 20px;border-bottom:1px solid #ccc;z-index:2}
    h1{font-size:20px;margin:0 0 6px}
    nav{display:flex;gap:12px;margin:6px 0}
    .filter{padding:3px 8px;border-radius:10px;background:#eee;cursor:pointer}
    main{padding:12px 20px}
    .card{background:#fff;border:1px solid #ddd;border-radius:6px;margin:0 0 14px;padding:10px 14px}
    .card h2{font-size:14px;margin:0 0 4px;word-break:break-all}
    .badge{display:inline-block;padding:1px 6px;border-radius:8px;color:#fff;font-size:12px}
    .added .badge{background:#2b8a3e}.updated .badge{background:#1864ab}
    .conflict .badge{background:#c92a2a}.orphan .badge{background:#868e96}
    .meta{margin:0 0 8px;padding-left:18px;color:#555}
    .figures{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
    figure{margin:0}figcaption{font-size:12px;color:#666;margin-bottom:3px}
    img{display:block;min-width:160px;max-width:420px;height:auto;image-rendering:pixelated;
      background:repeating-conic-gradient(#ddd 0 25%,#fff 0 50%) 0 0/16px 16px;border:1px solid #ccc}
    .stack{position:relative;display:inline-block}
    .stack .top{position:absolute;inset:0;clip-path:inset(0 0 0 50%)}
    .overlay input{width:100%}
    .hidden{display:none}
    #decision{margin:6px 0}#decision pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f2;padding:4px}
    .decide{float:right;font-weight:normal;font-size:13px}
    .card.rejected{opacity:.45}.card.rejected .badge{text-decoration:line-through}
    """

  private static let script = """
    const cards=[...document.querySelectorAll('.card')];
    // Cards arrive grouped by source; show them sorted by path.
    const main=document.getElementById('cards');
    cards.sort((a,b)=>a.dataset.path.localeCompare(b.dataset.path)).forEach(c=>main.appendChild(c));
    const load=card=>card.querySelectorAll('img[data-src]').forEach(i=>{i.src=i.dataset.src;i.removeAttribute('data-src');});
    const seen=new IntersectionObserver(es=>es.forEach(e=>{if(e.isIntersecting){load(e.target);seen.unobserve(e.target);}}),{rootMargin:'400px'});
    cards.forEach(c=>seen.observe(c));
    document.querySelectorAll('nav input').forEach(box=>box.addEventListener('change',()=>{
      cards.filter(c=>c.dataset.outcome===box.dataset.outcome).forEach(c=>c.classList.toggle('hidden',!box.checked));
    }));
    // Review decisions: every card accepted until rejected; the export is the accepted paths,
    // one per line, for merge-refs --include-from.
    const decide=()=>{
      const accepted=cards.filter(c=>c.querySelector('input.accept').checked);
      cards.forEach(c=>c.classList.toggle('rejected',!c.querySelector('input.accept').checked));
      const command=document.getElementById('command').textContent;
      const text='# Reference images accepted in review ('+accepted.length+' of '+cards.length+').\\n'
        +'# Land them with:\\n# '+command+'\\n'+accepted.map(c=>c.dataset.path+'\\n').join('');
      document.getElementById('decision-file').textContent=text;
      document.getElementById('download').href='data:text/plain;charset=utf-8,'+encodeURIComponent(text);
      document.getElementById('accepted-count').textContent=accepted.length+' of '+cards.length+' accepted';
    };
    cards.forEach(c=>c.querySelector('input.accept').addEventListener('change',decide));
    const setAll=value=>()=>{cards.forEach(c=>c.querySelector('input.accept').checked=value);decide();};
    document.getElementById('accept-all').addEventListener('click',setAll(true));
    document.getElementById('reject-all').addEventListener('click',setAll(false));
    decide();
    document.querySelectorAll('.overlay input').forEach(r=>r.addEventListener('input',()=>{
      r.parentElement.querySelector('.top').style.clipPath='inset(0 0 0 '+r.value+'%)';
    }));
    """
}
