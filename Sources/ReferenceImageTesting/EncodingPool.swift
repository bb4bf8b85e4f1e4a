import Dispatch
import Foundation

/// Runs PNG encoding in the background on every core, with back-pressure: when `capacity` jobs
/// are waiting or running, `submit` blocks the caller until one finishes, so memory stays
/// bounded by `capacity` copies of an image however fast a test saves.
final class EncodingPool: @unchecked Sendable {
  private let queue = DispatchQueue(
    label: "ReferenceImages.encoding", qos: .userInitiated, attributes: .concurrent)
  private let slots: DispatchSemaphore
  private let group = DispatchGroup()

  /// Creates a pool.
  /// - Parameter capacity: The most jobs in flight; twice the core count by default, so every
  ///   core stays busy while the next jobs wait.
  init(capacity: Int = 2 * ProcessInfo.processInfo.activeProcessorCount) {
    slots = DispatchSemaphore(value: max(capacity, 1))
  }

  /// Queues a job, first waiting for a free slot.
  func submit(_ job: @escaping @Sendable () -> Void) {
    slots.wait()
    group.enter()
    queue.async { [slots, group] in
      job()
      slots.signal()
      group.leave()
    }
  }

  /// Blocks until every submitted job has finished.
  func drain() {
    group.wait()
  }
}
