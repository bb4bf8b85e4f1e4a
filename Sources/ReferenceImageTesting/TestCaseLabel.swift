import ReferenceContracts
import Testing

/// The running Swift Testing case's arguments as a label (`TestName.caseLabel`): a parameterized
/// test's cases are owners of their own, so each must be told apart in the manifest, messages
/// and artifact names.
enum TestCaseLabel {
  /// The label of the running case; nil outside a parameterized test.
  static var current: String? {
    guard let testCase = Test.Case.current, testCase.isParameterized else { return nil }
    return label(of: testCase)
  }

  /// Swift Testing keeps a case's arguments behind an SPI (`Test.Case.arguments`), so they are
  /// read by reflection: `_kind` is `.parameterized(arguments:discriminator:isStable:)`, each
  /// argument holds its `value` and its `parameter`'s names. Should that layout change, the
  /// case's whole description stands in (hashed), which still tells cases apart.
  static func label(of testCase: Test.Case) -> String {
    if let arguments = arguments(of: testCase), !arguments.isEmpty {
      // Swift Testing tells cases with equal arguments apart by a discriminator: so does this.
      let repeated = discriminator(of: testCase).map { $0 > 0 ? " #\($0)" : "" } ?? ""
      return TestName.caseLabel(arguments: arguments) + repeated
    }
    let description = String(describing: testCase)
    return TestName.caseLabel(arguments: [(name: "case", value: description)])
  }

  private static func arguments(of testCase: Test.Case) -> [(name: String, value: String)]? {
    guard let kind = child("_kind", of: testCase),
      let parameterized = Mirror(reflecting: kind).children.first?.value,
      let arguments = child("arguments", of: parameterized) as? [Any]
    else { return nil }
    var described: [(name: String, value: String)] = []
    for argument in arguments {
      guard let value = child("value", of: argument),
        let parameter = child("parameter", of: argument),
        let firstName = child("firstName", of: parameter) as? String
      else { return nil }
      let secondName = child("secondName", of: parameter) as? String
      let name = firstName == "_" ? (secondName ?? firstName) : firstName
      described.append((name: name, value: String(describingForTest: value)))
    }
    return described
  }

  private static func discriminator(of testCase: Test.Case) -> Int? {
    guard let kind = child("_kind", of: testCase),
      let parameterized = Mirror(reflecting: kind).children.first?.value
    else { return nil }
    return child("discriminator", of: parameterized) as? Int
  }

  private static func child(_ label: String, of value: Any) -> Any? {
    Mirror(reflecting: value).children.first { $0.label == label }?.value
  }
}
