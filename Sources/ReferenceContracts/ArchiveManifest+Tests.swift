// The records of a run's tests: which ran, took how long, failed, used which references.
extension ArchiveManifest {
  /// One assertion's use of a reference path: which test asked for it, where, and what came of
  /// it. A reference has one owner: `merge-refs` names both tests when two tests of the same runs
  /// use one path, and a later run's use of a path supersedes an earlier run's render of it.
  public struct ReferenceUse: Codable, Sendable, Equatable {
    /// What the assertion did with the reference.
    public enum Verdict: String, Codable, Sendable {
      /// It compared the render with the reference, and they matched.
      case passed
      /// It compared, and they did not match, or there was no usable reference.
      case failed
      /// It recorded the render (mode `all`, or a reference that `missing` recorded).
      case recorded
    }

    /// The reference's path relative to the package root, with `/` separators.
    public var path: String
    /// The test, named as in `images[].test`.
    public var test: String
    /// The case's arguments, as in `images[].testCase`: two cases of one test are two owners.
    public var testCase: String?
    /// The assertion's file, relative to the package root.
    public var file: String
    /// The assertion's line.
    public var line: Int
    /// What came of it.
    public var verdict: Verdict

    /// Creates a record of one use.
    public init(
      path: String, test: String, file: String, line: Int, verdict: Verdict,
      testCase: String? = nil
    ) {
      self.path = path
      self.test = test
      self.testCase = testCase
      self.file = file
      self.line = line
      self.verdict = verdict
    }

    /// The use's owner: the test, with its case's arguments when it has some.
    public var owner: String { TestName.owner(test: test, testCase: testCase) }

    /// "ShapeTests.testRing (Tests/ShapeTests/ShapeTests.swift:12)", for messages.
    public var place: String { "\(owner) (\(file):\(line))" }
  }

  /// How long one test took in a run, by its `swift test list` name.
  public struct TestDuration: Codable, Sendable, Equatable {
    /// The test's name as `swift test list` prints it: `Module.Class/testMethod` for XCTest.
    public var test: String
    /// Wall-clock seconds from the test's start to its end.
    public var seconds: Double

    /// Creates a duration record.
    public init(test: String, seconds: Double) {
      self.test = test
      self.seconds = seconds
    }
  }

  /// An XCTest test that failed, with the file its first failure was recorded in.
  public struct FailedTest: Codable, Sendable, Equatable, Hashable {
    /// The test's name as `swift test list` prints it: `Module.Class/testMethod`.
    public var test: String
    /// The name of the file (`ArithmeticTests.swift`, no folders) its first failure was
    /// recorded in; nil when XCTest named none. The references the test may own are in that
    /// file's folder.
    public var file: String?

    /// Creates a record.
    public init(test: String, file: String?) {
      self.test = test
      self.file = file
    }
  }

  /// Which tests a test process was asked to run, so `merge-refs` looks for orphans only where
  /// every test that could own a reference ran.
  public struct Coverage: Codable, Sendable, Equatable {
    /// What the process's own view of its run can prove.
    public enum Scope: String, Codable, Sendable {
      /// XCTest ran every test of its bundle ("All tests") and saw each skip.
      case wholeBundle
      /// XCTest ran tests its arguments selected: a `--filter`, or one worker of
      /// `swift test --parallel`, which starts a process per test.
      case selectedTests
      /// No XCTest bundle ran (Swift Testing): a test process cannot see which Swift Testing
      /// tests were skipped or filtered out, so it proves nothing about them.
      case unobserved
    }

    /// What the run covered.
    public var scope: Scope
    /// The test process's arguments after the program, for messages: the filters it was given.
    public var arguments: [String]
    /// True when the XCTest process's bundle also holds Swift Testing tests, which `swift test`
    /// runs in a process of their own: a whole-bundle XCTest run proves nothing about the
    /// references they own. Nil when none were found, or it is not known (archives of older
    /// versions; Apple platforms, where the bundle is not inspected).
    public var swiftTestingTestsNotRun: Bool?

    /// Creates a coverage record.
    public init(scope: Scope, arguments: [String], swiftTestingTestsNotRun: Bool? = nil) {
      self.scope = scope
      self.arguments = arguments
      self.swiftTestingTestsNotRun = swiftTestingTestsNotRun
    }
  }
}
