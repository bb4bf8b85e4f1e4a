/// The printed result: one row per operation, columns padded to line up in a terminal and in a
/// pasted issue comment.
struct ReportTable {
  struct Row {
    var operation: String
    var ours: String
    var baseline: String
    var ratio: String
    var throughput: String
    var target: String
  }

  private(set) var rows: [Row] = []
  private(set) var notes: [String] = []

  mutating func add(
    _ operation: String, ours: String, baseline: String = "—", ratio: String = "—",
    throughput: String = "—", target: String = "—"
  ) {
    rows.append(
      Row(
        operation: operation, ours: ours, baseline: baseline, ratio: ratio,
        throughput: throughput, target: target))
  }

  mutating func note(_ text: String) { notes.append(text) }

  func render() -> String {
    let header = Row(
      operation: "operation", ours: "ours", baseline: "baseline (same run)",
      ratio: "ours/base", throughput: "throughput", target: "target")
    let all = [header] + rows
    func width(_ column: (Row) -> String) -> Int { all.map { column($0).count }.max() ?? 0 }
    let widths = [
      width(\.operation), width(\.ours), width(\.baseline), width(\.ratio), width(\.throughput),
    ]
    func line(_ row: Row) -> String {
      let cells = [row.operation, row.ours, row.baseline, row.ratio, row.throughput]
      let padded = zip(cells, widths).map { cell, width in
        cell + String(repeating: " ", count: width - cell.count)
      }
      return (padded + [row.target]).joined(separator: " | ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) } + ["------"]
    var lines = [line(header), rule.joined(separator: "-|-")]
    lines += rows.map(line)
    if !notes.isEmpty { lines.append("") }
    lines += notes.map { "  * " + $0 }
    return lines.joined(separator: "\n")
  }
}

/// Number formatting without Foundation's locale-dependent formatters, so output is the same
/// everywhere.
enum Format {
  static func milliseconds(_ seconds: Double) -> String {
    let ms = seconds * 1000
    if ms >= 100 { return fixed(ms, 0) + " ms" }
    if ms >= 10 { return fixed(ms, 1) + " ms" }
    return fixed(ms, 2) + " ms"
  }

  /// Two decimals, more for ratios far below 1 (ImageMagick's process against an in-memory scan)
  /// so they do not print as 0.00×.
  static func ratio(_ value: Double) -> String {
    fixed(value, value >= 0.1 ? 2 : value >= 0.01 ? 3 : 4) + "×"
  }

  static func pixelsPerSecond(_ pixels: Int, _ seconds: Double) -> String {
    let rate = Double(pixels) / seconds
    if rate >= 1e9 { return fixed(rate / 1e9, 2) + " Gpx/s" }
    return fixed(rate / 1e6, 0) + " Mpx/s"
  }

  static func bytes(_ count: Int) -> String {
    var digits = String(count)
    var index = digits.count - 3
    while index > 0 {
      digits.insert(",", at: digits.index(digits.startIndex, offsetBy: index))
      index -= 3
    }
    return digits + " B"
  }

  /// A part of a whole as a percentage, such as "1.2%".
  static func share(_ part: Int, of whole: Int) -> String {
    fixed(Double(part) * 100 / Double(max(whole, 1)), 1) + "%"
  }

  static func percent(_ value: Double) -> String {
    (value >= 0 ? "+" : "") + fixed(value * 100, 1) + "%"
  }

  static func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int(rounded / scale)
    let fraction = Int(rounded) - whole * Int(scale)
    var text = (value < 0 && rounded != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
      let digits = String(fraction)
      text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
  }

  static func verdict(_ pass: Bool) -> String { pass ? "PASS" : "MISS" }
}
