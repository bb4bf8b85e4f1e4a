import ReferenceImageCore

/// A test's name as `swift test list` prints it, the name every record of a run uses: the
/// coordinator's manifest (XCTest), the event streams (Swift Testing), shard plans and records.
public enum TestName {
  /// An XCTest test: `Module.Class/testMethod`, from the type's module-qualified name and the
  /// case's name as Linux (`Class.testMethod`) or Apple platforms (`-[Class testMethod]`) spell
  /// it.
  public static func listing(xcTestType typeName: String, caseName: String) -> String {
    let method: Substring
    if caseName.hasPrefix("-["), caseName.hasSuffix("]"), let space = caseName.lastIndex(of: " ") {
      method = caseName[caseName.index(after: space)..<caseName.index(before: caseName.endIndex)]
    } else {
      method = caseName.split(separator: ".").last ?? Substring(caseName)
    }
    return "\(typeName)/\(method)"
  }

  /// A Swift Testing test: its ID without the trailing `/File.swift:line:column` the event
  /// stream adds.
  public static func listing(swiftTestingID id: String) -> String {
    guard let slash = id.lastIndex(of: "/") else { return id }
    let parts = id[id.index(after: slash)...].split(separator: ":")
    let isLocation =
      parts.count >= 3 && parts.suffix(2).allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    return isLocation ? String(id[..<slash]) : id
  }
}

extension TestName {
  /// The longest argument description a case label keeps, in characters.
  public static let argumentLimit = 48
  /// The longest case label, in characters.
  public static let caseLimit = 160

  /// An owner of references for messages, records and the review: the test alone, or a
  /// parameterized test's case as `Module.Suite/dotIcon(size:) [size → 16]`.
  public static func owner(test: String, testCase: String?) -> String {
    guard let testCase else { return test }
    return "\(test) [\(testCase)]"
  }

  /// A parameterized test case's label from its arguments (each parameter's name and the value
  /// as Swift Testing describes it): `size → 16`, `title → "café", scale → 2.0`, in the words
  /// of Swift Testing's own log. Bounded: an argument keeps `argumentLimit` characters and the
  /// label `caseLimit`; a shortened label ends with eight hex digits of its whole text's
  /// SHA-256, so two cases whose long descriptions differ late stay two owners. Line breaks and
  /// other control characters become spaces, so a label is one line of a message.
  public static func caseLabel(arguments: [(name: String, value: String)]) -> String {
    var shortened = false
    let parts = arguments.map { argument -> String in
      let value = oneLine(argument.value)
      shortened = shortened || value.count > argumentLimit
      return "\(argument.name) → \(truncated(value, to: argumentLimit))"
    }
    let whole = parts.joined(separator: ", ")
    let full = arguments.map { "\($0.name) → \($0.value)" }.joined(separator: ", ")
    guard shortened || whole.count > caseLimit else { return whole }
    let tag = String(SHA256.hex(Array(full.utf8)).prefix(8))
    return truncated(whole, to: caseLimit - tag.count - 2) + " #" + tag
  }

  private static func oneLine(_ text: String) -> String {
    String(
      text.map {
        $0.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } ? " " : $0
      })
  }

  private static func truncated(_ text: String, to limit: Int) -> String {
    text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
  }
}
