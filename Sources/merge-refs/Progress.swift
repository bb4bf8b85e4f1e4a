import Foundation
import ReferenceMerge

/// A one-line progress display for terminals; silent otherwise, so logs and pipes stay clean.
struct TerminalProgress: MergeProgress {
  let enabled: Bool

  func update(_ stage: String, _ done: Int, _ total: Int) {
    guard enabled, total > 0 else { return }
    FileHandle.standardOutput.write(Data("\r\u{1B}[K\(stage) \(done)/\(total)".utf8))
  }

  func clear() {
    guard enabled else { return }
    FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
  }
}
