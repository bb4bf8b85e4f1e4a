import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Landed references rewritten in the smallest lossless form (`merge-refs --compact`): each
/// file read, encoded by `CompactRewrite` (which checks the pixels through both readers) and
/// replaced through the destination's handles, on every core.
extension Destination {
  /// What compacting the landed references did.
  package struct Compaction: Sendable, Equatable {
    /// Files looked at.
    package var files = 0
    /// Files replaced by a smaller compact form.
    package var compacted = 0
    /// Their bytes before and after.
    package var bytesBefore = 0
    package var bytesAfter = 0
    /// Files that could not be compacted, with why; each is left as it landed.
    package var failures: [String] = []
  }

  /// Rewrites the PNGs at `paths` compactly where that is smaller; files another tool wrote
  /// (no pixel digest) and 16-bit files are left as they are.
  func compact(_ paths: [String]) -> Compaction {
    var outcomes = [(CompactRewrite.Outcome, String)?](repeating: nil, count: paths.count)
    outcomes.withUnsafeMutableBufferPointer { buffer in
      // Each iteration writes only its own slot.
      nonisolated(unsafe) let slots = buffer
      DispatchQueue.concurrentPerform(iterations: paths.count) { index in
        slots[index] = (compactFile(paths[index]), paths[index])
      }
    }
    var compaction = Compaction(files: paths.count)
    for case let (outcome, path)? in outcomes {
      switch outcome {
      case .compacted(let before, let after):
        compaction.compacted += 1
        compaction.bytesBefore += before
        compaction.bytesAfter += after
      case .failed(let reason):
        compaction.failures.append("\(path): \(reason)")
      case .alreadyCompact, .writtenByAnotherTool, .sixteenBit:
        break
      }
    }
    return compaction
  }

  private func compactFile(_ path: String) -> CompactRewrite.Outcome {
    guard let (bytes, _) = read(path) else {
      return .failed(reason: "it could not be read back")
    }
    let (outcome, newBytes) = CompactRewrite.decision(forPNG: bytes, includingOtherTools: false)
    guard let newBytes else { return outcome }
    do {
      try writeFile(newBytes, to: path, digest: SHA256Digest(of: newBytes))
    } catch {
      return .failed(reason: "\(error)")
    }
    return outcome
  }
}
