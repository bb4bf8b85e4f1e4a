/// The exact `swift test --filter` pattern for one test `swift test list` printed.
///
/// `--filter` is an unanchored regular expression: `AlphaTests` also selects `AlphaTestsExtra`,
/// and the parentheses of `paramScene(n:)` are a group that matches nothing. Every pattern here
/// is anchored and escaped, so it selects that test and no other.
public enum TestFilter {
  /// The test framework a listed name belongs to.
  public enum Framework: Sendable, Equatable {
    /// `Module.Class/testMethod`.
    case xcTest
    /// `Module.Suite/Nested/test()`, `Module.free()`, `Module.param(n:)`.
    case swiftTesting
  }

  /// Which framework a listed name belongs to: Swift Testing names end with the function's
  /// argument labels in parentheses; an XCTest method name never holds a parenthesis.
  public static func framework(of test: String) -> Framework {
    test.hasSuffix(")") ? .swiftTesting : .xcTest
  }

  /// The pattern that selects exactly `test`.
  ///
  /// XCTest tests are matched as `Module.Class/testMethod`, so the whole name is anchored at
  /// both ends. A Swift Testing test is matched by its full ID, which ends with its source
  /// location (`Module.param(n:)/File.swift:7:2`), so its name is followed by `/` or the end.
  public static func pattern(for test: String) -> String {
    let escaped = escape(test)
    switch framework(of: test) {
    case .xcTest: return "^\(escaped)$"
    case .swiftTesting: return "^\(escaped)(/|$)"
    }
  }

  /// `text` with every regular-expression metacharacter escaped with a backslash.
  public static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count + 8)
    for character in text {
      if metacharacters.contains(character) { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  private static let metacharacters: Set<Character> = [
    "\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}",
  ]
}
