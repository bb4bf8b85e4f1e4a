import Foundation

/// Writes JSON to a `BufferedOutput` value by value, indented, so a document with thousands
/// of entries is never held whole. The caller opens and closes objects and arrays in order;
/// commas and indentation follow from that.
package struct JSONStream {
  private let output: BufferedOutput
  /// For each open object or array: whether it has a member yet.
  private var open: [Bool] = []
  private var afterKey = false
  private let indented: Bool

  /// - Parameters:
  ///   - output: Where the text goes.
  ///   - indented: Two-space indentation, one member per line; else compact.
  package init(_ output: BufferedOutput, indented: Bool = true) {
    self.output = output
    self.indented = indented
  }

  package mutating func beginObject() { beginValue("{") }
  package mutating func endObject() { end("}") }
  package mutating func beginArray() { beginValue("[") }
  package mutating func endArray() { end("]") }

  /// Starts a member of the open object.
  package mutating func key(_ name: String) {
    separate()
    output.write(Self.quoted(name))
    output.write(indented ? " : " : ":")
    afterKey = true
  }

  package mutating func string(_ value: String) { scalar(Self.quoted(value)) }
  package mutating func string(_ value: String?) { scalar(value.map(Self.quoted) ?? "null") }
  package mutating func number(_ value: Int) { scalar(String(value)) }
  package mutating func number(_ value: Int?) { scalar(value.map(String.init) ?? "null") }
  package mutating func bool(_ value: Bool) { scalar(value ? "true" : "false") }
  package mutating func null() { scalar("null") }

  /// A string value whose text is written by `body` straight to the output (a data URI), which
  /// must write only characters that need no escaping.
  package mutating func rawString(_ body: (BufferedOutput) -> Void) {
    beginScalar()
    output.write("\"")
    body(output)
    output.write("\"")
  }

  package mutating func member(_ name: String, _ value: String) {
    key(name)
    string(value)
  }

  package mutating func member(_ name: String, _ value: Int) {
    key(name)
    number(value)
  }

  package mutating func member(_ name: String, strings: [String]) {
    key(name)
    beginArray()
    for value in strings { string(value) }
    endArray()
  }

  private mutating func scalar(_ text: String) {
    beginScalar()
    output.write(text)
  }

  private mutating func beginScalar() {
    if afterKey {
      afterKey = false
    } else {
      separate()
    }
  }

  private mutating func beginValue(_ bracket: String) {
    beginScalar()
    output.write(bracket)
    open.append(false)
  }

  private mutating func end(_ bracket: String) {
    let hadMembers = open.removeLast()
    if hadMembers && indented { newline() }
    output.write(bracket)
  }

  /// A comma before every member but the first, then a new line at the depth.
  private mutating func separate() {
    guard let hasMembers = open.last else { return }
    if hasMembers { output.write(",") }
    open[open.count - 1] = true
    if indented { newline() }
  }

  private func newline() {
    output.write("\n" + String(repeating: "  ", count: open.count))
  }

  /// A JSON string literal. `<` is escaped too, so the text can sit inside a `<script>`
  /// element without ever closing it; U+2028 and U+2029, so older JavaScript parses it.
  package static func quoted(_ text: String) -> String {
    // Most strings (paths, digests, names) need nothing escaped, and are copied whole. 0xE2
    // starts U+2028 and U+2029 (and the rest of U+2000–U+2FFF, which the loop copies as is).
    let plain = !text.utf8.contains { byte in
      byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        || byte == UInt8(ascii: "<") || byte == 0xE2
    }
    if plain { return "\"" + text + "\"" }
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "<", "\u{2028}", "\u{2029}":
        result += String(format: "\\u%04x", scalar.value)
      case _ where scalar.value < 0x20:
        result += String(format: "\\u%04x", scalar.value)
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
