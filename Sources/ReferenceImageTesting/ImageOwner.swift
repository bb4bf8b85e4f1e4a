import ReferenceContracts

/// Who stores or verifies a reference: a test, or one case of a parameterized test. A reference
/// has one owner, and two cases of one test are two owners.
struct ImageOwner: Equatable, Sendable {
  /// The test's `swift test list` name.
  var test: String
  /// The case's arguments (`TestName.caseLabel`); nil for a test without arguments.
  var testCase: String?

  /// The owner in messages: `Module.Suite/dotIcon(size:) [size → 16]`.
  var description: String { TestName.owner(test: test, testCase: testCase) }
}
