import Foundation
import ReferenceMerge

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension FileCalls {
  /// The system's calls with `renameAt` failing with `code` after `successes` renames: moving
  /// a staged file into a reference folder fails as a read-only folder makes it fail for a
  /// user who is not root (`EACCES`), which these tests, run as root, cannot make otherwise.
  package static func failingRenames(_ code: Int32, after successes: Int = 0) -> FileCalls {
    var calls = FileCalls.system
    let rename = calls.renameAt
    let budget = Budget(writes: successes)
    calls.renameAt = { fromFolder, from, toFolder, to in
      guard budget.take() else {
        errno = code
        return -1
      }
      return rename(fromFolder, from, toFolder, to)
    }
    return calls
  }
}

/// A count of calls allowed to succeed, taken from any thread.
public final class Budget: @unchecked Sendable {
  private let lock = NSLock()
  private var left: Int

  public init(writes: Int) { left = writes }

  /// Takes one call from the budget.
  /// - Returns: Whether the call may succeed.
  public func take() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    left -= 1
    return left >= 0
  }
}
